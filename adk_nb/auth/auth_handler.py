"""AuthHandler: reads and requests a tool's credential in session state (google-adk's module path).

The credential a client sends back for an `adk_request_credential` call is kept in state under
`temp:<credential_key>` (or `<credential_key>`). adk_nb does not exchange OAuth2 codes for tokens:
what the client sent is what the tool gets; a credential that still needs the exchange is
returned as it is (google-adk exchanges it with authlib).
"""

from __future__ import annotations

from typing import Any, Optional

from .auth_credential import AuthCredential
from .auth_tool import AuthConfig

__all__ = ["AuthHandler"]


def _without_secrets(credential: Optional[AuthCredential]) -> Optional[AuthCredential]:
  """A copy holding none of the secrets the agent configured (they never go to the client)."""
  if credential is None:
    return None
  copy = credential.model_copy(deep=True)
  copy.api_key = None
  if copy.oauth2 is not None:
    copy.oauth2.client_secret = None
  if copy.http is not None:
    copy.http.credentials.password = None
    copy.http.credentials.token = None
    copy.http.additional_headers = None
  return copy


def _without_client_secret(credential: Optional[AuthCredential]) -> Optional[AuthCredential]:
  """A copy without the OAuth2 client secret (the agent's, not the user's)."""
  if credential is None or credential.oauth2 is None or credential.oauth2.client_secret is None:
    return credential
  copy = credential.model_copy(deep=True)
  copy.oauth2.client_secret = None
  return copy


class AuthHandler:
  """The credential flow of one `AuthConfig`: the request sent to the client, the answer read back."""

  def __init__(self, auth_config: AuthConfig):
    self.auth_config = auth_config

  def _stored(self, state: Any) -> Optional[tuple[str, AuthCredential]]:
    key = self.auth_config.credential_key
    if not key:
      return None
    for name in ("temp:" + key, key):
      value = state.get(name, None)
      if isinstance(value, AuthCredential):
        return name, value
      if isinstance(value, dict):
        return name, AuthCredential.model_validate(value)
    return None

  def has_auth_response(self, state: Any) -> bool:
    """True when the client's answer is in `state`."""
    return self._stored(state) is not None

  def get_auth_response(self, state: Any) -> Optional[AuthCredential]:
    """The credential the client answered with (kept in `state`), or None before it answered."""
    stored = self._stored(state)
    return None if stored is None else stored[1]

  async def parse_and_store_auth_response(self, state: Any) -> None:
    """Keeps the answered credential (`auth_config.exchanged_auth_credential`) in `temp:<credential_key>`.

    The credential is the user's (an API key, a token): it is kept whole, except an OAuth2 client
    secret, which is the agent's and never goes into state (as google-adk)."""
    key = self.auth_config.credential_key
    if not key:
      raise ValueError("credential_key is empty: give the AuthConfig a credential_key (or an auth_scheme to derive it).")
    state["temp:" + key] = _without_client_secret(self.auth_config.exchanged_auth_credential)

  def generate_auth_request(self) -> AuthConfig:
    """The AuthConfig sent to the client in `adk_request_credential`: no configured secret in it."""
    request = self.auth_config.model_copy(deep=True)
    request.raw_auth_credential = _without_secrets(request.raw_auth_credential)
    request.exchanged_auth_credential = _without_secrets(request.exchanged_auth_credential)
    return request
