"""OpenAPIToolset: every operation of an OpenAPI 3 spec as a RestApiTool."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Optional, Union

from ...base_tool import BaseTool
from ...base_toolset import BaseToolset, ToolPredicate
from .openapi_spec_parser import OpenApiSpecParser, load_spec
from .rest_api_tool import DEFAULT_MAX_RESULT_CHARS, DEFAULT_TIMEOUT, HeaderProvider, HttpClients, RestApiTool

if TYPE_CHECKING:
  from ....agents.readonly_context import ReadonlyContext


class OpenAPIToolset(BaseToolset):
  """Tools for the operations of a REST API described by an OpenAPI 3 spec.

  ```python
  from adk_nb.tools.openapi_tool import OpenAPIToolset
  from adk_nb.tools.openapi_tool.auth.auth_helpers import token_to_scheme_credential

  scheme, credential = token_to_scheme_credential("apikey", "header", "X-API-Key", key)
  petstore = OpenAPIToolset(spec_str=yaml_text, spec_str_type="yaml",
                            auth_scheme=scheme, auth_credential=credential)
  agent = Agent(name="pets", model=..., tools=[petstore])
  ```

  The spec is read and checked when the toolset is built: a malformed spec raises
  `OpenApiSpecError` (a ValueError) naming the operation and the problem.

  Args:
    spec_dict: the spec as a dict; or
    spec_str, spec_str_type: the spec as JSON or YAML text.
    auth_scheme, auth_credential: applied to every operation (API key or bearer token).
    tool_filter, tool_name_prefix: as on every toolset.
    header_provider: `(readonly_context) -> dict` of extra headers per call.
    preserve_property_names: keep the spec's parameter names instead of snake_case.
    max_result_chars: response bodies past this many characters are cut with a marker.
    timeout: seconds per HTTP request.
  """

  def __init__(
      self,
      *,
      spec_dict: Optional[dict[str, Any]] = None,
      spec_str: Optional[str] = None,
      spec_str_type: Literal["json", "yaml"] = "json",
      auth_scheme: Any = None,
      auth_credential: Any = None,
      tool_filter: Optional[Union[ToolPredicate, list[str]]] = None,
      tool_name_prefix: Optional[str] = None,
      ssl_verify: Any = None,
      header_provider: Optional[HeaderProvider] = None,
      preserve_property_names: bool = False,
      max_result_chars: int = DEFAULT_MAX_RESULT_CHARS,
      timeout: float = DEFAULT_TIMEOUT,
  ) -> None:
    super().__init__(tool_filter=tool_filter, tool_name_prefix=tool_name_prefix)
    spec = load_spec(spec_dict, spec_str, spec_str_type)
    operations = OpenApiSpecParser(preserve_property_names).parse(spec)
    self._http = HttpClients(True if ssl_verify is None else ssl_verify, timeout)
    self._tools = [RestApiTool(operation=op, auth_scheme=auth_scheme, auth_credential=auth_credential,
                               header_provider=header_provider, max_result_chars=max_result_chars,
                               http_clients=self._http) for op in operations]

  async def get_tools(self, readonly_context: Optional["ReadonlyContext"] = None) -> list[BaseTool]:
    """The operations' tools that pass tool_filter."""
    return [t for t in self._tools if self._is_tool_selected(t, readonly_context)]

  async def close(self) -> None:
    """Closes the HTTP connections the tools keep open."""
    await self._http.aclose()

  def get_tool(self, tool_name: str) -> Optional[RestApiTool]:
    """The tool for one operation, by its tool name (None when there is none)."""
    return next((t for t in self._tools if t.name == tool_name), None)

  def __repr__(self) -> str:
    return f"OpenAPIToolset({len(self._tools)} operations)"
