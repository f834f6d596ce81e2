"""Credentials kept in this process, per app and user (gone when it exits)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from .base_credential_service import BaseCredentialService

if TYPE_CHECKING:
  from ...agents.callback_context import CallbackContext
  from ..auth_credential import AuthCredential
  from ..auth_tool import AuthConfig


class InMemoryCredentialService(BaseCredentialService):
  """A dict of credentials per (app, user); tests and notebooks use it."""

  def __init__(self) -> None:
    self._store: dict[tuple[str, str], dict[Optional[str], Optional["AuthCredential"]]] = {}

  def _bucket(self, callback_context: "CallbackContext") -> dict:
    ctx = callback_context._invocation_context
    return self._store.setdefault((ctx.app_name, ctx.user_id), {})

  async def load_credential(self, auth_config: "AuthConfig",
                            callback_context: "CallbackContext") -> Optional["AuthCredential"]:
    return self._bucket(callback_context).get(auth_config.credential_key)

  async def save_credential(self, auth_config: "AuthConfig", callback_context: "CallbackContext") -> None:
    self._bucket(callback_context)[auth_config.credential_key] = auth_config.exchanged_auth_credential
