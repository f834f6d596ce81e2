"""The interface a credential store implements; callbacks and tools reach it through their context."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
  from ...agents.callback_context import CallbackContext
  from ..auth_credential import AuthCredential
  from ..auth_tool import AuthConfig


class BaseCredentialService(abc.ABC):
  """Saves and loads the exchanged credential of an `AuthConfig` for the context's app and user."""

  @abc.abstractmethod
  async def load_credential(self, auth_config: "AuthConfig",
                            callback_context: "CallbackContext") -> Optional["AuthCredential"]:
    """The credential stored under `auth_config.credential_key`, or None."""

  @abc.abstractmethod
  async def save_credential(self, auth_config: "AuthConfig", callback_context: "CallbackContext") -> None:
    """Stores `auth_config.exchanged_auth_credential` under `auth_config.credential_key`."""
