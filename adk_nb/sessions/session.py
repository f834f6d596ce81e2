"""A Session: one conversation's events and state."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, alias_generators, field_serializer

from ..events.event import Event


class Session(BaseModel):
  """One conversation between a user and an app: its events and merged state."""

  model_config = ConfigDict(
      extra="forbid",
      arbitrary_types_allowed=True,
      alias_generator=alias_generators.to_camel,
      populate_by_name=True,
  )

  id: str
  """The session id, unique per app and user."""
  app_name: str
  """The app the session belongs to."""
  user_id: str
  """The user the session belongs to."""
  state: dict[str, Any] = Field(default_factory=dict)
  """Merged state: session keys, plus `app:` and `user:` keys shared wider."""
  events: list[Event] = Field(default_factory=list)
  """Committed events, oldest first. A Session a store loaded holds the first events of the store's
  index for it (`sessions.session_index.LoadedEvents`, a list in all but type: changing it in place
  gives the Session its own copy); `list(session.events)` is a plain list."""
  last_update_time: float = 0.0
  """When the last event was committed; used to detect stale writers."""

  # Revisions of the app and user state rows this copy holds. A store refuses a write
  # of an `app:` / `user:` key that another session wrote after that revision, because
  # this copy may have computed the new value from the old one (see state.py).
  _app_revision: int = PrivateAttr(default=0)
  _user_revision: int = PrivateAttr(default=0)

  @field_serializer("events", mode="wrap")
  def _events_as_list(self, events: Any, serialize: Any) -> Any:
    # A loaded Session's events are serialized as the plain list they stand for.
    return serialize(events if type(events) is list else list(events))
