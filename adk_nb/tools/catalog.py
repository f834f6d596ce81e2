"""What an agent can call: each tool's declaration as the model sees it, its origin, and approval.

`await agent_tools(agent)` serves views (the notebook's `%agent tools`) and scripts alike; it
expands toolsets, so it opens MCP sessions the way a model call would.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Union

from .base_tool import BaseTool


@dataclass
class ToolInfo:
  """One tool an agent offers its model."""

  name: str
  """The name the model calls."""
  origin: str
  """Where the tool comes from: 'function billing.refund', 'MCP stdio server `...`', 'OpenAPI GET /pets', ..."""
  kind: str
  """'function', 'agent', 'mcp', 'openapi' or 'other'."""
  declaration: Optional[dict[str, Any]]
  """The function declaration as sent to the model (JSON), or None for tools that only edit the request."""
  needs_approval: Union[bool, str]
  """True, False, or 'depends' when a predicate decides per call."""
  toolset: Optional[str] = None
  """The toolset the tool came from (its repr), when it came from one."""


def describe_tool(tool: BaseTool, toolset: Any = None) -> ToolInfo:
  """The ToolInfo of one tool."""
  from .agent_tool import AgentTool
  from .function_tool import FunctionTool
  from .mcp_tool.mcp_tool import McpTool
  from .openapi_tool.openapi_spec_parser.rest_api_tool import RestApiTool

  if isinstance(tool, McpTool):
    kind, origin = "mcp", f"MCP {tool.server_name}"
  elif isinstance(tool, RestApiTool):
    kind, origin = "openapi", f"OpenAPI {tool.operation.label} at {tool.operation.base_url}"
  elif isinstance(tool, AgentTool):
    kind, origin = "agent", f"agent {tool.agent.name!r}"
  elif isinstance(tool, FunctionTool):
    func = tool.func
    where = f"{getattr(func, '__module__', '') or ''}.{getattr(func, '__qualname__', tool.name)}".lstrip(".")
    kind, origin = "function", f"function {where}"
  else:
    kind, origin = "other", type(tool).__name__
  rule = getattr(tool, "_require_confirmation", False)
  approval: Union[bool, str] = "depends" if callable(rule) else bool(rule)
  declaration = tool._get_declaration()
  return ToolInfo(name=tool.name, origin=origin, kind=kind,
                  declaration=None if declaration is None else declaration.model_dump(mode="json", exclude_none=True),
                  needs_approval=approval, toolset=None if toolset is None else repr(toolset))


async def agent_tools(agent: Any, readonly_context: Any = None) -> list[ToolInfo]:
  """Every tool `agent` offers its model, toolsets expanded (in the order the model sees them)."""
  from .base_toolset import BaseToolset
  from .function_tool import FunctionTool

  out: list[ToolInfo] = []
  for entry in getattr(agent, "tools", []):
    if isinstance(entry, BaseToolset):
      for tool in await entry.get_tools_with_prefix(readonly_context):
        out.append(describe_tool(tool, entry))
    else:
      out.append(describe_tool(entry if isinstance(entry, BaseTool) else FunctionTool(entry)))
  return out


async def find_tool(agent: Any, name: str, readonly_context: Any = None) -> Optional[BaseTool]:
  """The tool `agent` offers its model under `name` (toolsets expanded, prefixes applied), or None.

  Tools of agents run through an AgentTool are searched too (depth first), since their
  paused calls surface under the outer agent. Like the model call, this lists the tools of
  MCP servers, so it may start or reach a server; its errors propagate.
  """
  from .agent_tool import AgentTool

  tools = await agent.canonical_tools(readonly_context) if hasattr(agent, "canonical_tools") else []
  for tool in tools:
    if tool.name == name:
      return tool
  for inner in [t.agent for t in tools if isinstance(t, AgentTool)] + list(getattr(agent, "sub_agents", [])):
    found = await find_tool(inner, name, readonly_context)
    if found is not None:
      return found
  return None
