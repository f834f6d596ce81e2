"""Graph workflows (google-adk 2.x): nodes wired by edges, run by the Runner like any agent."""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "BaseNode": "._base_node",
    "START": "._base_node",
    "FunctionNode": "._function_node",
    "JoinNode": "._join_node",
    "Node": "._node",
    "node": "._node",
    "Edge": "._graph",
    "DEFAULT_ROUTE": "._graph",
    "RetryConfig": "._retry_config",
    "NodeTimeoutError": "._errors",
    "Workflow": "._workflow",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
  # Lazy: agents import the node base classes from this package, and Workflow imports agents.
  module = _EXPORTS.get(name)
  if module is None:
    raise AttributeError(f"module 'adk_nb.workflow' has no attribute {name!r}")
  from importlib import import_module

  value = getattr(import_module(module, __name__), name)
  globals()[name] = value
  return value
