"""RestApiTool: one OpenAPI operation offered to the model; a call becomes one HTTP request."""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional, Union
from urllib.parse import quote

from google.genai import types

from ...base_tool import BaseTool
from ..auth.auth_helpers import auth_request_parts
from .openapi_spec_parser import ParsedOperation

if TYPE_CHECKING:
  from ...tool_context import ToolContext

HeaderProvider = Callable[[Any], Union[dict[str, str], Awaitable[dict[str, str]]]]
DEFAULT_MAX_RESULT_CHARS = 100_000
DEFAULT_TIMEOUT = 30.0


class HttpClients:
  """One httpx.AsyncClient per event loop (a client is bound to the loop it first ran on).

  Building a client costs milliseconds (its TLS context); tools of one toolset share these.
  """

  def __init__(self, verify: Any = True, timeout: float = DEFAULT_TIMEOUT) -> None:
    self._verify = verify
    self._timeout = timeout
    self._clients: dict[int, tuple[asyncio.AbstractEventLoop, Any]] = {}

  def get(self):
    import httpx

    loop = asyncio.get_running_loop()
    held = self._clients.get(id(loop))
    if held is None or held[0] is not loop or held[1].is_closed:
      for key, (other, _) in list(self._clients.items()):
        if other.is_closed():
          del self._clients[key]
      held = self._clients[id(loop)] = (loop, httpx.AsyncClient(verify=self._verify, timeout=self._timeout))
    return held[1]

  async def aclose(self) -> None:
    """Closes this loop's client; clients of other (finished) loops are dropped."""
    loop = asyncio.get_running_loop()
    clients, self._clients = self._clients, {}
    for other, client in clients.values():
      if other is loop:
        await client.aclose()


