"""A Session: one conversation's events and state."""

from __future__ import annotations

from typing import Any, Sequence

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

  @classmethod
  def _loaded(cls, *, id: str, app_name: str, user_id: str, state: dict[str, Any], events: Sequence[Event],
              last_update_time: float, app_revision: int = 0, user_revision: int = 0) -> "Session":
    """A Session as a store hands it out, holding the revisions of the app and user state it read.

    Validation is skipped on purpose: every value comes from the store itself (validated when it
    was written, or decoded from a row), and `events` may be the store's `LoadedEvents` view, which
    validation would copy into a list, losing the sharing that makes a load cost no copy.
    """
    session = cls.model_construct(id=id, app_name=app_name, user_id=user_id, state=state, events=events,
                                  last_update_time=last_update_time)
    session._app_revision, session._user_revision = app_revision, user_revision
    return session

  @field_serializer("events", mode="wrap")
  def _events_as_list(self, events: Any, serialize: Any) -> Any:
    # A loaded Session's events are serialized as the plain list they stand for.
    return serialize(events if type(events) is list else list(events))
