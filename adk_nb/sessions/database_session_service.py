"""Sessions kept in a database (SQLite file or PostgreSQL server): they survive restarts.

Tables (created on first use):

- `sessions`: one row per session, its own state as JSON and `update_time`, the
  revision marker that optimistic concurrency compares against;
- `events`: one JSON document per event, ordered by an integer `seq`;
- `app_states`, `user_states`: state shared by every session of an app / of a user;
- `adk_nb_schema`: the schema version, so a later release can migrate.

The table layout is adk_nb's own, not google-adk's: point the service at a new
database rather than one written by google-adk.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import sqlite3
import time
import uuid
from typing import Any, AsyncIterator, Optional

import pydantic_core
import sqlalchemy as sa
from sqlalchemy import event as sa_event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from ..errors.already_exists_error import AlreadyExistsError
from ..errors.stale_session_error import StaleSessionError
from ..events.event import Event
from .base_session_service import BaseSessionService, GetSessionConfig, ListSessionsResponse
from .session import Session
from .state import merge_state, split_delta

SCHEMA_VERSION = 1
"""The table layout this release writes; stored in `adk_nb_schema`."""

_DEFAULT_BUSY_TIMEOUT = 30.0

_metadata = sa.MetaData()
_key = sa.String(128)

sa.Table(
    "adk_nb_schema", _metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)
sa.Table(
    "sessions", _metadata,
    sa.Column("app_name", _key, primary_key=True),
    sa.Column("user_id", _key, primary_key=True),
    sa.Column("id", _key, primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("create_time", sa.Double, nullable=False),
    sa.Column("update_time", sa.Double, nullable=False),
)
sa.Table(
    "events", _metadata,
    # INTEGER PRIMARY KEY is SQLite's rowid: the cheapest monotonic sequence there is.
    sa.Column("seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), sa.Identity(),
              primary_key=True),
    sa.Column("app_name", _key, nullable=False),
    sa.Column("user_id", _key, nullable=False),
    sa.Column("session_id", _key, nullable=False),
    sa.Column("id", _key, nullable=False),
    sa.Column("timestamp", sa.Double, nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.Index("ix_events_session_seq", "app_name", "user_id", "session_id", "seq"),
    sa.UniqueConstraint("app_name", "user_id", "session_id", "id", name="uq_events_session_event"),
)
sa.Table(
    "app_states", _metadata,
    sa.Column("app_name", _key, primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("update_time", sa.Double, nullable=False),
)
sa.Table(
    "user_states", _metadata,
    sa.Column("app_name", _key, primary_key=True),
    sa.Column("user_id", _key, primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("update_time", sa.Double, nullable=False),
)

# Plain SQL that SQLite and PostgreSQL both accept; `{lock}` is FOR UPDATE on PostgreSQL.
_SESSION_WHERE = "app_name = :app AND user_id = :user AND id = :sid"
_SQL = {
    "load_session": (
        "SELECT s.state, s.update_time,"
        " (SELECT a.state FROM app_states a WHERE a.app_name = :app),"
        " (SELECT u.state FROM user_states u WHERE u.app_name = :app AND u.user_id = :user)"
        f" FROM sessions s WHERE s.{_SESSION_WHERE.replace(' AND ', ' AND s.')}"
    ),
    "session_exists": f"SELECT 1 FROM sessions WHERE {_SESSION_WHERE}",
    "insert_session": (
        "INSERT INTO sessions (app_name, user_id, id, state, create_time, update_time)"
        " VALUES (:app, :user, :sid, :state, :now, :now)"
    ),
    # Compare-and-set: only succeeds when nobody appended since the writer's copy was loaded.
    "claim_session": (
        f"UPDATE sessions SET update_time = :stamp WHERE {_SESSION_WHERE}"
        " AND update_time <= :seen RETURNING state"
    ),
    "set_session_state": f"UPDATE sessions SET state = :state WHERE {_SESSION_WHERE}",
    "insert_event": (
        "INSERT INTO events (app_name, user_id, session_id, id, timestamp, data)"
        " VALUES (:app, :user, :sid, :eid, :ts, :data)"
    ),
    "events": "SELECT seq, data FROM events WHERE app_name = :app AND user_id = :user"
              " AND session_id = :sid{after} ORDER BY seq",
    "recent_events": "SELECT seq, data FROM events WHERE app_name = :app AND user_id = :user"
                     " AND session_id = :sid{after} ORDER BY seq DESC LIMIT :n",
    "delete_events": "DELETE FROM events WHERE app_name = :app AND user_id = :user AND session_id = :sid",
    "delete_session": f"DELETE FROM sessions WHERE {_SESSION_WHERE}",
    "list_sessions": "SELECT user_id, id, state, update_time FROM sessions WHERE app_name = :app"
                     "{user} ORDER BY create_time, id",
    "list_user_states": "SELECT user_id, state FROM user_states WHERE app_name = :app{user}",
    "app_state": "SELECT state FROM app_states WHERE app_name = :app{lock}",
    "user_state": "SELECT state FROM user_states WHERE app_name = :app AND user_id = :user{lock}",
    "add_app_state": "INSERT INTO app_states (app_name, state, update_time) VALUES (:app, '{}', :now)"
                     " ON CONFLICT (app_name) DO NOTHING",
    "add_user_state": "INSERT INTO user_states (app_name, user_id, state, update_time)"
                      " VALUES (:app, :user, '{}', :now) ON CONFLICT (app_name, user_id) DO NOTHING",
    "set_app_state": "UPDATE app_states SET state = :state, update_time = :now WHERE app_name = :app",
    "set_user_state": "UPDATE user_states SET state = :state, update_time = :now"
                      " WHERE app_name = :app AND user_id = :user",
}


class SessionStorageError(RuntimeError):
  """The database could not be read or written; the message names the cause and the fix.

  Raised for an unreachable server, a read-only or full disk, a missing table or a
  corrupt row. A write that raises this has written nothing.
  """


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


@functools.lru_cache(maxsize=None)
def _text(sql: str) -> sa.TextClause:
  return sa.text(sql)


class _SqliteTx:
  """Statements on the aiosqlite connection itself: one thread hop each, not four."""

  __slots__ = ("_db",)

  def __init__(self, db: Any) -> None:
    self._db = db

  async def fetch(self, sql: str, params: dict[str, Any]) -> list[Any]:
    return list(await self._db.execute_fetchall(sql, params))

  async def run(self, sql: str, params: dict[str, Any]) -> None:
    await self._db.execute(sql, params)


class _SaTx:
  """Statements through SQLAlchemy (PostgreSQL via asyncpg)."""

  __slots__ = ("_conn",)

  def __init__(self, conn: AsyncConnection) -> None:
    self._conn = conn

  async def fetch(self, sql: str, params: dict[str, Any]) -> list[Any]:
    return list((await self._conn.execute(_text(sql), params)).all())

  async def run(self, sql: str, params: dict[str, Any]) -> None:
    await self._conn.execute(_text(sql), params)


def _is_integrity_error(exc: BaseException) -> bool:
  return isinstance(exc, (sa_exc.IntegrityError, sqlite3.IntegrityError))


class DatabaseSessionService(BaseSessionService):
  """A session store in SQLite or PostgreSQL: InMemorySessionService's behaviour, durable.

  Args:
    db_url: `sqlite:///sessions.db` (the embedded default), `sqlite+aiosqlite:///...`,
      `postgresql://user:pw@host/db` or `postgresql+asyncpg://...`.
    busy_timeout: seconds an SQLite writer waits for another process's write lock.
    **engine_kwargs: passed to SQLAlchemy's `create_async_engine`.

  Every `append_event` is one transaction: the event and its state delta are committed
  together or not at all. A writer holding a copy of the session that another writer
  has since appended to gets `StaleSessionError` and nothing is written; the check is a
  compare-and-set on the session's `update_time` inside the writing transaction, so it
  needs no re-read of the history (google-adk re-reads and compares timestamps some
  databases round). SQLite runs in WAL mode with `synchronous=NORMAL`: a killed
  process loses nothing that was committed; writers of one process queue on a lock,
  writers of other processes wait up to `busy_timeout`.
  """

  def __init__(self, db_url: str, *, busy_timeout: float = _DEFAULT_BUSY_TIMEOUT,
               **engine_kwargs: Any) -> None:
    self.db_url = normalize_db_url(db_url)
    url = make_url(self.db_url)
    self._sqlite = url.get_backend_name() == "sqlite"
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
      self.db_engine: AsyncEngine = create_async_engine(self.db_url, **kwargs)
    except (sa_exc.ArgumentError, ImportError) as exc:
      raise ValueError(f"Cannot use database URL {_redact(self.db_url)!r}: {exc}") from exc
    if self._sqlite:
      sa_event.listen(self.db_engine.sync_engine, "connect", self._on_sqlite_connect)
    self._lock_clause = "" if self._sqlite else " FOR UPDATE"
    self._ready = False
    self._ready_lock: Optional[asyncio.Lock] = None
    # SQLite writers of this process queue on this lock and share one connection,
    # instead of spinning in SQLite's busy handler.
    self._write_lock: Optional[asyncio.Lock] = None
    self._writer: Optional[AsyncConnection] = None

  def _on_sqlite_connect(self, dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
      for pragma in (
          f"PRAGMA busy_timeout={int(self._busy_timeout * 1000)}",
          "PRAGMA journal_mode=WAL",
          "PRAGMA synchronous=NORMAL",
      ):
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
    text = str(getattr(exc, "orig", None) or exc) or type(exc).__name__
    low = text.lower()
    where = self._where()
    if "readonly" in low or "read-only" in low or "read only" in low:
      msg = (f"Cannot {action}: the {where} is read-only (nothing was written). Make the file "
             "and its directory writable, or open a writable copy.")
    elif "disk is full" in low or "no space" in low or "disk full" in low:
      msg = (f"Cannot {action}: the disk holding the {where} is full (nothing was written); "
             "free some space and retry.")
    elif "no such table" in low or ("relation" in low and "does not exist" in low):
      self._ready = False
      msg = (f"Cannot {action}: a table is missing from the {where} ({text}); it was dropped "
             "outside adk_nb. Restore the database from a backup, or call "
             "`await service.prepare_tables()` to recreate missing tables empty.")
    elif "no such column" in low or ("column" in low and "does not exist" in low):
      msg = (f"Cannot {action}: the {where} has tables adk_nb did not create ({text}); use a "
             "new database (google-adk's tables have another layout).")
    elif "locked" in low:
      msg = (f"Cannot {action}: the {where} stayed locked by another writer for more than "
             f"{self._busy_timeout:g} s (nothing was written); retry, or pass a larger "
             "busy_timeout= to DatabaseSessionService.")
    elif "not a database" in low or "malformed" in low:
      msg = (f"Cannot {action}: the {where} is not a valid SQLite database ({text}); restore "
             "it from a backup or point db_url at a new file.")
    elif "unable to open" in low:
      msg = (f"Cannot {action}: cannot open the {where}; check that its directory exists and "
             "is writable.")
    elif "deadlock" in low or "could not serialize" in low:
      msg = f"Cannot {action}: the database aborted a conflicting transaction ({text}); retry."
    elif (isinstance(exc, (OSError, asyncio.TimeoutError, sa_exc.OperationalError,
                           sa_exc.InterfaceError)) or "connect" in low):
      msg = (f"Cannot {action}: the {where} is unreachable ({text}). Check that the server is "
             "running and that host, port, user and password in the URL are right.")
    else:
      msg = f"Cannot {action} in the {where}: {text}"
    return SessionStorageError(msg)

  @contextlib.asynccontextmanager
  async def _errors(self, action: str) -> AsyncIterator[None]:
    try:
      yield
    except (sa_exc.DBAPIError, sa_exc.NoSuchTableError, sqlite3.Error, OSError,
            asyncio.TimeoutError) as exc:
      if _is_integrity_error(exc):
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
        async with self.db_engine.connect() as conn:
          if self._sqlite:
            await conn.exec_driver_sql("BEGIN IMMEDIATE")
            try:
              await conn.run_sync(self._create_tables)
            except BaseException:
              await conn.exec_driver_sql("ROLLBACK")
              raise
            await conn.exec_driver_sql("COMMIT")
          else:
            async with conn.begin():
              # Serialises first-use table creation between processes.
              await conn.exec_driver_sql("SELECT pg_advisory_xact_lock(8127311)")
              await conn.run_sync(self._create_tables)
      self._ready = True

  def _create_tables(self, conn: sa.Connection) -> None:
    existing = set(sa.inspect(conn).get_table_names())
    if "adk_nb_schema" not in existing and existing & {"sessions", "events"}:
      raise SessionStorageError(
          f"The {self._where()} already has 'sessions'/'events' tables that adk_nb did not "
          "create (google-adk's DatabaseSessionService uses these names with another "
          "layout); use a new database file or server database for adk_nb."
      )
    _metadata.create_all(conn, checkfirst=True)
    row = conn.exec_driver_sql(
        "SELECT value FROM adk_nb_schema WHERE key = 'schema_version'").first()
    if row is None:
      conn.exec_driver_sql(
          f"INSERT INTO adk_nb_schema (key, value) VALUES ('schema_version', '{SCHEMA_VERSION}')")
      return
    if row[0] != str(SCHEMA_VERSION):
      raise SessionStorageError(
          f"The {self._where()} has session schema version {row[0]!r}; this adk_nb release "
          f"reads version {SCHEMA_VERSION}. Upgrade adk_nb, or use a new database."
      )

  # -- transactions ----------------------------------------------------------

  @contextlib.asynccontextmanager
  async def _write(self) -> AsyncIterator[Any]:
    """A write transaction, committed when the block ends and rolled back if it raises."""
    if not self._sqlite:
      async with self.db_engine.begin() as conn:
        yield _SaTx(conn)
      return
    if self._write_lock is None:
      self._write_lock = asyncio.Lock()
    async with self._write_lock:
      if self._writer is None:
        self._writer = await self.db_engine.connect()
      db = (await self._writer.get_raw_connection()).driver_connection
      # IMMEDIATE takes the write lock up front, so a read-then-write never deadlocks.
      await db.execute("BEGIN IMMEDIATE")
      try:
        yield _SqliteTx(db)
      except BaseException:
        await self._rollback(db)
        raise
      try:
        await db.execute("COMMIT")
      except BaseException:
        await self._rollback(db)
        raise

  @staticmethod
  async def _rollback(db: Any) -> None:
    with contextlib.suppress(Exception):
      if db.in_transaction:
        await db.execute("ROLLBACK")

  @contextlib.asynccontextmanager
  async def _read(self) -> AsyncIterator[Any]:
    """A read transaction: every statement in it sees the same snapshot."""
    if not self._sqlite:
      engine = self.db_engine.execution_options(isolation_level="REPEATABLE READ")
      async with engine.connect() as conn:
        async with conn.begin():
          yield _SaTx(conn)
      return
    async with self.db_engine.connect() as conn:
      db = (await conn.get_raw_connection()).driver_connection
      await db.execute("BEGIN")
      try:
        yield _SqliteTx(db)
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

  def _event_from_row(self, seq: int, data: str, session_id: str) -> Event:
    try:
      return Event.model_validate_json(data)
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
    await self.prepare_tables()
    session_id = session_id.strip() if session_id and session_id.strip() else str(uuid.uuid4())
    app_delta, user_delta, session_state = split_delta(state or {})
    session_json = _dumps(session_state, "The initial session state")
    now = time.time()
    keys = {"app": app_name, "user": user_id, "sid": session_id}
    try:
      async with self._errors("create a session"):
        async with self._write() as tx:
          app, user = await self._merge_shared(tx, keys, app_delta, user_delta, now)
          await tx.run(_SQL["insert_session"], {**keys, "state": session_json, "now": now})
    except Exception as exc:
      if not _is_integrity_error(exc):
        raise
      raise AlreadyExistsError(
          f"Session {session_id!r} already exists for app {app_name!r} and user {user_id!r}; "
          "pass another session_id, or omit it to get a fresh one."
      ) from None
    return Session.model_construct(
        id=session_id, app_name=app_name, user_id=user_id,
        state=merge_state(app, user, json.loads(session_json)), events=[],
        last_update_time=now,
    )

  async def _merge_shared(self, tx: Any, keys: dict[str, Any], app_delta: dict[str, Any],
                          user_delta: dict[str, Any], now: float
                          ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Applies app/user deltas (rows locked on PostgreSQL); returns the resulting shared state."""
    out = []
    for scope, delta, what in (
        ("app", app_delta, f"app state of {keys['app']!r}"),
        ("user", user_delta, f"user state of {keys['user']!r}"),
    ):
      select = _SQL[f"{scope}_state"].format(lock=self._lock_clause)
      rows = await tx.fetch(select, keys)
      if not rows:
        await tx.run(_SQL[f"add_{scope}_state"], {**keys, "now": now})
        rows = await tx.fetch(select, keys)
      current = self._loads(rows[0][0], what)
      if delta:
        current.update(delta)
        await tx.run(_SQL[f"set_{scope}_state"], {**keys, "state": _dumps(current, what), "now": now})
      out.append(current)
    return out[0], out[1]

  async def get_session(
      self,
      *,
      app_name: str,
      user_id: str,
      session_id: str,
      config: Optional[GetSessionConfig] = None,
  ) -> Optional[Session]:
    await self.prepare_tables()
    keys: dict[str, Any] = {"app": app_name, "user": user_id, "sid": session_id}
    async with self._errors("load a session"):
      async with self._read() as tx:
        rows = await tx.fetch(_SQL["load_session"], keys)
        if not rows:
          return None
        own, updated, app, user = rows[0]
        event_rows = await self._event_rows(tx, keys, config)
    state = merge_state(self._loads(app, f"app state of {app_name!r}"),
                        self._loads(user, f"user state of {user_id!r}"),
                        self._loads(own, f"state of session {session_id!r}"))
    events = [self._event_from_row(seq, data, session_id) for seq, data in event_rows]
    return Session.model_construct(
        id=session_id, app_name=app_name, user_id=user_id, state=state, events=events,
        last_update_time=updated,
    )

  async def _event_rows(self, tx: Any, keys: dict[str, Any],
                        config: Optional[GetSessionConfig]) -> list[Any]:
    if config is None:
      return await tx.fetch(_SQL["events"].format(after=""), keys)
    if config.num_recent_events == 0:
      return []
    after = ""
    params = dict(keys)
    if config.after_timestamp is not None:
      after = " AND timestamp >= :after"
      params["after"] = config.after_timestamp
    if config.num_recent_events is None:
      return await tx.fetch(_SQL["events"].format(after=after), params)
    params["n"] = config.num_recent_events
    return list(reversed(await tx.fetch(_SQL["recent_events"].format(after=after), params)))

  async def list_sessions(
      self, *, app_name: str, user_id: Optional[str] = None
  ) -> ListSessionsResponse:
    await self.prepare_tables()
    params = {"app": app_name, "user": user_id}
    only_user = "" if user_id is None else " AND user_id = :user"
    async with self._errors("list sessions"):
      async with self._read() as tx:
        rows = await tx.fetch(_SQL["list_sessions"].format(user=only_user), params)
        app_rows = await tx.fetch(_SQL["app_state"].format(lock=""), params)
        user_rows = await tx.fetch(_SQL["list_user_states"].format(user=only_user), params)
    app = self._loads(app_rows[0][0], f"app state of {app_name!r}") if app_rows else {}
    users = {uid: self._loads(text, f"user state of {uid!r}") for uid, text in user_rows}
    sessions = [
        Session.model_construct(
            id=sid, app_name=app_name, user_id=uid,
            state=merge_state(app, users.get(uid, {}), self._loads(text, f"state of session {sid!r}")),
            events=[], last_update_time=updated,
        )
        for uid, sid, text, updated in rows
    ]
    return ListSessionsResponse(sessions=sessions)

  async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
    await self.prepare_tables()
    keys = {"app": app_name, "user": user_id, "sid": session_id}
    async with self._errors("delete a session"):
      async with self._write() as tx:
        await tx.run(_SQL["delete_events"], keys)
        await tx.run(_SQL["delete_session"], keys)

  # -- writing ---------------------------------------------------------------

  async def append_event(self, session: Session, event: Event) -> Event:
    if event.partial:
      return event
    await self.prepare_tables()
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
    try:
      async with self._errors("append an event"):
        async with self._write() as tx:
          claimed = await tx.fetch(
              _SQL["claim_session"], {**keys, "stamp": stamp, "seen": session.last_update_time + 1e-9})
          if not claimed:
            await self._explain_unclaimed(tx, session, keys)
          if session_delta:
            own = self._loads(claimed[0][0], f"state of session {session.id!r}")
            own.update(session_delta)
            await tx.run(_SQL["set_session_state"],
                         {**keys, "state": _dumps(own, f"The state of session {session.id!r}")})
          if app_delta or user_delta:
            await self._merge_shared(tx, keys, app_delta, user_delta, stamp)
          await tx.run(_SQL["insert_event"],
                       {**keys, "eid": event.id, "ts": event.timestamp, "data": data})
    except Exception as exc:
      if not _is_integrity_error(exc):
        raise
      raise ValueError(
          f"Event {event.id!r} is already stored in session {session.id!r} (nothing was "
          "written); each step needs a new Event with its own id."
      ) from None
    self._apply_to_session(session, event)
    session.last_update_time = stamp
    return event

  async def _explain_unclaimed(self, tx: Any, session: Session, keys: dict[str, Any]) -> None:
    if not await tx.fetch(_SQL["session_exists"], keys):
      raise ValueError(
          f"Session {session.id!r} of app {session.app_name!r} does not exist in this "
          "database; create it with create_session(...) first."
      )
    raise StaleSessionError(
        f"Session {session.id!r} was changed by another writer since this copy was loaded "
        "(nothing was written); reload it with get_session(...) and retry."
    )

  async def close(self) -> None:
    """Closes the database connections; the service reconnects if used again."""
    if self._writer is not None:
      writer, self._writer = self._writer, None
      with contextlib.suppress(Exception):
        await writer.close()
    await self.db_engine.dispose()

  async def __aenter__(self) -> "DatabaseSessionService":
    return self

  async def __aexit__(self, *exc_info: Any) -> None:
    await self.close()
