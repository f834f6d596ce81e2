"""What can stand for a node in `edges`, and the node it stands for (google-adk 2.x's `build_node`)."""

from __future__ import annotations

from typing import Any

from .._base_node import START, BaseNode
from .._errors import WorkflowConfigurationError

__all__ = ["build_node", "is_node_like"]


def is_node_like(item: Any) -> bool:
  """True for what `edges` accepts as a node: a node or agent, a callable, a tool, or 'START'."""
  from ...tools.base_tool import BaseTool

  return isinstance(item, (BaseNode, BaseTool)) or item == "START" or (callable(item) and not isinstance(item, type))


def build_node(node_like: Any, **overrides: Any) -> BaseNode:
  """The node a node-like stands for: "START", a node or agent, a tool, or a callable.

  An LlmAgent is cloned (the object in `edges` is not the one that runs), with `rerun_on_resume=True`
  and a `mode`: its own, else 'chat' when it has a parent agent and 'single_turn' when not. A
  single_turn agent sees only its node input (`include_contents='none'` unless set); task and chat
  agents wait for their output (`wait_for_output=True`). Other nodes are used as they are, or copied
  with `overrides` (name, rerun_on_resume, retry_config, timeout). A tool becomes a tool node, a
  callable a FunctionNode.
  """
  from .._function_node import FunctionNode

  if isinstance(node_like, str):
    if node_like == "START":
      return START
    raise WorkflowConfigurationError(
        f"Invalid node {node_like!r} in edges: strings other than 'START' are not nodes. Pass the "
        "function, agent or node object itself."
    )
  overrides = {k: v for k, v in overrides.items() if v is not None}
  if isinstance(node_like, BaseNode):
    from ...agents.llm_agent import LlmAgent

    if isinstance(node_like, LlmAgent):
      update = dict(overrides)
      update.setdefault("rerun_on_resume", True)
      mode = node_like.mode or ("chat" if node_like.parent_agent is not None else "single_turn")
      update["mode"] = mode
      if mode == "single_turn" and "include_contents" not in node_like.model_fields_set:
        update["include_contents"] = "none"  # single_turn: the agent sees only its node input
      if mode in ("task", "chat"):
        update["wait_for_output"] = True
      if node_like.parallel_worker:  # google-adk's Agent(parallel_worker=True): one agent run per list item
        from .._parallel_worker import _ParallelWorker

        update.update(parallel_worker=False, max_parallel_workers=None)
        worker = node_like.clone(update=update)
        return _ParallelWorker(name=worker.name, description=worker.description, worker=worker,
                               max_parallel_workers=node_like.max_parallel_workers)
      return node_like.clone(update=update)
    return node_like.model_copy(update=overrides) if overrides else node_like
  from ...tools.base_tool import BaseTool

  if isinstance(node_like, BaseTool):
    from .._tool_node import _ToolNode

    return _ToolNode(tool=node_like, **overrides)
  if callable(node_like):
    return FunctionNode(func=node_like, **overrides)
  raise WorkflowConfigurationError(
      f"Invalid node type {type(node_like).__name__}: edges take functions, agents, tools, nodes or 'START'."
  )
