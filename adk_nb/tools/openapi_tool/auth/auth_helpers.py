"""API-key and bearer-token auth for OpenAPI tools, with google-adk's helper signature.

`token_to_scheme_credential("apikey", "header", "X-API-Key", key)` and
`token_to_scheme_credential("oauth2Token", "header", "Authorization", token)` return an
(auth_scheme, auth_credential) pair for `OpenAPIToolset(auth_scheme=..., auth_credential=...)`.
The toolset also reads google-adk's own objects (fastapi's `APIKey` / `HTTPBearer` schemes and
`AuthCredential` with `api_key` or `http.credentials.token`), by their fields. OAuth2 flows,
OpenID Connect and service accounts are not implemented.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel


class ApiKeyScheme(BaseModel):
  """An API key sent in a header, query parameter or cookie."""

  type_: Literal["apiKey"] = "apiKey"
  in_: Literal["header", "query", "cookie"]
  """Where the key goes."""
  name: str
  """The header, query parameter or cookie name."""


class HttpBearerScheme(BaseModel):
  """A bearer token in the Authorization header."""

  type_: Literal["http"] = "http"
  scheme: Literal["bearer"] = "bearer"
  bearerFormat: Optional[str] = None


class TokenCredential(BaseModel):
  """The secret for a scheme: an API key or a bearer token."""

  api_key: Optional[str] = None
  token: Optional[str] = None


def token_to_scheme_credential(
    token_type: Literal["apikey", "oauth2Token"],
    location: Optional[Literal["header", "query", "cookie"]] = None,
    name: Optional[str] = None,
    credential_value: Optional[str] = None,
) -> tuple[Any, Optional[TokenCredential]]:
  """An (auth_scheme, auth_credential) pair for an API key or a bearer token."""
  if token_type == "apikey":
    if location not in ("header", "query", "cookie"):
      raise ValueError(f"An API key goes in 'header', 'query' or 'cookie', not {location!r}.")
    if not name:
      raise ValueError("Name the header, query parameter or cookie that carries the API key (name='X-API-Key').")
    credential = TokenCredential(api_key=credential_value) if credential_value else None
    return ApiKeyScheme(in_=location, name=name), credential
  if token_type == "oauth2Token":
    credential = TokenCredential(token=credential_value) if credential_value else None
    return HttpBearerScheme(bearerFormat="JWT"), credential
  raise ValueError(f"token_type must be 'apikey' or 'oauth2Token', not {token_type!r}.")


def _value(field: Any) -> Any:
  """An enum's value, or the thing itself (fastapi's models use enums, ours plain strings)."""
  return getattr(field, "value", field)


def auth_request_parts(scheme: Any, credential: Any) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
  """(headers, query parameters, cookies) that carry the credential for the scheme."""
  if scheme is None:
    return {}, {}, {}
  if isinstance(scheme, dict):
    scheme = _Obj(scheme)
  if credential is None:
    raise ValueError("auth_scheme is set but auth_credential is not; pass the key or token, e.g. "
                     "token_to_scheme_credential('apikey', 'header', 'X-API-Key', key).")
  kind = str(_value(getattr(scheme, "type_", None) or getattr(scheme, "type", None) or ""))
  if kind == "apiKey":
    key = getattr(credential, "api_key", None)
    if not key:
      raise ValueError("The API key scheme needs auth_credential with api_key set.")
    where, name = str(_value(getattr(scheme, "in_", None) or getattr(scheme, "in", None))), scheme.name
    if where == "header":
      return {name: key}, {}, {}
    if where == "query":
      return {}, {name: key}, {}
    if where == "cookie":
      return {}, {}, {name: key}
    raise ValueError(f"An API key goes in 'header', 'query' or 'cookie', not {where!r}.")
  if kind == "http" and str(getattr(scheme, "scheme", "")).lower() == "bearer":
    token = getattr(credential, "token", None) or getattr(
        getattr(getattr(credential, "http", None), "credentials", None), "token", None)
    if not token:
      raise ValueError("The bearer scheme needs auth_credential with a token.")
    return {"Authorization": f"Bearer {token}"}, {}, {}
  raise NotImplementedError(
      f"Auth scheme {kind or type(scheme).__name__!r} is not supported yet; API keys and bearer tokens are "
      "(token_to_scheme_credential), or set headers with header_provider.")


class _Obj:
  def __init__(self, data: dict[str, Any]) -> None:
    self.type_ = data.get("type")
    self.in_ = data.get("in")
    self.name = data.get("name")
    self.scheme = data.get("scheme")