class RestApiTool(BaseTool):
  """Calls one operation of a REST API described by an OpenAPI spec.

  The model sees the operation's path, query, header and cookie parameters and the
  properties of its JSON body as arguments (snake_case names). A 2xx answer comes back as
  its JSON (or `{'text': ...}`); an HTTP error or an unreachable server comes back as
  `{'error': ...}` with the status and body, so the model can correct its arguments.

  Args:
    operation: the parsed operation (built by OpenAPIToolset).
    auth_scheme, auth_credential: see `openapi_tool.auth.auth_helpers.token_to_scheme_credential`.
    header_provider: `(readonly_context) -> dict` of extra headers per call.
    max_result_chars: longer bodies are cut with a marker.
    timeout: seconds per request.
    http_clients: the HTTP clients to share (the toolset's; a tool on its own keeps its own).
  """

  def __init__(self, *, operation: ParsedOperation, auth_scheme: Any = None, auth_credential: Any = None,
               header_provider: Optional[HeaderProvider] = None, ssl_verify: Any = None,
               max_result_chars: int = DEFAULT_MAX_RESULT_CHARS, timeout: float = DEFAULT_TIMEOUT,
               http_clients: Optional[HttpClients] = None) -> None:
    super().__init__(name=operation.name, description=operation.description)
    self.operation = operation
    """The operation this tool calls (method, URL template, parameters)."""
    self.auth_scheme = auth_scheme
    self.auth_credential = auth_credential
    self._header_provider = header_provider
    self.max_result_chars = max_result_chars
    self._clients = http_clients or HttpClients(True if ssl_verify is None else ssl_verify, timeout)
    self._declaration: Optional[types.FunctionDeclaration] = None

  def configure_auth_scheme(self, auth_scheme: Any) -> None:
    self.auth_scheme = auth_scheme

  def configure_auth_credential(self, auth_credential: Any = None) -> None:
    self.auth_credential = auth_credential

  def _get_declaration(self) -> types.FunctionDeclaration:
    if self._declaration is None:
      self._declaration = types.FunctionDeclaration(
          name=self.name, description=self.description, parameters_json_schema=self.operation.json_schema())
    return self._declaration

  def validate_args(self, args: dict[str, Any]) -> dict[str, Any]:
    """The declared schema's checks, plus: no unknown argument, no required one missing or null."""
    from ..._function_schema import ToolArgumentsError

    super().validate_args(args)
    try:
      self._check_names(args)
    except ValueError as exc:
      raise ToolArgumentsError(f"Invalid arguments for `{self.name}`: {exc}.") from None
    return args

  def _check_names(self, args: dict[str, Any]) -> None:
    op = self.operation
    missing = [p.py_name for p in op.parameters if p.required and args.get(p.py_name) is None]
    if op.body_whole is not None and op.body_whole.required and args.get("body") is None:
      missing.append("body")
    if missing:
      raise ValueError(f"missing required argument(s) {', '.join(missing)} for {op.label}")
    known = {p.py_name for p in op.parameters} | ({"body"} if op.body_whole else set())
    unknown = sorted(set(args) - known)
    if unknown:
      raise ValueError(f"unknown argument(s) {', '.join(unknown)}; {self.name} takes {', '.join(sorted(known)) or 'none'}")

  def build_request(self, args: dict[str, Any]) -> dict[str, Any]:
    """The httpx request arguments (method, url, params, headers, cookies, json) for these arguments."""
    op = self.operation
    self._check_names(args)
    path = op.path
    params: dict[str, Any] = {}
    headers: dict[str, str] = {}
    cookies: dict[str, str] = {}
    body: dict[str, Any] = {}
    for p in op.parameters:
      if p.py_name not in args or args[p.py_name] is None:
        continue
      value = args[p.py_name]
      if p.location == "path":
        path = path.replace("{" + p.original_name + "}", quote(str(value), safe=""))
      elif p.location == "query":
        params[p.original_name] = value
      elif p.location == "header":
        headers[p.original_name] = str(value)
      elif p.location == "cookie":
        cookies[p.original_name] = str(value)
      else:
        body[p.original_name] = value
    auth_headers, auth_params, auth_cookies = auth_request_parts(self.auth_scheme, self.auth_credential)
    request: dict[str, Any] = {
        "method": op.method, "url": op.base_url + path,
        "params": {**params, **auth_params}, "headers": {**headers, **auth_headers},
        "cookies": {**cookies, **auth_cookies},
    }
    if op.body_whole is not None and args.get("body") is not None:
      request["json"] = args["body"]
    elif body:
      request["json"] = body
    return request

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    import httpx

    try:
      request = self.build_request(args)
    except ValueError as exc:
      return {"error": f"`{self.name}` was not called: {exc}. Call it again with corrected arguments."}
    if self._header_provider is not None:
      from ....agents.readonly_context import ReadonlyContext

      extra = self._header_provider(ReadonlyContext(tool_context._invocation_context))
      if inspect.isawaitable(extra):
        extra = await extra
      request["headers"].update(extra or {})
    cookies = request.pop("cookies")
    if cookies:
      request["headers"]["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    try:
      response = await self._clients.get().request(**request)
    except httpx.HTTPError as exc:
      return {"error": f"`{self.name}` ({self.operation.label}) could not reach {self.operation.base_url}: "
                       f"{type(exc).__name__}: {exc}"}
    body = response.text
    if len(body) > self.max_result_chars:
      cut = (body[:self.max_result_chars] + f"...[truncated: {len(body) - self.max_result_chars} of {len(body)} "
             "characters left out; raise max_result_chars on the toolset to pass more]")
    else:
      cut = None
    if response.status_code >= 400:
      return {"error": f"`{self.name}` ({self.operation.label}) failed with HTTP {response.status_code}: "
                       f"{cut or body}. Check the arguments; retry with corrected ones if that can help."}
    if cut is not None:
      return {"text": cut}
    if not body:
      return {"status_code": response.status_code}
    try:
      return response.json()
    except (json.JSONDecodeError, ValueError):
      return {"text": body}

  def __repr__(self) -> str:
    return f"RestApiTool(name={self.name!r}, {self.operation.label})"
