"""How a service expects to be authenticated (an OpenAPI security scheme).

google-adk types `AuthScheme` as fastapi's OpenAPI security-scheme models; adk_nb does not depend on
fastapi, so any pydantic model (or a dict) with the OpenAPI fields is accepted: fastapi's own
`APIKey`, `HTTPBearer`, `OAuth2`, `OpenIdConnect` objects work when fastapi is installed.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Optional

from pydantic import Field

from ._model import CredentialModel

AuthScheme = Any
"""An OpenAPI security scheme object (fastapi's models, another pydantic model, or a dict)."""


class AuthSchemeType(str, Enum):
  """The OpenAPI security-scheme kinds."""

  apiKey = "apiKey"
  http = "http"
  oauth2 = "oauth2"
  openIdConnect = "openIdConnect"


class OpenIdConnectWithConfig(CredentialModel):
  """An OpenID Connect scheme with its provider's endpoints spelt out (no discovery request needed)."""

  type_: AuthSchemeType = Field(default=AuthSchemeType.openIdConnect, alias="type")
  authorization_endpoint: str
  token_endpoint: str
  userinfo_endpoint: Optional[str] = None
  revocation_endpoint: Optional[str] = None
  token_endpoint_auth_methods_supported: Optional[list[str]] = None
  grant_types_supported: Optional[list[str]] = None
  scopes: Optional[list[str]] = None


__all__ = ["AuthScheme", "AuthSchemeType", "OpenIdConnectWithConfig"]
