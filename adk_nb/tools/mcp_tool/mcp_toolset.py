"""McpToolset: the tools (and resources) of one MCP server, as a toolset an agent can hold."""

from __future__ import annotations

import asyncio
import sys
import time
from typing import TYPE_CHECKING, Any, Callable, Optional, TextIO, Union

from ..base_tool import BaseTool
from ..base_toolset import BaseToolset, ToolPredicate
from .mcp_session_manager import MCPSessionManager, McpConnectionError, import_mcp
from .mcp_tool import DEFAULT_MAX_RESULT_CHARS, HeaderProvider, McpTool, dump_wire, provided_headers

if TYPE_CHECKING:
  from ...agents.readonly_context import ReadonlyContext


class McpToolset(BaseToolset):
  """Connects an agent to an MCP server: each server tool becomes an `McpTool`.

  ```python
  from mcp import StdioServerParameters
  from adk_nb.tools.mcp_tool import McpToolset, StdioConnectionParams

  files = McpToolset(connection_params=StdioConnectionParams(
      server_params=StdioServerParameters(command="npx", args=["-y", "@modelcontextprotocol/server-filesystem", "."])))
  agent = Agent(name="files", model=..., tools=[files])
  ```

  The session opens on first use and is reused; `Runner.close()` (or `await toolset.close()`)
  stops the server. See `mcp_session_manager` for the lifecycle.

  Args:
    connection_params: `StdioConnectionParams`, `StreamableHTTPConnectionParams`,
      `SseConnectionParams`, or the SDK's `StdioServerParameters`.
    tool_filter: tool names to offer, or a predicate `(tool, readonly_context) -> bool`.
    tool_name_prefix: offer every tool as `'{prefix}_{name}'`.
    errlog: where a stdio server's stderr goes.
    require_confirmation: True, or a function of a call's arguments, to pause calls for approval.
    header_provider: `(readonly_context) -> dict` of headers per request (HTTP servers): auth, tenancy.
    use_mcp_resources: also offer `load_mcp_resource`, which reads the server's resources.
    max_result_chars: the most characters of text or data per call passed back to the model.
    tool_list_cache_ttl_seconds: reuse the server's tool list for this long instead of listing
      before every model call (None: list every time, so added or removed tools show up at once).
  """

  def __init__(
      self,
      *,
      connection_params: Any,
      tool_filter: Optional[Union[ToolPredicate, list[str]]] = None,
      tool_name_prefix: Optional[str] = None,
      errlog: TextIO = sys.stderr,
      require_confirmation: Union[bool, Callable[..., Any]] = False,
      header_provider: Optional[HeaderProvider] = None,
      use_mcp_resources: bool = False,
      max_result_chars: int = DEFAULT_MAX_RESULT_CHARS,
      tool_list_cache_ttl_seconds: Optional[float] = None,
      auth_scheme: Any = None,
      auth_credential: Any = None,
  ) -> None:
    super().__init__(tool_filter=tool_filter, tool_name_prefix=tool_name_prefix)
    if not connection_params:
      raise ValueError("McpToolset needs connection_params=StdioConnectionParams(...) or StreamableHTTPConnectionParams(url=...).")
    if auth_scheme is not None or auth_credential is not None:
      raise NotImplementedError(
          "McpToolset does not take auth_scheme/auth_credential yet; send credentials with "
          "header_provider=lambda ctx: {'Authorization': 'Bearer ...'} or StreamableHTTPConnectionParams(headers=...)."
      )
    if max_result_chars < 1:
      raise ValueError(f"max_result_chars must be positive, got {max_result_chars}.")
    self._mcp_session_manager = MCPSessionManager(connection_params, errlog=errlog)
    self._require_confirmation = require_confirmation
    self._header_provider = header_provider
    self._use_mcp_resources = use_mcp_resources
    self.max_result_chars = max_result_chars
    """The most characters of text or data per call passed back to the model."""
    if tool_list_cache_ttl_seconds is not None and tool_list_cache_ttl_seconds <= 0:
      raise ValueError(f"tool_list_cache_ttl_seconds must be positive (or None), got {tool_list_cache_ttl_seconds}.")
    self._list_ttl = tool_list_cache_ttl_seconds
    self._listed: dict[tuple, tuple[float, list[BaseTool]]] = {}

  @property
  def connection_params(self):
    """The normalized connection parameters."""
    return self._mcp_session_manager.connection_params

  @property
  def server_name(self) -> str:
    """The server's command line or URL, as error messages name it."""
    return self._mcp_session_manager.server_name

  async def _session(self, readonly_context: Optional["ReadonlyContext"]):
    import_mcp()
    headers = await provided_headers(self._header_provider, readonly_context)
    return await self._mcp_session_manager.create_session(headers), headers

  async def _request(self, what: str, readonly_context, send):
    """Runs an idempotent request, once more on a fresh session if the server had died."""
    timeout = self.connection_params.timeout
    session, headers = await self._session(readonly_context)
    try:
      return await asyncio.wait_for(send(session), timeout)
    except asyncio.TimeoutError:
      raise McpConnectionError(f"MCP {self.server_name} did not answer within {timeout:g} s while {what}; "
                               "raise timeout= in the connection params if it is just slow.") from None
    except McpConnectionError:
      raise
    except Exception as exc:  # noqa: BLE001
      if "Connection closed" not in str(exc):
        raise McpConnectionError(f"MCP {self.server_name}: {what} failed: {type(exc).__name__}: {exc}") from exc
    self._mcp_session_manager.discard(headers)
    session, _ = await self._session(readonly_context)
    try:
      return await asyncio.wait_for(send(session), timeout)
    except Exception as exc:  # noqa: BLE001
      raise McpConnectionError(f"MCP {self.server_name} stopped again right after a restart while {what}: "
                               f"{type(exc).__name__}: {exc}") from exc

  async def get_tools(self, readonly_context: Optional["ReadonlyContext"] = None) -> list[BaseTool]:
    """The server's tools (listed on every call unless tool_list_cache_ttl_seconds is set)."""
    every = await self._list_tools(readonly_context)
    tools: list[BaseTool] = [t for t in every if self._is_tool_selected(t, readonly_context)]
    if self._use_mcp_resources:
      from .load_mcp_resource_tool import LoadMcpResourceTool

      tools.append(LoadMcpResourceTool(mcp_toolset=self))
    return tools

  async def _list_tools(self, readonly_context) -> list[BaseTool]:
    key: tuple = ()
    if self._list_ttl is not None:
      headers = await provided_headers(self._header_provider, readonly_context)
      key = tuple(sorted((headers or {}).items()))
      cached = self._listed.get(key)
      if cached is not None and time.monotonic() - cached[0] < self._list_ttl:
        return cached[1]
    listed = await self._request("listing tools", readonly_context, lambda s: s.list_tools())
    tools: list[BaseTool] = [
        McpTool(mcp_tool=raw, mcp_session_manager=self._mcp_session_manager,
                require_confirmation=self._require_confirmation, header_provider=self._header_provider,
                max_result_chars=self.max_result_chars)
        for raw in listed.tools]
    tools.sort(key=lambda t: t.name)  # a stable order keeps the request (and provider caches) stable
    if self._list_ttl is not None:
      self._listed[key] = (time.monotonic(), tools)
    return tools

  async def list_resources(self, readonly_context: Optional["ReadonlyContext"] = None) -> list[str]:
    """The names of the server's resources."""
    result = await self._request("listing resources", readonly_context, lambda s: s.list_resources())
    return [r.name for r in result.resources]

  async def get_resource_info(self, name: str, readonly_context: Optional["ReadonlyContext"] = None) -> dict[str, Any]:
    """A resource's listing (name, uri, description, mimeType)."""
    result = await self._request("listing resources", readonly_context, lambda s: s.list_resources())
    for resource in result.resources:
      if resource.name == name:
        return dump_wire(resource)
    names = ", ".join(r.name for r in result.resources) or "none"
    raise ValueError(f"MCP {self.server_name} has no resource named {name!r}; it has: {names}.")

  async def read_resource(self, name: str, readonly_context: Optional["ReadonlyContext"] = None) -> list[Any]:
    """The contents of a resource (the SDK's TextResourceContents / BlobResourceContents)."""
    info = await self.get_resource_info(name, readonly_context)
    result = await self._request(f"reading resource {name!r}", readonly_context,
                                 lambda s: s.read_resource(info["uri"]))
    return list(result.contents)

  async def close(self) -> None:
    """Ends the sessions and stops a stdio server. Safe to call twice; the toolset reopens on next use."""
    self._listed.clear()
    await self._mcp_session_manager.close()

  def __repr__(self) -> str:
    return f"McpToolset({self.server_name})"


# google-adk's deprecated spelling.
MCPToolset = McpToolset


def __getattr__(name: str) -> Any:
  # `from google.adk.tools.mcp_tool.mcp_toolset import StdioServerParameters` (google-adk's samples):
  # the MCP SDK's class, imported on first use since the SDK is optional.
  if name == "StdioServerParameters":
    return import_mcp().StdioServerParameters
  raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
