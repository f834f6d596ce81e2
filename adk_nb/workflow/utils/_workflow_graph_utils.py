"""What can stand for a node in `edges`, and the node it stands for."""

from __future__ import annotations

from typing import Any

from .._base_node import BaseNode
from .._node import build_node

__all__ = ["build_node", "is_node_like"]


def is_node_like(item: Any) -> bool:
  """True for what `edges` accepts as a node: a node or agent, a callable, a tool, or 'START'."""
  from ...tools.base_tool import BaseTool

  return isinstance(item, (BaseNode, BaseTool)) or item == "START" or (callable(item) and not isinstance(item, type))
