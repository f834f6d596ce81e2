"""Credentials kept in the session state, so they persist with the session (and go where it goes)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ..auth_credential import AuthCredential
from .base_credential_service import BaseCredentialService

if TYPE_CHECKING:
  from ...agents.callback_context import CallbackContext
  from ..auth_tool import AuthConfig


class SessionStateCredentialService(BaseCredentialService):
  """Stores each credential in `state[credential_key]` through the context, so it is committed as a delta."""

  async def load_credential(self, auth_config: "AuthConfig",
                            callback_context: "CallbackContext") -> Optional[AuthCredential]:
    value = callback_context.state.get(auth_config.credential_key)
    if value is None or isinstance(value, AuthCredential):
      return value
    return AuthCredential.model_validate(value)

  async def save_credential(self, auth_config: "AuthConfig", callback_context: "CallbackContext") -> None:
    credential = auth_config.exchanged_auth_credential
    callback_context.state[auth_config.credential_key] = (
        None if credential is None else credential.model_dump(mode="json", exclude_none=True))
