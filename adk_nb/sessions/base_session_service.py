"""The contract every session store implements."""

from __future__ import annotations

import abc
import uuid
from typing import Any, Optional

from pydantic import BaseModel, Field, field_validator

from ..errors.already_exists_error import AlreadyExistsError
from ..errors.stale_session_error import StaleSessionError
from ..events.event import Event
from .json_form import convert_state_delta
from .session import Session
from ._turns import TurnClaim, busy_error
from .state import State


class GetSessionConfig(BaseModel):
  """Limits which events `get_session` loads."""

  num_recent_events: Optional[int] = None
  """Load only the newest N events."""
  after_timestamp: Optional[float] = None
  """Load only events at or after this timestamp."""

  @field_validator("num_recent_events")
  @classmethod
  def _non_negative(cls, value: Optional[int]) -> Optional[int]:
    if value is not None and value < 0:
      raise ValueError("num_recent_events must be >= 0 (0 loads no events).")
    return value


class ListSessionsResponse(BaseModel):
  """Sessions of an app (and user), without their events."""

  sessions: list[Session] = Field(default_factory=list)


class BaseSessionService(abc.ABC):
  """Stores sessions and commits events with their state deltas."""

  @abc.abstractmethod
  async def create_session(
      self,
      *,
      app_name: str,
      user_id: str,
      state: Optional[dict[str, Any]] = None,
      session_id: Optional[str] = None,
  ) -> Session:
    """Creates a session; raises AlreadyExistsError when `session_id` is taken."""

  @abc.abstractmethod
  async def get_session(
      self,
      *,
      app_name: str,
      user_id: str,
      session_id: str,
      config: Optional[GetSessionConfig] = None,
  ) -> Optional[Session]:
    """Returns the session, or None when it does not exist."""

  @abc.abstractmethod
  async def list_sessions(
      self, *, app_name: str, user_id: Optional[str] = None
  ) -> ListSessionsResponse:
    """Lists sessions (events left out) of an app, optionally of one user."""

  @abc.abstractmethod
  async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
    """Deletes a session and its events; app and user state stay."""

  async def append_event(self, session: Session, event: Event) -> Event:
    """Commits a non-partial event to `session`: applies its state delta and appends it.

    Partial (streaming) events are returned unchanged and never stored. `temp:` keys
    are applied to the live session object for the rest of the invocation but are not
    part of the event once committed (as in ADK). State values are brought to their
    JSON form first (`adk_nb.sessions.json_form`); a value without one raises
    ValueError and nothing is written.
    """
    if event.partial:
      return event
    self._to_json_form(event)
    self._apply_to_session(session, event)
    return event

  async def claim_turn(self, session: Session, invocation_id: str) -> TurnClaim:
    """Holds `session` for one turn of `invocation_id`, before the turn writes or runs anything.

    `Runner.run_async` calls this right after loading the session and releases the claim
    (`await claim.release()`) when the turn ends. Raises `SessionBusyError` (a
    `StaleSessionError`) when another turn holds the session, and writes nothing. The stores
    of adk_nb grant the claim atomically with the stale check of `session` (in memory, and in
    the database across processes); this default, for stores written elsewhere, holds the
    session against turns of this service in this process only.
    """
    turns = self.__dict__.setdefault("_turn_claims", {})
    key = (session.app_name, session.user_id, session.id)
    holder = turns.get(key)
    if holder is not None and holder.held:
      raise busy_error(session.id, holder.invocation_id, holder.since)
    claim = TurnClaim(self, key, invocation_id)
    turns[key] = claim
    return claim

  async def _release_turn(self, claim: TurnClaim) -> None:
    turns = self.__dict__.get("_turn_claims", {})
    if turns.get(claim.key) is claim:
      del turns[claim.key]

  # -- what every store says the same way ---------------------------------------

  _kept_in = "service"
  """How a store's messages name where sessions are kept ("does not exist in this service")."""

  @staticmethod
  def _new_session_id(session_id: Optional[str]) -> str:
    """The id a session is created under: the one given, without surrounding blanks, or a fresh one."""
    return session_id.strip() if session_id and session_id.strip() else str(uuid.uuid4())

  @staticmethod
  def _already_exists(app_name: str, user_id: str, session_id: str) -> AlreadyExistsError:
    return AlreadyExistsError(
        f"Session {session_id!r} already exists for app {app_name!r} and user {user_id!r}; "
        "pass another session_id, or omit it to get a fresh one."
    )

  def _no_such_session(self, session: Session) -> ValueError:
    return ValueError(
        f"Session {session.id!r} of app {session.app_name!r} does not exist in this "
        f"{self._kept_in}; create it with create_session(...) first."
    )

  @staticmethod
  def _stale(session: Session) -> StaleSessionError:
    return StaleSessionError(
        f"Session {session.id!r} was changed by another writer since this copy was loaded "
        "(nothing was written); reload it with get_session(...) and retry."
    )

  @staticmethod
  def _stored_twice(event: Event, session: Session) -> ValueError:
    return ValueError(
        f"Event {event.id!r} is already stored in session {session.id!r} (nothing was written); "
        "each step needs a new Event with its own id."
    )

  @staticmethod
  def _check_ids(**ids: Optional[str]) -> None:
    """Refuses ids no store can hold (text with unpaired surrogates), the same way on every store."""
    for what, value in ids.items():
      if value is None:
        continue
      try:
        value.encode("utf-8")
      except UnicodeEncodeError as exc:
        raise ValueError(
            f"{what.replace('_', ' ')} {value!r} is not valid Unicode text (an unpaired surrogate at "
            f"position {exc.start}), so no store can hold it; use text decoded with "
            "errors='replace' or a hash of it."
        ) from None

  @staticmethod
  def _to_json_form(event: Event) -> None:
    """Converts the event's state delta, in place, to the JSON form every store keeps."""
    delta = event.actions.state_delta
    if delta:
      delta.update(convert_state_delta(delta))

  def _apply_to_session(self, session: Session, event: Event) -> None:
    self._apply_state_to_session(session, event)
    session.events.append(event)
    session.last_update_time = max(event.timestamp, session.last_update_time)

  @staticmethod
  def _apply_state_to_session(session: Session, event: Event) -> None:
    delta = event.actions.state_delta
    if delta:
      session.state.update(delta)
      if any(k.startswith(State.TEMP_PREFIX) for k in delta):
        # As in ADK: temp: values stay readable for the rest of the invocation through
        # session.state, but the committed event (as yielded and as stored) carries none.
        event.actions.state_delta = {k: v for k, v in delta.items() if not k.startswith(State.TEMP_PREFIX)}

  @staticmethod
  def _storable(event: Event) -> Event:
    """The event as stored: without `temp:` keys in its state delta."""
    delta = event.actions.state_delta
    if not delta or not any(k.startswith(State.TEMP_PREFIX) for k in delta):
      return event
    kept = {k: v for k, v in delta.items() if not k.startswith(State.TEMP_PREFIX)}
    actions = event.actions.model_copy(update={"state_delta": kept})
    return event.model_copy(update={"actions": actions})

  @staticmethod
  def _filter_events(events: list[Event], config: Optional[GetSessionConfig]) -> list[Event]:
    if config is None:
      return list(events)
    selected = events
    if config.after_timestamp is not None:
      # A filter, not a bisection: events may carry timestamps out of order (as the database stores do).
      bound = config.after_timestamp
      selected = [e for e in selected if e.timestamp >= bound]
    if config.num_recent_events is not None:
      n = config.num_recent_events
      selected = selected[-n:] if n > 0 else []  # fewer than n: all of them
    return list(selected)

  async def close(self) -> None:
    """Releases connections; a no-op for in-memory stores."""
