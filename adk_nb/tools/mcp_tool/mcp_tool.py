"""McpTool: one tool of an MCP server, offered to the model like a function tool."""

from __future__ import annotations

import inspect
import json
import logging
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional, Union

from google.genai import types

from .._json_schema import SchemaError, object_schema
from ..base_tool import BaseTool
from ..tool_confirmation import confirmation_gate, confirmation_required
from .mcp_session_manager import MCPSessionManager

if TYPE_CHECKING:
  from ...agents.readonly_context import ReadonlyContext
  from ..tool_context import ToolContext

logger = logging.getLogger("adk_nb.tools.mcp")

HeaderProvider = Callable[["ReadonlyContext"], Union[dict[str, str], Awaitable[dict[str, str]]]]
DEFAULT_MAX_RESULT_CHARS = 100_000
# Result fields that only matter to the SDK (protocol bookkeeping), not to the model.
_BOOKKEEPING = ("resultType", "ttlMs", "cacheScope")


def dump_wire(model: Any) -> dict[str, Any]:
  """An SDK model as the JSON the server sent (camelCase keys: isError, mimeType, structuredContent)."""
  data = model.model_dump(mode="json", by_alias=True, exclude_none=True)
  if "_meta" in data:
    data["meta"] = data.pop("_meta")
  return data


class McpTool(BaseTool):
  """Calls one tool of an MCP server through its toolset's session.

  The declaration the model sees is the server's input schema with `$ref`s inlined. The
  answer is the MCP result as the server sent it (`content` blocks of text, images and
  resources, `structuredContent`, `isError`), as in google-adk; text and binary data past
  `max_result_chars` characters are cut with a marker saying how much was left out.

  Args:
    mcp_tool: the SDK's `Tool` listed by the server.
    mcp_session_manager: the toolset's sessions.
    require_confirmation: True, or a function of the call's arguments (and optionally
      `tool_context`) returning True, to pause each call until a person approves it.
    header_provider: `(readonly_context) -> dict` of headers for each request (HTTP servers).
    max_result_chars: the most characters of text or base64 data passed back to the model.
  """

  def __init__(self, *, mcp_tool: Any, mcp_session_manager: MCPSessionManager,
               require_confirmation: Union[bool, Callable[..., Any]] = False,
               header_provider: Optional[HeaderProvider] = None,
               max_result_chars: int = DEFAULT_MAX_RESULT_CHARS,
               auth_scheme: Any = None, auth_credential: Any = None) -> None:
    wire = dump_wire(mcp_tool)
    super().__init__(name=wire["name"], description=wire.get("description") or "")
    self.raw_mcp_tool = mcp_tool
    """The SDK's Tool as the server listed it."""
    self._wire = wire
    self._mcp_session_manager = mcp_session_manager
    self._require_confirmation = require_confirmation
    self._header_provider = header_provider
    self.max_result_chars = max_result_chars
    """The most characters of text or base64 data passed back to the model per call."""
    self._declaration: Optional[types.FunctionDeclaration] = None
    if auth_scheme is not None or auth_credential is not None:
      raise NotImplementedError(
          "McpTool does not take auth_scheme/auth_credential yet; send credentials as headers with "
          "header_provider=lambda ctx: {'Authorization': 'Bearer ...'} or StreamableHTTPConnectionParams(headers=...)."
      )

  @property
  def server_name(self) -> str:
    """The server this tool belongs to (its command line or URL)."""
    return self._mcp_session_manager.server_name

  def _get_declaration(self) -> types.FunctionDeclaration:
    if self._declaration is None:
      try:
        schema = object_schema(self._wire.get("inputSchema"))
      except SchemaError as exc:
        raise SchemaError(
            f"MCP {self.server_name}: tool {self.name!r} has an input schema the model cannot take: {exc} "
            f"Leave the tool out with tool_filter=[...] on the McpToolset."
        ) from None
      self._declaration = types.FunctionDeclaration(
          name=self.name, description=self.description, parameters_json_schema=schema)
    return self._declaration

  async def needs_confirmation(self, args: dict[str, Any], tool_context: "ToolContext") -> bool:
    """Whether this call must wait for a person's approval."""
    return await confirmation_required(self._require_confirmation, args, tool_context)

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    gated = await confirmation_gate(self, args, tool_context)
    if gated is not None:
      return gated
    headers = None
    if self._header_provider is not None:
      headers = await provided_headers(self._header_provider, _readonly(tool_context))
    manager = self._mcp_session_manager
    session = await manager.create_session(headers)
    try:
      result = await session.call_tool(self._wire["name"], arguments=args,
                                       read_timeout_seconds=manager.connection_params.timeout)
    except Exception as exc:  # noqa: BLE001 - the model reads what went wrong
      if "Connection closed" in str(exc):
        manager.discard(headers)
        return {"error": f"MCP {self.server_name} closed the connection during the call to `{self.name}` "
                         "(the server stopped). The call was not retried and may have run; the next call "
                         "starts the server again."}
      return {"error": f"MCP {self.server_name}: calling `{self.name}` failed: {type(exc).__name__}: {exc}"}
    return limit_result(dump_wire(result), self.max_result_chars)


async def provided_headers(provider: Optional[HeaderProvider], readonly_context) -> Optional[dict[str, str]]:
  """The header_provider's headers for this context (None without a provider or context)."""
  if provider is None or readonly_context is None:
    return None
  headers = provider(readonly_context)
  if inspect.isawaitable(headers):
    headers = await headers
  if headers is not None and not isinstance(headers, dict):
    raise TypeError(f"header_provider must return a dict of header names to values, not {type(headers).__name__}.")
  return headers or None


def _readonly(tool_context: "ToolContext"):
  from ...agents.readonly_context import ReadonlyContext

  return ReadonlyContext(tool_context._invocation_context)


def limit_result(result: dict[str, Any], max_chars: int) -> dict[str, Any]:
  """The tool result for the model: bookkeeping dropped, long text and data cut with a marker."""
  for key in _BOOKKEEPING:
    result.pop(key, None)
  budget = max_chars
  for block in result.get("content") or []:
    inner = block.get("resource") if block.get("type") == "resource" else block
    if not isinstance(inner, dict):
      continue
    for field in ("text", "data", "blob"):
      value = inner.get(field)
      if not isinstance(value, str):
        continue
      if len(value) <= budget:
        budget -= len(value)
        continue
      kept = max(budget, 0) if field == "text" else 0  # half an image is no image
      inner[field] = value[:kept] + (
          f"...[truncated: {len(value) - kept} of {len(value)} characters left out; raise "
          "max_result_chars on the toolset to pass more]")
      budget -= kept
  structured = result.get("structuredContent")
  if structured is not None:
    size = len(json.dumps(structured, default=str))
    if size > max_chars:
      result["structuredContent"] = {
          "truncated": f"structuredContent of {size} characters left out (max_result_chars={max_chars}); "
                       "its text form is in 'content'"}
  return result


# google-adk's deprecated spelling.
MCPTool = McpTool
