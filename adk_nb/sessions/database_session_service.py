"""Sessions kept in a database (SQLite file or PostgreSQL server): they survive restarts.

Tables (created on first use):

- `sessions`: one row per session, its own state as JSON and `update_time`, the
  revision marker that optimistic concurrency compares against;
- `events`: one JSON document per event, ordered by an integer `seq`;
- `app_states`, `user_states`: state shared by every session of an app / of a user,
  each row with a `revision` counted up by every write to it and `key_revisions`, the
  revision that last wrote each key (see `state.SharedWrite`);
- `session_turns`: the turn holding each session, if any (see `claim_turn`); added to a
  version-2 database on first use, with no migration;
- `adk_nb_schema`: the schema version. A database made by an older release is
  migrated in place on first use (version 1 -> 2 adds the two revision columns); a
  newer one is refused.

The table layout is adk_nb's own, not google-adk's: point the service at a new
database rather than one written by google-adk.

This module holds the store operations, each written once as a sans-IO transaction (`_sql.Steps`),
and the three drivers that run them. Beside it: `_sql` (tables and statements), `_schema` (tables
created, migrated or checked read-only on first use), `_storage_errors` (driver failures turned into
messages that name the fix) and `_history_cache` (decoded histories, so a reload decodes only what
is new).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
import time
from typing import Any, AsyncIterator, Optional

import pydantic_core
from sqlalchemy import event as sa_event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from ..gc_policy import collection_paused
from ..events.event import Event
from . import _schema
from ._event_decoder import decode
from ._history_cache import History, HistoryCache
from ._sql import (
    DEFAULT_BUSY_TIMEOUT,
    MAX_KEY_LENGTH,
    SCHEMA_VERSION,
    SQL,
    SqliteWriter,
    Steps,
    is_integrity_error,
    run_steps_aiosqlite,
    run_steps_sqlalchemy,
)
from ._storage_errors import SessionStorageError, WriteRefused, translate
from .base_session_service import BaseSessionService, GetSessionConfig, ListSessionsResponse
from ._turns import DEFAULT_LEASE, TurnClaim, busy_error, holder_alive
from .json_form import convert_state_delta
from .session import Session
from .session_index import commit
from .state import SharedWrite, merge_state, split_delta

logger = logging.getLogger("adk_nb.sessions")

__all__ = ["DatabaseSessionService", "SCHEMA_VERSION", "SessionStorageError", "normalize_db_url"]


def normalize_db_url(db_url: str) -> str:
  """Maps the URL forms users type to the async driver adk_nb uses.

  `sqlite:///a.db` and `sqlite+aiosqlite:///a.db` open a file (`sqlite://` alone is an
  in-memory database); `postgresql://`, `postgres://` and `postgresql+asyncpg://`
  reach a PostgreSQL server through asyncpg.
  """
  if not isinstance(db_url, str) or "://" not in db_url:
    raise ValueError(
        f"Not a database URL: {db_url!r}; use 'sqlite:///path/to/sessions.db' or "
        "'postgresql://user:password@host:5432/dbname'."
    )
  scheme, rest = db_url.split("://", 1)
  scheme = scheme.lower()
  if scheme in ("sqlite", "sqlite+aiosqlite"):
    return "sqlite+aiosqlite://" + rest
  if scheme in ("postgresql", "postgres", "postgresql+asyncpg"):
    return "postgresql+asyncpg://" + rest
  if scheme.startswith(("sqlite+", "postgresql+", "postgres+")):
    fixed = "sqlite:///path.db" if scheme.startswith("sqlite") else "postgresql://..."
    raise ValueError(
        f"Database driver in {scheme!r} is not supported; write '{fixed}' and adk_nb picks "
        "its async driver (aiosqlite or asyncpg) itself."
    )
  raise ValueError(
      f"Unsupported database URL scheme {scheme!r}; DatabaseSessionService supports "
      "'sqlite:///path.db' and 'postgresql://user:password@host/dbname'."
  )


def _redact(url: str) -> str:
  try:
    return make_url(url).render_as_string(hide_password=True)
  except Exception:  # pragma: no cover - only used in messages
    return url.rsplit("@", 1)[-1]


def _dumps(value: Any, what: str) -> str:
  try:
    return pydantic_core.to_json(value).decode()
  except pydantic_core.PydanticSerializationError as exc:
    raise ValueError(
        f"{what} is not JSON-serializable ({exc}); keep plain JSON values (str, numbers, "
        "bools, None, lists, dicts) or pydantic models in state. Nothing was written."
    ) from None


def _check_keys(**keys: str) -> None:
  """Refuses ids the key columns cannot hold, before anything is written.

  PostgreSQL would reject them mid-transaction and SQLite would store them, so both
  backends refuse them the same way here.
  """
  for what, value in keys.items():
    if len(value) > MAX_KEY_LENGTH:
      raise ValueError(
          f"{what} is {len(value)} characters; the database "
          f"stores at most {MAX_KEY_LENGTH}. Use a shorter one (e.g. a hash of it). Nothing was written."
      )


_DRIVER_EXTRAS = {"asyncpg": " (PostgreSQL needs the asyncpg driver: pip install 'adk_nb[postgres]')"}
"""Missing database drivers and the extra that installs each."""


class DatabaseSessionService(BaseSessionService):
  """A session store in SQLite or PostgreSQL: InMemorySessionService's behaviour, durable.

  Args:
    db_url: `sqlite:///sessions.db` (the embedded default), `sqlite+aiosqlite:///...`,
      `postgresql://user:pw@host/db` or `postgresql+asyncpg://...`.
    busy_timeout: seconds an SQLite writer waits for another process's write lock.
    read_only: open an SQLite file read-only: loads work, every write fails saying so.
      None (the default) decides by the file: read-only when the file or its folder is
      not writable (e.g. a read-only mount).
    max_cached_events: decoded events kept in memory (across sessions, least recently
      loaded dropped first) so that reloading a session, as the Runner does every turn,
      decodes only the events added since; 0 turns this off.
    **engine_kwargs: passed to SQLAlchemy's `create_async_engine`.

  Every `append_event` is one transaction: the event and its state delta are committed
  together or not at all. A writer holding a copy of the session that another writer
  has since appended to gets `StaleSessionError` and nothing is written; the check is a
  compare-and-set on the session's `update_time` inside the writing transaction, so it
  needs no re-read of the history (google-adk re-reads and compares timestamps some
  databases round). `app:` and `user:` state get the same protection, checked in the
  same transaction: writing a shared key that another session wrote after this copy
  was loaded raises `StaleSessionError` naming the scope and key (google-adk does not
  protect these scopes). A turn claims its session first (`claim_turn`, one transaction per
  turn), so a turn racing another on one session, from any process, is refused before it
  writes or runs anything. SQLite runs in WAL mode with `synchronous=NORMAL`: a killed
  process loses nothing that was committed; writers of one process queue on a lock,
  writers of other processes wait up to `busy_timeout`.
  """

  _kept_in = "database"

  def __init__(self, db_url: str, *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
               max_cached_events: int = 100_000, read_only: Optional[bool] = None,
               **engine_kwargs: Any) -> None:
    self.db_url = normalize_db_url(db_url)
    url = make_url(self.db_url)
    self._sqlite = url.get_backend_name() == "sqlite"
    self._read_only = False
    self._corrupt: Optional[str] = None  # set once the SQLite file is found damaged
    if self._sqlite and url.database not in (None, "", ":memory:") and not url.database.startswith("file:"):
      self._read_only = _schema.unwritable(url.database) if read_only is None else bool(read_only)
      if self._read_only:
        url = _schema.read_only_url(url)
    elif read_only:
      raise ValueError("read_only=True applies to an SQLite file; give 'sqlite:///path.db'.")
    self._busy_timeout = float(busy_timeout)
    kwargs = dict(engine_kwargs)
    if self._sqlite:
      # adk_nb issues BEGIN / BEGIN IMMEDIATE itself, so the driver must not.
      kwargs.setdefault("isolation_level", "AUTOCOMMIT")
      connect_args = dict(kwargs.pop("connect_args", {}))
      connect_args.setdefault("timeout", self._busy_timeout)
      kwargs["connect_args"] = connect_args
      if url.database in (None, "", ":memory:"):
        kwargs.setdefault("poolclass", StaticPool)
    else:
      kwargs.setdefault("pool_pre_ping", True)
    try:
      self.db_engine: AsyncEngine = create_async_engine(url, **kwargs)
    except (sa_exc.ArgumentError, ImportError) as exc:
      hint = _DRIVER_EXTRAS.get(getattr(exc, "name", None) or "", "")
      raise ValueError(f"Cannot use database URL {_redact(self.db_url)!r}: {exc}{hint}") from exc
    if self._sqlite:
      sa_event.listen(self.db_engine.sync_engine, "connect", self._on_sqlite_connect)
    self._lock_clause = "" if self._sqlite else " FOR UPDATE"
    self._ready = False
    self._ready_lock: Optional[asyncio.Lock] = None
    self._file_writer = self._make_file_writer()
    self._histories = HistoryCache(max_cached_events)

  def _make_file_writer(self) -> Optional[SqliteWriter]:
    """A writer thread for an SQLite file (None for PostgreSQL, in-memory SQLite and read-only files)."""
    if not self._sqlite or self._read_only:
      return None
    url = self.db_engine.url
    args, kwargs = self.db_engine.dialect.create_connect_args(url)
    database = args[0] if args else kwargs.pop("database", ":memory:")
    if database == ":memory:" or "mode=memory" in database:
      return None
    kwargs.pop("check_same_thread", None)
    kwargs.setdefault("timeout", self._busy_timeout)
    return SqliteWriter(database, kwargs, self._sqlite_pragmas())

  def _on_sqlite_connect(self, dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
      for pragma in self._sqlite_pragmas():
        try:
          cursor.execute(pragma)
        except Exception:
          # A read-only file cannot switch journal mode; its writes fail later with a clear error.
          pass
    finally:
      cursor.close()

  # -- errors ----------------------------------------------------------------

  def _where(self) -> str:
    if self._sqlite:
      return f"SQLite file {make_url(self.db_url).database or ':memory:'!r}"
    return f"database {_redact(self.db_url)!r}"

  def _storage_error(self, exc: BaseException, action: str) -> SessionStorageError:
    """The error that explains `exc` (see `_storage_errors.RULES`); notes a damaged file or missing tables."""
    error, mark, text = translate(exc, action, where=self._where(), sqlite=self._sqlite,
                                  read_only=self._read_only, busy_timeout=self._busy_timeout,
                                  reason=self._read_only_reason)
    if mark == "unprepared":
      self._ready = False
    elif mark == "corrupt":
      self._corrupt = text[:200]
    return error

  def _read_only_reason(self) -> str:
    path = make_url(self.db_url).database or ""
    return ("the file or its folder is not writable" if _schema.unwritable(path)
            else "it was opened with read_only=True")

  @contextlib.asynccontextmanager
  async def _errors(self, action: str) -> AsyncIterator[None]:
    try:
      yield
    except (sa_exc.DBAPIError, sa_exc.NoSuchTableError, sqlite3.Error, OSError,
            asyncio.TimeoutError, WriteRefused) as exc:
      if is_integrity_error(exc):
        raise
      raise self._storage_error(exc, action) from exc

  # -- schema ----------------------------------------------------------------

  async def prepare_tables(self) -> None:
    """Creates missing tables and checks the schema version; runs once, on first use."""
    if self._ready:
      return
    if self._ready_lock is None:
      self._ready_lock = asyncio.Lock()
    async with self._ready_lock:
      if self._ready:
        return
      async with self._errors("prepare the session tables"):
        await _schema.prepare(self.db_engine, sqlite=self._sqlite, read_only=self._read_only,
                              where=self._where(), reason=self._read_only_reason)
      self._ready = True

  # -- transactions ----------------------------------------------------------

  def _sqlite_pragmas(self) -> list[str]:
    return [f"PRAGMA busy_timeout={int(self._busy_timeout * 1000)}",
            "PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL"]

  async def _write(self, steps: Steps[Any]) -> Any:
    """Runs a write transaction's steps: committed if they finish, rolled back if anything raises."""
    if self._read_only or self._corrupt:
      steps.close()
      if self._read_only:
        raise WriteRefused(
            f"the {self._where()} is open read-only (nothing was written); "
            f"{self._read_only_reason()}. Loads work; to write, use a writable copy.")
      raise WriteRefused(
          f"the {self._where()} was found damaged earlier ({self._corrupt}); nothing more is "
          "written to it, so the damage does not spread (nothing was written). Restore it from a "
          "backup or point db_url at a new file.")
    if not self._sqlite:
      async with self.db_engine.begin() as conn:
        return await run_steps_sqlalchemy(steps, conn)
    if self._file_writer is not None:
      return await self._file_writer.run(steps)
    # An in-memory database lives in the engine's one connection: write through it.
    async with self.db_engine.connect() as conn:
      db = (await conn.get_raw_connection()).driver_connection
      await db.execute("BEGIN IMMEDIATE")
      try:
        result = await run_steps_aiosqlite(steps, db)
      except BaseException:
        await self._rollback(db)
        raise
      try:
        await db.execute("COMMIT")
      except BaseException:
        await self._rollback(db)
        raise
      return result

  @staticmethod
  async def _rollback(db: Any) -> None:
    with contextlib.suppress(Exception):
      if db.in_transaction:
        await db.execute("ROLLBACK")

  async def _read(self, steps: Steps[Any]) -> Any:
    """Runs read-only steps in one transaction, so they all see the same snapshot."""
    if not self._sqlite:
      engine = self.db_engine.execution_options(isolation_level="REPEATABLE READ")
      async with engine.connect() as conn:
        async with conn.begin():
          return await run_steps_sqlalchemy(steps, conn)
    async with self.db_engine.connect() as conn:
      db = (await conn.get_raw_connection()).driver_connection
      await db.execute("BEGIN")
      try:
        return await run_steps_aiosqlite(steps, db)
      finally:
        await self._rollback(db)

  # -- reading ---------------------------------------------------------------

  def _loads(self, text: Optional[str], what: str) -> dict[str, Any]:
    if text is None:
      return {}
    try:
      value = json.loads(text)
    except (TypeError, ValueError) as exc:
      raise SessionStorageError(
          f"Corrupt row in the {self._where()}: {what} is not valid JSON ({exc}). Restore the "
          "database from a backup, or reset that value to '{}' in SQL."
      ) from None
    if not isinstance(value, dict):
      raise SessionStorageError(
          f"Corrupt row in the {self._where()}: {what} is not a JSON object. Restore the "
          "database from a backup, or reset that value to '{}' in SQL."
      )
    return value

  def _decode(self, rows: list[Any], session_id: str) -> list[Event]:
    """Events from stored rows, in order (the collector paused for a large load: adk_nb.gc_policy)."""
    with collection_paused(len(rows)):
      return [self._event_from_row(seq, data, session_id) for seq, data in rows]

  def _event_from_row(self, seq: int, data: str, session_id: str) -> Event:
    try:
      return decode(data)
    except ValueError as exc:
      first = str(exc).splitlines()[0]
      raise SessionStorageError(
          f"Corrupt event row seq={seq} in session {session_id!r} of the {self._where()} "
          f"({first}). Restore the database from a backup, or delete that row "
          f"(DELETE FROM events WHERE seq = {seq}) to load the rest of the session."
      ) from None

  async def create_session(
      self,
      *,
      app_name: str,
      user_id: str,
      state: Optional[dict[str, Any]] = None,
      session_id: Optional[str] = None,
  ) -> Session:
    return await self._create(app_name, user_id, state, session_id)

  async def _create(self, app_name: str, user_id: str, state: Optional[dict[str, Any]],
                    session_id: Optional[str], copy: Optional[tuple[Session, int]] = None) -> Session:
    """create_session; with `copy` = (original, n), the new session also holds the first n stored
    events of `original` (same app and user), copied as stored rows in the same transaction."""
    await self.prepare_tables()
    session_id = self._new_session_id(session_id)
    self._check_ids(app_name=app_name, user_id=user_id, session_id=session_id)
    _check_keys(app_name=app_name, user_id=user_id, session_id=session_id)
    app_delta, user_delta, session_state = split_delta(convert_state_delta(state or {}))
    session_json = _dumps(session_state, "The initial session state")
    now = time.time()
    keys = {"app": app_name, "user": user_id, "sid": session_id}

    def steps():
      # Initial state is written blind: nothing was read, so nothing can be overwritten unseen.
      shared = yield from self._merge_shared(keys, app_delta, user_delta, now, None)
      yield ("run", SQL["insert_session"], {**keys, "state": session_json, "now": now})
      seqs = []
      if copy is not None:
        yield ("run", SQL["copy_events"], {**keys, "source": copy[0].id, "n": copy[1]})
        seqs = [row[0] for row in (yield ("fetch", SQL["event_seqs"], keys))]
        if len(seqs) != copy[1]:  # the original lost events since it was loaded (deleted meanwhile)
          raise self._stale(copy[0])
      return shared, seqs

    key = (app_name, user_id, session_id)
    self._histories.forget(key)
    try:
      async with self._errors("create a session" if copy is None else "fork a session"):
        ((app, app_revision), (user, user_revision)), seqs = await self._write(steps())
    except Exception as exc:
      if not is_integrity_error(exc):
        raise
      raise self._already_exists(app_name, user_id, session_id) from None
    events: Any = []
    if copy is not None:
      # The rows are byte for byte these events: the next load of the fork decodes none of them.
      history = History(now, seqs, copy[0].events[:copy[1]])
      self._histories.remember(key, history)
      events = history.index.loaded()
    return Session._loaded(
        id=session_id, app_name=app_name, user_id=user_id,
        state=merge_state(app, user, json.loads(session_json)), events=events,
        last_update_time=now, app_revision=app_revision, user_revision=user_revision,
    )

  def _merge_shared(self, keys: dict[str, Any], app_delta: dict[str, Any],
                    user_delta: dict[str, Any], now: float, seen: Optional[tuple[int, int]],
                    ) -> Steps[list[tuple[dict[str, Any], int]]]:
    """Applies app/user deltas (rows locked on PostgreSQL); returns each scope's (state, revision).

    `seen` holds the app and user revisions of the writer's copy (None: a blind write);
    writing a key changed after them raises StaleSessionError (see `SharedWrite`) and the
    caller's transaction rolls back.
    """
    out = []
    for index, (scope, delta, owner) in enumerate(
        (("app", app_delta, keys["app"]), ("user", user_delta, keys["user"]))):
      what = f"{scope} state of {owner!r}"
      # Lock only rows this transaction changes, so appends with other deltas do not queue.
      select = SQL[f"{scope}_state"].format(lock=self._lock_clause if delta else "")
      rows = yield ("fetch", select, keys)
      if not rows:
        yield ("run", SQL[f"add_{scope}_state"], {**keys, "now": now})
        rows = yield ("fetch", select, keys)
      text, revision, key_text = rows[0]
      current = self._loads(text, what)
      if delta:
        key_revisions = self._loads(key_text, f"key revisions of the {what}")
        SharedWrite.check(scope, owner, keys["sid"], delta, key_revisions,
                          None if seen is None else seen[index])
        revision = SharedWrite.apply(current, key_revisions, revision, delta)
        yield ("run", SQL[f"set_{scope}_state"],
               {**keys, "state": _dumps(current, what), "now": now, "revision": revision,
                "key_revisions": json.dumps(key_revisions)})
      out.append((current, revision))
    return out

  async def get_session(
      self,
      *,
      app_name: str,
      user_id: str,
      session_id: str,
      config: Optional[GetSessionConfig] = None,
  ) -> Optional[Session]:
    self._check_ids(app_name=app_name, user_id=user_id, session_id=session_id)
    await self.prepare_tables()
    key = (app_name, user_id, session_id)
    keys: dict[str, Any] = {"app": app_name, "user": user_id, "sid": session_id}
    limited = config is not None and (
        config.num_recent_events is not None or config.after_timestamp is not None)
    history = self._histories.get(key)
    start = history.last_seq if history is not None else 0

    def steps():
      rows = yield ("fetch", SQL["load_session"], keys)
      if not rows:
        return None, None, []
      created = rows[0][2]
      if history is not None and history.create_time == created:
        # Only rows appended since the last load need decoding, unless rows vanished.
        counted = yield ("fetch", SQL["count_upto"], {**keys, "seq": start})
        if counted[0][0] == history.count_upto(start):
          event_rows = yield ("fetch", SQL["events_after"], {**keys, "seq": start})
          return rows[0], history, event_rows
      event_rows = yield from self._event_rows(keys, config if limited else None)
      return rows[0], None, event_rows

    async with self._errors("load a session"):
      row, history, event_rows = await self._read(steps())
    if row is None:
      self._histories.forget(key)
      return None
    own, updated, created, app, user, app_revision, user_revision = row
    state = merge_state(self._loads(app, f"app state of {app_name!r}"),
                        self._loads(user, f"user state of {user_id!r}"),
                        self._loads(own, f"state of session {session_id!r}"))
    events = self._decode(event_rows, session_id)
    if history is not None:
      count = history.extend(event_rows, events, event_rows[-1][0] if event_rows else start)
      if count is None:  # not the events the index holds: forget it and read the whole session
        self._histories.forget(key)
        return await self.get_session(app_name=app_name, user_id=user_id, session_id=session_id, config=config)
      self._histories.used(key)
      events = (history.index.loaded(count) if config is None
                else self._filter_events(history.events[:count], config))
    elif not limited:
      history = History(created, [r[0] for r in event_rows], events)
      self._histories.remember(key, history)
      events = history.index.loaded() if config is None else self._filter_events(events, config)
    return Session._loaded(
        id=session_id, app_name=app_name, user_id=user_id, state=state, events=events,
        last_update_time=updated, app_revision=app_revision or 0, user_revision=user_revision or 0,
    )

  def _event_rows(self, keys: dict[str, Any], config: Optional[GetSessionConfig]) -> Steps[list[Any]]:
    if config is None:
      return (yield ("fetch", SQL["events"].format(after=""), keys))
    if config.num_recent_events == 0:
      return []
    after = ""
    params = dict(keys)
    if config.after_timestamp is not None:
      after = " AND timestamp >= :after"
      params["after"] = config.after_timestamp
    if config.num_recent_events is None:
      return (yield ("fetch", SQL["events"].format(after=after), params))
    params["n"] = config.num_recent_events
    return list(reversed((yield ("fetch", SQL["recent_events"].format(after=after), params))))

  async def list_sessions(
      self, *, app_name: str, user_id: Optional[str] = None
  ) -> ListSessionsResponse:
    self._check_ids(app_name=app_name, user_id=user_id)
    await self.prepare_tables()
    params = {"app": app_name, "user": user_id}
    only_user = "" if user_id is None else " AND user_id = :user"

    def steps():
      rows = yield ("fetch", SQL["list_sessions"].format(user=only_user), params)
      app_rows = yield ("fetch", SQL["app_state"].format(lock=""), params)
      user_rows = yield ("fetch", SQL["list_user_states"].format(user=only_user), params)
      return rows, app_rows, user_rows

    async with self._errors("list sessions"):
      rows, app_rows, user_rows = await self._read(steps())
    app = self._loads(app_rows[0][0], f"app state of {app_name!r}") if app_rows else {}
    app_revision = app_rows[0][1] if app_rows else 0
    users = {uid: (self._loads(text, f"user state of {uid!r}"), revision)
             for uid, text, revision in user_rows}
    sessions = []
    for uid, sid, text, updated in rows:
      user, user_revision = users.get(uid, ({}, 0))
      sessions.append(Session._loaded(
          id=sid, app_name=app_name, user_id=uid,
          state=merge_state(app, user, self._loads(text, f"state of session {sid!r}")),
          events=[], last_update_time=updated, app_revision=app_revision, user_revision=user_revision,
      ))
    return ListSessionsResponse(sessions=sessions)

  async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
    self._check_ids(app_name=app_name, user_id=user_id, session_id=session_id)
    await self.prepare_tables()
    keys = {"app": app_name, "user": user_id, "sid": session_id}

    def steps():
      yield ("run", SQL["delete_events"], keys)
      yield ("run", SQL["delete_turn"], keys)
      yield ("run", SQL["delete_session"], keys)

    self._histories.forget((app_name, user_id, session_id))
    async with self._errors("delete a session"):
      await self._write(steps())

  # -- writing ---------------------------------------------------------------

  async def append_event(self, session: Session, event: Event) -> Event:
    if event.partial:
      return event
    await self.prepare_tables()
    self._check_ids(event_id=event.id)
    _check_keys(**{"event id": event.id})
    self._to_json_form(event)
    stored = self._storable(event)
    try:
      data = stored.model_dump_json(by_alias=True, exclude_none=True)
    except pydantic_core.PydanticSerializationError as exc:
      raise ValueError(
          f"Event {event.id!r} is not JSON-serializable ({exc}); keep plain JSON values (str, "
          "numbers, bools, None, lists, dicts) or pydantic models in state deltas and "
          "function arguments. Nothing was written."
      ) from None
    app_delta, user_delta, session_delta = split_delta(stored.actions.state_delta)
    keys = {"app": session.app_name, "user": session.user_id, "sid": session.id}
    # Strictly increasing, so every copy loaded before this append is detected as stale.
    stamp = max(event.timestamp, session.last_update_time + 1e-6)

    def steps():
      claimed = yield ("fetch", SQL["claim_session"],
                       {**keys, "stamp": stamp, "seen": session.last_update_time + 1e-9})
      if not claimed:
        yield from self._explain_unclaimed(session, keys)
      if session_delta:
        own = self._loads(claimed[0][0], f"state of session {session.id!r}")
        own.update(session_delta)
        yield ("run", SQL["set_session_state"],
               {**keys, "state": _dumps(own, f"The state of session {session.id!r}")})
      shared = None
      if app_delta or user_delta:
        shared = yield from self._merge_shared(
            keys, app_delta, user_delta, stamp, (session._app_revision, session._user_revision))
      yield ("run", SQL["insert_event"], {**keys, "eid": event.id, "ts": event.timestamp, "data": data})
      return shared

    try:
      async with self._errors("append an event"):
        shared = await self._write(steps())
    except Exception as exc:
      if not is_integrity_error(exc):
        raise
      raise self._stored_twice(event, session) from None
    self._apply_state_to_session(session, event)
    history = self._histories.get((session.app_name, session.user_id, session.id))
    commit(session, event, history.index if history is not None else None)
    session.last_update_time = stamp
    if app_delta:
      SharedWrite.refresh(session, "app", *shared[0])
    if user_delta:
      SharedWrite.refresh(session, "user", *shared[1])
    return event

  turn_lease: float = DEFAULT_LEASE
  """Seconds a turn's claim taken on another host counts as held (see `sessions._turns`)."""

  async def claim_turn(self, session: Session, invocation_id: str) -> TurnClaim:
    """Holds the session for one turn, in one write transaction with the stale check of
    `session`, so that across processes (and on PostgreSQL across hosts) of two racing turns the
    loser is refused before it has done anything. One transaction per turn, none per event."""
    await self.prepare_tables()
    keys = {"app": session.app_name, "user": session.user_id, "sid": session.id}
    claim = TurnClaim(self, (session.app_name, session.user_id, session.id), invocation_id)
    seen = session.last_update_time + 1e-9

    def steps():
      rows = yield ("fetch", SQL["turn_session"].format(lock=self._lock_clause), keys)
      if not rows:
        yield from self._explain_unclaimed(session, keys)
      if rows[0][0] > seen:
        raise self._stale(session)
      holder = yield ("fetch", SQL["turn_holder"], keys)
      if holder:
        owner, holder_invocation, since = holder[0]
        if owner != claim.token and holder_alive(owner, since, self.turn_lease):
          raise busy_error(session.id, holder_invocation, since)
      yield ("run", SQL["take_turn"], {**keys, "owner": claim.token, "inv": invocation_id,
                                       "since": claim.since})

    try:
      async with self._errors("claim the session for a turn"):
        await self._write(steps())
    except BaseException:
      claim.drop()
      raise
    return claim

  async def _release_turn(self, claim: TurnClaim) -> None:
    app, user, sid = claim.key

    def steps():
      yield ("run", SQL["free_turn"], {"app": app, "user": user, "sid": sid, "owner": claim.token})

    try:
      async with self._errors("release the session after a turn"):
        await self._write(steps())
    except Exception:  # the claim is already dead in this process; a later turn takes the row over
      logger.warning("Could not release session %r after invocation %s", sid, claim.invocation_id,
                     exc_info=True)

  def _explain_unclaimed(self, session: Session, keys: dict[str, Any]) -> Steps[None]:
    if not (yield ("fetch", SQL["session_exists"], keys)):
      raise self._no_such_session(session)
    raise self._stale(session)

  async def close(self) -> None:
    """Closes the database connections; the service reconnects if used again."""
    if self._file_writer is not None:
      writer = self._file_writer
      self._file_writer = self._make_file_writer()
      await asyncio.get_running_loop().run_in_executor(None, writer.close)
    await self.db_engine.dispose()

  async def __aenter__(self) -> "DatabaseSessionService":
    return self

  async def __aexit__(self, *exc_info: Any) -> None:
    await self.close()

  # -- forks (adk_nb.sessions.fork) -------------------------------------------

  async def _create_fork(self, original: Session, count: int, *, session_id: Optional[str],
                         state: dict[str, Any]) -> Session:
    """A new session of `original`'s app and user, with session-scoped `state`, holding the first
    `count` stored events of `original` (a fully loaded session) as exact copies of their rows, in
    one transaction: there is never a fork session without the events its lineage counts, not even
    after a process died making it, and 10,000 events take one statement instead of one
    transaction each. No state is applied again: the fork's state is `state`. The fork's decoded
    history is kept, so loading it next decodes nothing. Raises AlreadyExistsError when
    `session_id` is taken, StaleSessionError (nothing written) when `original` lost stored events
    since it was loaded."""
    return await self._create(original.app_name, original.user_id, state, session_id, copy=(original, count))
