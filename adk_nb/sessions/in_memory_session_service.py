"""Sessions kept in this process's memory: fast, gone when the process ends."""

from __future__ import annotations

import time
from typing import Any, Coroutine, Optional, TypeVar

from ..events.event import Event
from .base_session_service import BaseSessionService, GetSessionConfig, ListSessionsResponse
from ._turns import TurnClaim
from .json_form import convert_state_delta
from .session import Session
from .session_index import SessionIndex, commit
from .state import SharedWrite, merge_state, split_delta


_T = TypeVar("_T")


def _finish_now(coro: Coroutine[Any, Any, _T]) -> _T:
  """Runs a coroutine that never suspends (the in-memory store's) to its result, with or without a loop."""
  try:
    coro.send(None)
  except StopIteration as done:
    return done.value
  coro.close()
  raise RuntimeError("the in-memory session store suspended inside a sync call; use the async method")


class _Stored:
  """One stored session: its own state, its index (events and what readers folded from them), and
  the time of its last write for stale checks."""

  __slots__ = ("id", "app_name", "user_id", "state", "index", "event_ids", "last_update_time")

  def __init__(self, session_id: str, app_name: str, user_id: str, state: dict[str, Any]):
    self.id = session_id
    self.app_name = app_name
    self.user_id = user_id
    self.state = state
    self.index = SessionIndex()
    self.event_ids: set[str] = set()
    self.last_update_time = time.time()


