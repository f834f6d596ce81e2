"""_ToolNode: an ADK tool (a FunctionTool, an AgentTool, ...) as a workflow graph node.

`edges=[("START", prepare, FunctionTool(lookup))]` runs the tool once per trigger: the node
input is the tool's arguments (a dict; a JSON object string; None for no arguments; any other
value for a tool with one parameter, or one required parameter, is that parameter) and the
tool's response is the node's output. State the tool writes through its `tool_context` is
committed with that output.

The response is the output exactly as the tool returned it, as in google-adk 2.13: media (a
`types.Part` with an image, alone or inside a dict) and pydantic models reach the next node as those
objects. The rule that moves media into a function response's parts (`flows._tool_media`) belongs to
a model's tool call, and a tool node answers no model.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, AsyncGenerator, Optional

from google.genai import types
from pydantic import ConfigDict

from ..agents.context import Context
from ..events.event import Event
from ..tools.base_tool import BaseTool
from ..tools.tool_context import ToolContext
from ._base_node import BaseNode
from ._errors import WorkflowDataError
from ._retry_config import RetryConfig


class _ToolNode(BaseNode):
  """Runs `tool` with the node input as its arguments; its response is the output."""

  model_config = ConfigDict(arbitrary_types_allowed=True)

  tool: BaseTool
  """The wrapped tool."""

  def __init__(self, *, tool: BaseTool, name: Optional[str] = None, retry_config: Optional[RetryConfig] = None,
               timeout: Optional[float] = None, **fields: Any) -> None:
    super().__init__(tool=tool, name=name or tool.name, description=fields.pop("description", tool.description or ""),
                     retry_config=retry_config, timeout=timeout, **fields)

  async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
    args = _arguments(self.name, node_input, self.tool)
    # The tool's state writes go into the node's pending actions: committed with its output.
    tool_context = ToolContext(ctx._invocation_context, function_call_id=f"node-{uuid.uuid4().hex}",
                               event_actions=ctx._event_actions)
    response = await self.tool.run_async(args=args, tool_context=tool_context)
    if response is not None:
      # An Event keeps the value as it is (a bare value that is a pydantic model, a Part included,
      # would be turned into a dict).
      yield Event(output=response)


class ToolNodeInputError(WorkflowDataError, TypeError):
  """A tool node's input is not its arguments (a TypeError, as google-adk raises, and a WorkflowDataError)."""


def _parameters(tool: BaseTool) -> tuple[list[str], list[str]]:
  """(all parameter names, required ones) from the tool's declaration."""
  try:
    decl = tool._get_declaration()
  except Exception:
    return [], []
  schema = getattr(decl, "parameters_json_schema", None) or getattr(decl, "parameters", None)
  if isinstance(schema, dict):
    return list(schema.get("properties") or ()), list(schema.get("required") or ())
  if schema is not None:
    return list(getattr(schema, "properties", None) or ()), list(getattr(schema, "required", None) or ())
  return [], []


def _arguments(name: str, node_input: Any, tool: Optional[BaseTool] = None) -> dict[str, Any]:
  """The tool's arguments from the node input: a dict, a JSON object (string or message text), or none;
  any other value is the argument of a tool with one parameter (or one required parameter), as google-adk."""
  args = node_input
  if isinstance(args, types.Content):
    args = "".join(p.text for p in args.parts or [] if p.text and not p.thought)
  if isinstance(args, str):
    text = args.strip()
    args = text or None
    if text:
      try:
        parsed = json.loads(text)
      except json.JSONDecodeError:
        parsed = None
      if isinstance(parsed, dict):
        args = parsed
  if args is None:
    return {}
  if isinstance(args, dict):
    return args
  if tool is not None:
    every, required = _parameters(tool)
    if len(every) == 1:
      return {every[0]: args}
    if len(required) == 1:
      return {required[0]: args}
  raise ToolNodeInputError(
      f"The input to ToolNode must be a dictionary of tool arguments or None, but got {type(args).__name__}: "
      f"{args!r:.80} (tool node {name!r}). Put a function node before it that returns the arguments dict."
  )
