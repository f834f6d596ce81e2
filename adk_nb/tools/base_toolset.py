"""BaseToolset: a group of tools resolved when the agent runs (MCP servers, OpenAPI specs, ...).

A toolset sits in `LlmAgent(tools=[...])` beside plain functions and tools. Before each model
call the agent asks every toolset for its tools (`get_tools_with_prefix`), so a toolset can
depend on the session (the readonly context) or on a remote server's current tool list.
`Runner.close()` closes every toolset of the agent tree.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Optional, Protocol, Union, final, runtime_checkable

from google.genai import types

from .base_tool import BaseTool

if TYPE_CHECKING:
  from ..agents.readonly_context import ReadonlyContext
  from ..models.llm_request import LlmRequest
  from .tool_context import ToolContext


@runtime_checkable
class ToolPredicate(Protocol):
  """Decides whether a tool of a toolset is offered to the model in the current context."""

  def __call__(self, tool: BaseTool, readonly_context: Optional["ReadonlyContext"] = None) -> bool:
    ...


class BaseToolset(ABC):
  """A collection of tools an agent resolves per model call.

  Args:
    tool_filter: the tool names to offer, or a `ToolPredicate` `(tool, readonly_context) -> bool`;
      None offers every tool. Subclasses apply it in `get_tools` through `_is_tool_selected`.
    tool_name_prefix: when set, every tool is offered as `'{prefix}_{name}'`.
  """

  def __init__(self, *, tool_filter: Optional[Union[ToolPredicate, list[str]]] = None,
               tool_name_prefix: Optional[str] = None) -> None:
    if tool_filter is not None and not isinstance(tool_filter, list) and not callable(tool_filter):
      raise TypeError(
          f"{type(self).__name__}: tool_filter must be a list of tool names or a function "
          f"(tool, readonly_context) -> bool, not {type(tool_filter).__name__}."
      )
    self.tool_filter = tool_filter
    """Tool names to offer, or a predicate; None offers every tool."""
    self.tool_name_prefix = tool_name_prefix
    """Prefix prepended (with '_') to every tool name; None keeps the names."""

  @abstractmethod
  async def get_tools(self, readonly_context: Optional["ReadonlyContext"] = None) -> list[BaseTool]:
    """The tools offered in this context (filter applied, no prefix).

    An exception raised here fails the model call with that error (google-adk logs it and runs
    the agent without the toolset; a silently missing capability is harder to find). A toolset
    that should degrade instead catches the error here and returns what it can.
    """

  @final
  async def get_tools_with_prefix(self, readonly_context: Optional["ReadonlyContext"] = None) -> list[BaseTool]:
    """`get_tools`, with `tool_name_prefix` applied to copies of the tools."""
    tools = await self.get_tools(readonly_context)
    if not self.tool_name_prefix:
      return tools
    return [_prefixed(tool, f"{self.tool_name_prefix}_{tool.name}") for tool in tools]

  async def close(self) -> None:
    """Releases connections, processes and files the toolset holds. Safe to call twice."""

  async def process_llm_request(self, *, tool_context: "ToolContext", llm_request: "LlmRequest") -> None:
    """Edits the outgoing request once per model call, before the tools add their declarations."""

  def _is_tool_selected(self, tool: BaseTool, readonly_context: Optional["ReadonlyContext"]) -> bool:
    """Whether `tool_filter` lets `tool` through."""
    selected = self.tool_filter
    if not selected:
      return True
    if isinstance(selected, list):
      return tool.name in selected
    return bool(selected(tool, readonly_context))


def _prefixed(tool: BaseTool, name: str) -> BaseTool:
  """A shallow copy of `tool` named `name`, whose declaration carries the new name."""
  clone = copy.copy(tool)
  clone.name = name
  original = tool._get_declaration

  def declaration() -> Optional[types.FunctionDeclaration]:
    decl = original()
    return None if decl is None else decl.model_copy(update={"name": name})

  clone._get_declaration = declaration  # type: ignore[method-assign]
  return clone
