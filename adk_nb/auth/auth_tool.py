"""`AuthConfig`: what a tool asks a client for when it needs credentials, and where the answer goes."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Optional

from ._model import CredentialModel
from .auth_credential import AuthCredential
from .auth_schemes import AuthScheme


def _digest(value: Any) -> str:
  if hasattr(value, "model_dump"):
    value = value.model_dump(mode="json", exclude_none=True)
  return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


class AuthConfig(CredentialModel):
  """The scheme a tool needs, the credential it starts from and the one the client completes."""

  auth_scheme: AuthScheme
  """How the service authenticates (an OpenAPI security scheme)."""
  raw_auth_credential: Optional[AuthCredential] = None
  """What the tool starts from (for OAuth2: the client id and secret)."""
  exchanged_auth_credential: Optional[AuthCredential] = None
  """The usable credential (for OAuth2: after the user granted access and the code was exchanged)."""
  credential_key: Optional[str] = None
  """The key a credential service stores it under; derived from the scheme and the raw credential
  (without tokens) when not given, so the same tool finds its credential again."""

  def model_post_init(self, context: Any) -> None:
    if not self.credential_key:
      self.credential_key = self._derived_key()

  def _derived_key(self) -> str:
    scheme = self.auth_scheme
    kind = getattr(scheme, "type_", None) or (scheme.get("type") if isinstance(scheme, dict) else None)
    kind = getattr(kind, "value", kind)
    raw = self.raw_auth_credential
    if raw is not None and raw.oauth2 is not None:
      # The client identity names the credential; the tokens of one grant do not.
      raw = raw.model_copy(update={"oauth2": raw.oauth2.model_copy(update={
          k: None for k in ("auth_uri", "state", "auth_response_uri", "auth_code", "access_token",
                            "refresh_token", "expires_at", "expires_in", "redirect_uri")})})
    credential = f"{raw.auth_type.value}_{_digest(raw)}" if raw is not None else ""
    return f"adk_{kind}_{_digest(scheme)}_{credential}"

  def get_credential_key(self) -> str:
    """The storage key (google-adk keeps this deprecated spelling; read `credential_key`)."""
    return self.credential_key or self._derived_key()


class AuthToolArguments(CredentialModel):
  """The arguments of the `adk_request_credential` call a client answers."""

  function_call_id: str
  """The id of the tool call that needs the credential."""
  auth_config: AuthConfig


__all__ = ["AuthConfig", "AuthToolArguments"]
