"""The context callbacks receive: state writes recorded as a delta, artifacts, invocation info."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ..events.event_actions import EventActions
from ..sessions.state import State
from ._context_methods import ContextMethods
from .readonly_context import ReadonlyContext

if TYPE_CHECKING:
  from google.genai import types

  from .invocation_context import InvocationContext


class CallbackContext(ContextMethods, ReadonlyContext):
  """Context for agent and model callbacks. Writes to `state` land in `actions.state_delta`."""

  def __init__(
      self,
      invocation_context: "InvocationContext",
      *,
      event_actions: Optional[EventActions] = None,
  ) -> None:
    super().__init__(invocation_context)
    self._event_actions = event_actions or EventActions()
    self._state = State(value=invocation_context.session.state, delta=self._event_actions.state_delta)

  @property
  def state(self) -> State:  # type: ignore[override]
    """The session state; writes are recorded and committed with the next event."""
    return self._state

  @property
  def actions(self) -> EventActions:
    """The actions the next event will carry."""
    return self._event_actions

  def _artifacts(self):
    service = self._invocation_context.artifact_service
    if service is None:
      raise ValueError(
          "Artifact service is not initialized: pass artifact_service=InMemoryArtifactService() "
          "(or a FileArtifactService) to the Runner."
      )
    return service

  async def save_artifact(
      self, filename: str, artifact: "types.Part", custom_metadata: Optional[dict[str, Any]] = None
  ) -> int:
    """Saves a new version of an artifact and records it in `actions.artifact_delta`."""
    ctx = self._invocation_context
    version = await self._artifacts().save_artifact(
        app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id,
        filename=filename, artifact=artifact, custom_metadata=custom_metadata,
    )
    self._event_actions.artifact_delta[filename] = version
    return version

  async def load_artifact(self, filename: str, version: Optional[int] = None) -> Optional["types.Part"]:
    """Loads an artifact (the newest version unless `version` is given); None when absent."""
    ctx = self._invocation_context
    return await self._artifacts().load_artifact(
        app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id,
        filename=filename, version=version,
    )

  async def list_artifacts(self) -> list[str]:
    """Names of the artifacts visible to this session (its own and the user's)."""
    ctx = self._invocation_context
    return await self._artifacts().list_artifact_keys(
        app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id
    )

  def _credentials(self):
    service = self._invocation_context.credential_service
    if service is None:
      raise ValueError(
          "Credential service is not initialized: pass credential_service=InMemoryCredentialService() "
          "(adk_nb.auth.credential_service.in_memory_credential_service) to the Runner."
      )
    return service

  async def save_credential(self, auth_config: Any) -> None:
    """Stores `auth_config`'s exchanged credential in the run's credential service (per app and user)."""
    await self._credentials().save_credential(auth_config, self)

  async def load_credential(self, auth_config: Any) -> Optional[Any]:
    """The credential stored for `auth_config` (its `credential_key`), or None."""
    return await self._credentials().load_credential(auth_config, self)