class InMemorySessionService(BaseSessionService):
  """A session store in a dict. `app:` and `user:` state is shared across sessions.

  Unlike google-adk's, `get_session` does not deep-copy the history: each stored session has one
  `SessionIndex` (see `session_index`), and a loaded Session holds the events committed so far as
  a view of it, so loading costs no copy. The isolation is google-adk's: a loaded Session sees no
  appends made through another Session, and changing its events in place gives it its own copy,
  leaving the store's as they were. The Event objects are shared (treat them as immutable).

  `app:` and `user:` state are protected like the session itself: writing a key that
  another session wrote after this copy was loaded raises `StaleSessionError` naming the
  scope and key (see `SharedWrite`).
  """

  def __init__(self) -> None:
    self._sessions: dict[tuple[str, str, str], _Stored] = {}
    self._app_state: dict[str, dict[str, Any]] = {}
    self._user_state: dict[tuple[str, str], dict[str, Any]] = {}
    # Per shared row: (revision, {key: revision that last wrote it}).
    self._app_revision: dict[str, tuple[int, dict[str, int]]] = {}
    self._user_revision: dict[tuple[str, str], tuple[int, dict[str, int]]] = {}

  async def create_session(
      self,
      *,
      app_name: str,
      user_id: str,
      state: Optional[dict[str, Any]] = None,
      session_id: Optional[str] = None,
  ) -> Session:
    session_id = self._new_session_id(session_id)
    self._check_ids(app_name=app_name, user_id=user_id, session_id=session_id)
    key = (app_name, user_id, session_id)
    if key in self._sessions:
      raise self._already_exists(app_name, user_id, session_id)
    app_delta, user_delta, session_state = split_delta(convert_state_delta(state or {}))
    # Initial state is written blind: nothing was read, so nothing can be overwritten unseen.
    self._write_shared("app", app_name, app_delta)
    self._write_shared("user", (app_name, user_id), user_delta)
    stored = _Stored(session_id, app_name, user_id, session_state)
    self._sessions[key] = stored
    return self._view(stored, None)

  def _view(self, stored: _Stored, config: Optional[GetSessionConfig]) -> Session:
    state = merge_state(
        self._app_state.get(stored.app_name, {}),
        self._user_state.get((stored.app_name, stored.user_id), {}),
        stored.state,
    )
    return Session._loaded(
        id=stored.id,
        app_name=stored.app_name,
        user_id=stored.user_id,
        state=state,
        events=stored.index.loaded() if config is None else self._filter_events(stored.index.events, config),
        last_update_time=stored.last_update_time,
        app_revision=self._app_revision.get(stored.app_name, (0,))[0],
        user_revision=self._user_revision.get((stored.app_name, stored.user_id), (0,))[0],
    )

  def _rows(self, scope: str) -> tuple[dict[Any, dict[str, Any]], dict[Any, tuple[int, dict[str, int]]]]:
    if scope == "app":
      return self._app_state, self._app_revision
    return self._user_state, self._user_revision

  def _write_shared(self, scope: str, owner: Any, delta: dict[str, Any]) -> dict[str, Any]:
    """Applies a (checked) delta to one shared row; returns the row's state."""
    states, revisions = self._rows(scope)
    state = states.setdefault(owner, {})
    if delta:
      revision, key_revisions = revisions.get(owner, (0, {}))
      revision = SharedWrite.apply(state, key_revisions, revision, delta)
      revisions[owner] = (revision, key_revisions)
    return state

  async def get_session(
      self,
      *,
      app_name: str,
      user_id: str,
      session_id: str,
      config: Optional[GetSessionConfig] = None,
  ) -> Optional[Session]:
    self._check_ids(app_name=app_name, user_id=user_id, session_id=session_id)
    stored = self._sessions.get((app_name, user_id, session_id))
    return None if stored is None else self._view(stored, config)

  async def list_sessions(
      self, *, app_name: str, user_id: Optional[str] = None
  ) -> ListSessionsResponse:
    out = []
    for (app, user, _), stored in self._sessions.items():
      if app == app_name and (user_id is None or user == user_id):
        session = self._view(stored, GetSessionConfig(num_recent_events=0))
        out.append(session)
    return ListSessionsResponse(sessions=out)

  async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
    self._sessions.pop((app_name, user_id, session_id), None)

  async def claim_turn(self, session: Session, invocation_id: str) -> TurnClaim:
    """Holds the session for one turn (see BaseSessionService.claim_turn), checking first that
    `session` is not stale: of two racing turns the loser is refused here, having done nothing."""
    stored = self._sessions.get((session.app_name, session.user_id, session.id))
    if stored is None:
      raise self._no_such_session(session)
    if stored.last_update_time > session.last_update_time + 1e-9:
      raise self._stale(session)
    return await super().claim_turn(session, invocation_id)

  async def append_event(self, session: Session, event: Event) -> Event:
    if event.partial:
      return event
    stored = self._sessions.get((session.app_name, session.user_id, session.id))
    if stored is None:
      raise self._no_such_session(session)
    self._check_ids(event_id=event.id)
    if event.id in stored.event_ids:
      raise self._stored_twice(event, session)
    if stored.last_update_time > session.last_update_time + 1e-9:
      raise self._stale(session)
    self._to_json_form(event)
    app_delta, user_delta, session_delta = split_delta(event.actions.state_delta or {})
    user_key = (session.app_name, session.user_id)
    app_state = user_state = None
    if app_delta or user_delta:  # most events write no shared state: skip the (slow) private reads
      shared = (("app", session.app_name, session.app_name, app_delta, session._app_revision),
                ("user", user_key, session.user_id, user_delta, session._user_revision))
      # Check both scopes before writing either, so a refused write changes nothing.
      for scope, owner, name, delta, seen in shared:
        if delta:
          key_revisions = self._rows(scope)[1].get(owner, (0, {}))[1]
          SharedWrite.check(scope, name, session.id, delta, key_revisions, seen)
      app_state = self._write_shared("app", session.app_name, app_delta)
      user_state = self._write_shared("user", user_key, user_delta)
    if session_delta:
      stored.state.update(session_delta)
    self._apply_state_to_session(session, event)
    if not commit(session, event, stored.index):  # a Session loaded from the index: one append serves both
      stored.index.append(self._storable(event))
    stored.event_ids.add(event.id)
    # Strictly increasing, so a copy loaded before this append is detected as stale.
    stamp = max(event.timestamp, stored.last_update_time + 1e-6)
    stored.last_update_time = stamp
    session.last_update_time = stamp
    if app_delta:
      SharedWrite.refresh(session, "app", app_state, self._app_revision[session.app_name][0])
    if user_delta:
      SharedWrite.refresh(session, "user", user_state, self._user_revision[user_key][0])
    return event

  # google-adk's synchronous forms (deprecated there, kept for code that still calls them). They work
  # inside a running event loop too (a notebook cell): the in-memory store never awaits anything.

  def create_session_sync(self, *, app_name: str, user_id: str, state: Optional[dict[str, Any]] = None,
                          session_id: Optional[str] = None) -> Session:
    """`create_session` for synchronous code."""
    return _finish_now(self.create_session(app_name=app_name, user_id=user_id, state=state,
                                           session_id=session_id))

  def get_session_sync(self, *, app_name: str, user_id: str, session_id: str,
                       config: Optional[GetSessionConfig] = None) -> Optional[Session]:
    """`get_session` for synchronous code."""
    return _finish_now(self.get_session(app_name=app_name, user_id=user_id, session_id=session_id,
                                        config=config))

  def list_sessions_sync(self, *, app_name: str, user_id: Optional[str] = None) -> ListSessionsResponse:
    """`list_sessions` for synchronous code."""
    return _finish_now(self.list_sessions(app_name=app_name, user_id=user_id))

  def delete_session_sync(self, *, app_name: str, user_id: str, session_id: str) -> None:
    """`delete_session` for synchronous code."""
    return _finish_now(self.delete_session(app_name=app_name, user_id=user_id, session_id=session_id))
