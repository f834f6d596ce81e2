"""AuthenticatedFunctionTool: a function tool that gets its credential before it runs (google-adk's path).

The function may take a `credential` parameter (hidden from the model): the `AuthCredential` ready
for use. Where it comes from, in order:

1. `auth_config.exchanged_auth_credential`, when it was given one;
2. the client's answer to an earlier `adk_request_credential` call (session state);
3. the run's credential service (`tool_context.load_credential`);
4. `auth_config.raw_auth_credential` when it is usable as it is (an API key, an HTTP credential, an
   OAuth2 access token), or, for an OAuth2 scheme with a client-credentials flow, the token the
   scheme's `tokenUrl` grants for the client id and secret (saved to the credential service);
5. otherwise the function does not run: as in google-adk, the tool asks the client for the credential
   (`tool_context.request_credential`, an `adk_request_credential` call; the invocation pauses) and
   answers `response_for_auth_required` (default: `PENDING_ANSWER`, adk_nb's wording). When the client
   answers, the call runs again and finds the credential (2.); see `adk_nb.flows._credentials`.

The scheme may be fastapi's OpenAPI models (`fastapi.openapi.models.OAuth2`, `APIKey`, ...), as
google-adk's samples build it, another object with the same fields, or a dict. adk_nb never
imports fastapi itself. adk_nb does not run the OAuth2 authorization-code exchange (README
"Compatibility"): a user's code is used as the client sent it.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import logging
from typing import Any, Callable, Optional, Union

from ..auth.auth_credential import AuthCredential, AuthCredentialTypes
from ..auth.auth_tool import AuthConfig
from ._function_schema import FunctionSignature
from .function_tool import FunctionTool
from .tool_context import ToolContext

logger = logging.getLogger(__name__)

PENDING_ANSWER = "Waiting for the user to authorize access."
"""The answer of a call whose credential the user must grant first (`response_for_auth_required` replaces it).
The model does not read it: the turn pauses on the `adk_request_credential` call, and the call runs again."""

_CREDENTIAL: contextvars.ContextVar[Optional[AuthCredential]] = contextvars.ContextVar("adk_nb_tool_credential",
                                                                                       default=None)


def _field(obj: Any, *names: str) -> Any:
  """obj.name1.name2... for models or dicts (None when a step is missing)."""
  for name in names:
    if obj is None:
      return None
    obj = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
  return obj


def _with_credential(func: Callable[..., Any]) -> Callable[..., Any]:
  """`func` without its `credential` parameter (the model must not see it); calls pass the current one."""
  signature = inspect.signature(func)
  takes_credential = "credential" in signature.parameters
  visible = signature.replace(parameters=[p for p in signature.parameters.values() if p.name != "credential"])

  def call(args: tuple, kwargs: dict) -> Any:
    if takes_credential:
      kwargs = {**kwargs, "credential": _CREDENTIAL.get()}
    return func(*args, **kwargs)

  if inspect.iscoroutinefunction(func):
    @functools.wraps(func)
    async def shim(*args, **kwargs):
      return await call(args, kwargs)
  else:
    @functools.wraps(func)
    def shim(*args, **kwargs):
      return call(args, kwargs)
  shim.__signature__ = visible  # type: ignore[attr-defined]
  return shim


class AuthenticatedFunctionTool(FunctionTool):
  """A FunctionTool that obtains its credential first (see the module docstring)."""

  def __init__(self, *, func: Callable[..., Any], auth_config: Optional[AuthConfig] = None,
               response_for_auth_required: Optional[Union[dict[str, Any], str]] = None):
    super().__init__(_with_credential(func))
    self._signature = FunctionSignature(self.func, self.name)
    self._auth_config = auth_config if auth_config is not None and auth_config.auth_scheme is not None else None
    if self._auth_config is None:
      logger.warning("AuthenticatedFunctionTool %s has no auth_config (or no auth_scheme): it runs without a "
                     "credential; use FunctionTool when none is needed.", self.name)
    self._response_for_auth_required = response_for_auth_required

  async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
    credential = None
    if self._auth_config is not None:
      credential = await self._credential(tool_context)
      if credential is None:
        tool_context.request_credential(self._auth_config)
        return self._response_for_auth_required or PENDING_ANSWER
    token = _CREDENTIAL.set(credential)
    try:
      return await super().run_async(args=args, tool_context=tool_context)
    finally:
      _CREDENTIAL.reset(token)

  async def _credential(self, tool_context: ToolContext) -> Optional[AuthCredential]:
    config = self._auth_config
    if _ready(config.exchanged_auth_credential):
      return config.exchanged_auth_credential
    answered = tool_context.get_auth_response(config)
    if answered is not None:
      return answered
    has_service = tool_context._invocation_context.credential_service is not None
    stored = await tool_context.load_credential(config) if has_service else None
    if stored is not None:
      return stored
    raw = config.raw_auth_credential
    if _ready(raw):
      return raw
    token_url = _field(config.auth_scheme, "flows", "clientCredentials", "tokenUrl")
    if raw is not None and raw.oauth2 is not None and token_url and raw.oauth2.client_id:
      granted = await _client_credentials_token(token_url, raw, config.auth_scheme)
      if has_service:  # kept for the next call (per app and user), as google-adk's credential manager does
        await tool_context.save_credential(config.model_copy(update={"exchanged_auth_credential": granted}))
      return granted
    return None


def _ready(credential: Optional[AuthCredential]) -> bool:
  """A credential a tool can use as it is (no user consent, no exchange left)."""
  if credential is None:
    return False
  kind = credential.auth_type
  if kind == AuthCredentialTypes.API_KEY:
    return bool(credential.api_key)
  if kind == AuthCredentialTypes.HTTP:
    return credential.http is not None
  if kind in (AuthCredentialTypes.OAUTH2, AuthCredentialTypes.OPEN_ID_CONNECT):
    return credential.oauth2 is not None and bool(credential.oauth2.access_token)
  return kind == AuthCredentialTypes.SERVICE_ACCOUNT and credential.service_account is not None


async def _client_credentials_token(token_url: str, raw: AuthCredential, scheme: Any) -> AuthCredential:
  """The OAuth2 client-credentials grant: the scheme's token URL asked for a token with the client's id/secret."""
  import httpx

  scopes = _field(scheme, "flows", "clientCredentials", "scopes") or {}
  data = {"grant_type": "client_credentials", "client_id": raw.oauth2.client_id,
          "client_secret": raw.oauth2.client_secret or ""}
  if scopes:
    data["scope"] = " ".join(scopes)
  async with httpx.AsyncClient(timeout=30) as client:
    response = await client.post(token_url, data=data, headers={"Accept": "application/json"})
  if response.status_code >= 400:
    raise RuntimeError(f"The token endpoint {token_url} refused the client-credentials grant (HTTP "
                       f"{response.status_code}: {response.text[:200]}); check client_id / client_secret.")
  body = response.json()
  oauth2 = raw.oauth2.model_copy(update={"access_token": body.get("access_token"),
                                         "refresh_token": body.get("refresh_token"),
                                         "expires_in": body.get("expires_in")})
  return raw.model_copy(update={"oauth2": oauth2})


__all__ = ["AuthenticatedFunctionTool"]
