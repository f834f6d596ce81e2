"""Credentials a tool authenticates with: an API key, HTTP auth, OAuth2 tokens or a service account.

Secrets (keys, passwords, tokens) are left out of `repr`, so a credential printed in a log or an
error message does not leak them.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

from pydantic import Field

from ._model import CredentialModel

_Secret = Annotated[Optional[str], Field(repr=False)]


class AuthCredentialTypes(str, Enum):
  """The kind of credential (values as in OpenAPI security schemes)."""

  API_KEY = "apiKey"
  HTTP = "http"
  OAUTH2 = "oauth2"
  OPEN_ID_CONNECT = "openIdConnect"
  SERVICE_ACCOUNT = "serviceAccount"


class HttpCredentials(CredentialModel):
  """A user name and password (basic auth) or a token (bearer)."""

  username: Optional[str] = None
  password: _Secret = None
  token: _Secret = None


class HttpAuth(CredentialModel):
  """HTTP authentication: the scheme name (`basic`, `bearer`, ...) and its credentials."""

  scheme: str
  """The scheme as in the Authorization header, lower case (`bearer`)."""
  credentials: HttpCredentials
  """What the scheme sends."""
  additional_headers: Annotated[Optional[dict[str, str]], Field(repr=False)] = None
  """Further headers the request carries."""


class OAuth2Auth(CredentialModel):
  """An OAuth2 client and, once exchanged, its tokens."""

  client_id: Optional[str] = None
  client_secret: _Secret = None
  auth_uri: Optional[str] = None
  """Where the user is sent to grant access."""
  nonce: Optional[str] = None
  state: Optional[str] = None
  redirect_uri: Optional[str] = None
  auth_response_uri: _Secret = None
  """The redirect the provider answered with (it carries the code)."""
  auth_code: _Secret = None
  access_token: _Secret = None
  refresh_token: _Secret = None
  id_token: _Secret = None
  expires_at: Optional[int] = None
  """When the access token expires (seconds since the epoch)."""
  expires_in: Optional[int] = None
  audience: Optional[str] = None
  prompt: Optional[str] = None
  code_verifier: _Secret = None
  code_challenge_method: Optional[str] = None
  token_endpoint_auth_method: Optional[str] = None
  """How the client authenticates at the token endpoint (`client_secret_basic`, ...)."""


class ServiceAccountCredential(CredentialModel):
  """The fields of a Google Cloud service-account key file."""

  type_: str = Field("", alias="type")
  project_id: str
  private_key_id: Annotated[str, Field(repr=False)]
  private_key: Annotated[str, Field(repr=False)]
  client_email: str
  client_id: str
  auth_uri: str
  token_uri: str
  auth_provider_x509_cert_url: str
  client_x509_cert_url: str
  universe_domain: str


class ServiceAccount(CredentialModel):
  """A service account: its key (or the environment's default credentials) and the scopes asked for."""

  service_account_credential: Optional[ServiceAccountCredential] = None
  scopes: Optional[list[str]] = None
  use_default_credential: Optional[bool] = False
  use_id_token: Optional[bool] = False
  audience: Optional[str] = None


class AuthCredential(CredentialModel):
  """One credential: `auth_type` says which of the fields below carries it."""

  auth_type: AuthCredentialTypes
  resource_ref: Optional[str] = None
  """What the credential is for, when the tool names it."""
  api_key: _Secret = None
  http: Optional[HttpAuth] = None
  service_account: Optional[ServiceAccount] = None
  oauth2: Optional[OAuth2Auth] = None


__all__ = ["AuthCredential", "AuthCredentialTypes", "HttpAuth", "HttpCredentials", "OAuth2Auth",
           "ServiceAccount", "ServiceAccountCredential"]
