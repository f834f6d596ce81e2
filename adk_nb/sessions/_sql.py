"""The SQL side of DatabaseSessionService: tables, statements, and how they are run.

Statements are plain SQL that SQLite and PostgreSQL both accept. The service's writes
are written once, as generators of `(kind, sql, params)` steps (see `Steps`), and run by
one of three drivers: on PostgreSQL through SQLAlchemy, on an in-memory SQLite database
through aiosqlite, and on an SQLite file by `SqliteWriter`, a thread owning one
connection, so that a whole write transaction costs the event loop one thread hop
instead of one per statement.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import sqlite3
from typing import Any, Generator, Optional, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

T = TypeVar("T")
Steps = Generator[tuple[str, str, dict[str, Any]], Any, T]
"""A transaction's logic: yields ('fetch' | 'run', sql, params), receives fetched rows."""

SCHEMA_VERSION = 2
"""The table layout this release writes; stored in `adk_nb_schema`.

Version 2 added `revision` (counted up by every write to the row) and `key_revisions`
(JSON: each key -> the revision that last wrote it) to `app_states` and `user_states`.
"""

DEFAULT_BUSY_TIMEOUT = 30.0

MAX_KEY_LENGTH = 128
"""How many characters a key column (app_name, user_id, a session's or an event's id) holds."""

metadata = sa.MetaData()
_key = sa.String(MAX_KEY_LENGTH)

sa.Table(
    "adk_nb_schema", metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)
sa.Table(
    "sessions", metadata,
    sa.Column("app_name", _key, primary_key=True),
    sa.Column("user_id", _key, primary_key=True),
    sa.Column("id", _key, primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("create_time", sa.Double, nullable=False),
    sa.Column("update_time", sa.Double, nullable=False),
)
sa.Table(
    "events", metadata,
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
    "app_states", metadata,
    sa.Column("app_name", _key, primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("update_time", sa.Double, nullable=False),
    sa.Column("revision", sa.Integer, nullable=False, server_default="0"),
    sa.Column("key_revisions", sa.Text, nullable=False, server_default="{}"),
)
sa.Table(
    "user_states", metadata,
    sa.Column("app_name", _key, primary_key=True),
    sa.Column("user_id", _key, primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("update_time", sa.Double, nullable=False),
    sa.Column("revision", sa.Integer, nullable=False, server_default="0"),
    sa.Column("key_revisions", sa.Text, nullable=False, server_default="{}"),
)

sa.Table(
    # The turn holding each session (see sessions/_turns.py); a new table, so databases of
    # schema version 2 get it from create_all on first use, with no migration.
    "session_turns", metadata,
    sa.Column("app_name", _key, primary_key=True),
    sa.Column("user_id", _key, primary_key=True),
    sa.Column("session_id", _key, primary_key=True),
    sa.Column("owner", sa.Text, nullable=False),
    sa.Column("invocation_id", sa.Text, nullable=False),
    sa.Column("since", sa.Double, nullable=False),
)

MIGRATIONS: dict[int, list[tuple[str, str, str]]] = {
    # From version 1: shared state rows get the revision optimistic concurrency compares.
    1: [(table, column, f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
        for table in ("app_states", "user_states")
        for column, kind in (("revision", "INTEGER NOT NULL DEFAULT 0"),
                             ("key_revisions", "TEXT NOT NULL DEFAULT '{}'"))],
}
"""Per older schema version: (table, column, DDL adding it) that bring it to the next version."""

# Plain SQL that SQLite and PostgreSQL both accept; `{lock}` is FOR UPDATE on PostgreSQL.
SESSION_WHERE = "app_name = :app AND user_id = :user AND id = :sid"
SQL = {
    "load_session": (
        "SELECT s.state, s.update_time, s.create_time,"
        " (SELECT a.state FROM app_states a WHERE a.app_name = :app),"
        " (SELECT u.state FROM user_states u WHERE u.app_name = :app AND u.user_id = :user),"
        " (SELECT a.revision FROM app_states a WHERE a.app_name = :app),"
        " (SELECT u.revision FROM user_states u WHERE u.app_name = :app AND u.user_id = :user)"
        f" FROM sessions s WHERE s.{SESSION_WHERE.replace(' AND ', ' AND s.')}"
    ),
    "session_exists": f"SELECT 1 FROM sessions WHERE {SESSION_WHERE}",
    "insert_session": (
        "INSERT INTO sessions (app_name, user_id, id, state, create_time, update_time)"
        " VALUES (:app, :user, :sid, :state, :now, :now)"
    ),
    # Compare-and-set: only succeeds when nobody appended since the writer's copy was loaded.
    "claim_session": (
        f"UPDATE sessions SET update_time = :stamp WHERE {SESSION_WHERE}"
        " AND update_time <= :seen RETURNING state"
    ),
    "set_session_state": f"UPDATE sessions SET state = :state WHERE {SESSION_WHERE}",
    # A turn's claim: the session row (locked on PostgreSQL), then its holder, then take it.
    "turn_session": f"SELECT update_time FROM sessions WHERE {SESSION_WHERE}{{lock}}",
    "turn_holder": "SELECT owner, invocation_id, since FROM session_turns"
                   " WHERE app_name = :app AND user_id = :user AND session_id = :sid",
    "take_turn": (
        "INSERT INTO session_turns (app_name, user_id, session_id, owner, invocation_id, since)"
        " VALUES (:app, :user, :sid, :owner, :inv, :since)"
        " ON CONFLICT (app_name, user_id, session_id) DO UPDATE SET owner = excluded.owner,"
        " invocation_id = excluded.invocation_id, since = excluded.since"
    ),
    "free_turn": "DELETE FROM session_turns WHERE app_name = :app AND user_id = :user"
                 " AND session_id = :sid AND owner = :owner",
    "delete_turn": "DELETE FROM session_turns WHERE app_name = :app AND user_id = :user AND session_id = :sid",
    "insert_event": (
        "INSERT INTO events (app_name, user_id, session_id, id, timestamp, data)"
        " VALUES (:app, :user, :sid, :eid, :ts, :data)"
    ),
    "events": "SELECT seq, data FROM events WHERE app_name = :app AND user_id = :user"
              " AND session_id = :sid{after} ORDER BY seq",
    "recent_events": "SELECT seq, data FROM events WHERE app_name = :app AND user_id = :user"
                     " AND session_id = :sid{after} ORDER BY seq DESC LIMIT :n",
    "events_after": "SELECT seq, data FROM events WHERE app_name = :app AND user_id = :user"
                    " AND session_id = :sid AND seq > :seq ORDER BY seq",
    "count_upto": "SELECT count(*) FROM events WHERE app_name = :app AND user_id = :user"
                  " AND session_id = :sid AND seq <= :seq",
    # A fork's history: the first :n stored events of session :source, as they are, in one statement.
    "copy_events": (
        "INSERT INTO events (app_name, user_id, session_id, id, timestamp, data)"
        " SELECT app_name, user_id, :sid, id, timestamp, data FROM events"
        " WHERE app_name = :app AND user_id = :user AND session_id = :source ORDER BY seq LIMIT :n"
    ),
    "event_seqs": "SELECT seq FROM events WHERE app_name = :app AND user_id = :user AND session_id = :sid ORDER BY seq",
    "delete_events": "DELETE FROM events WHERE app_name = :app AND user_id = :user AND session_id = :sid",
    "delete_session": f"DELETE FROM sessions WHERE {SESSION_WHERE}",
    "list_sessions": "SELECT user_id, id, state, update_time FROM sessions WHERE app_name = :app"
                     "{user} ORDER BY create_time, id",
    "list_user_states": "SELECT user_id, state, revision FROM user_states WHERE app_name = :app{user}",
    "app_state": "SELECT state, revision, key_revisions FROM app_states WHERE app_name = :app{lock}",
    "user_state": "SELECT state, revision, key_revisions FROM user_states"
                  " WHERE app_name = :app AND user_id = :user{lock}",
    "add_app_state": "INSERT INTO app_states (app_name, state, update_time) VALUES (:app, '{}', :now)"
                     " ON CONFLICT (app_name) DO NOTHING",
    "add_user_state": "INSERT INTO user_states (app_name, user_id, state, update_time)"
                      " VALUES (:app, :user, '{}', :now) ON CONFLICT (app_name, user_id) DO NOTHING",
    "set_app_state": "UPDATE app_states SET state = :state, update_time = :now,"
                     " revision = :revision, key_revisions = :key_revisions WHERE app_name = :app",
    "set_user_state": "UPDATE user_states SET state = :state, update_time = :now,"
                      " revision = :revision, key_revisions = :key_revisions"
                      " WHERE app_name = :app AND user_id = :user",
}


@functools.lru_cache(maxsize=None)
def _text(sql: str) -> sa.TextClause:
  return sa.text(sql)


def is_integrity_error(exc: BaseException) -> bool:
  """True for a unique-key violation, from any of the drivers."""
  return isinstance(exc, (sa.exc.IntegrityError, sqlite3.IntegrityError))


def run_steps_sync(steps: Steps[T], conn: sqlite3.Connection) -> T:
  """Runs a transaction's steps on an sqlite3 connection (inside a transaction already open)."""
  try:
    kind, sql, params = next(steps)
    while True:
      cursor = conn.execute(sql, params)
      rows = cursor.fetchall() if kind == "fetch" else None
      kind, sql, params = steps.send(rows)
  except StopIteration as done:
    return done.value


async def run_steps_aiosqlite(steps: Steps[T], db: Any) -> T:
  """Runs the steps on an aiosqlite connection: one thread hop per statement."""
  try:
    kind, sql, params = next(steps)
    while True:
      if kind == "fetch":
        rows = list(await db.execute_fetchall(sql, params))
      else:
        await db.execute(sql, params)
        rows = None
      kind, sql, params = steps.send(rows)
  except StopIteration as done:
    return done.value


async def run_steps_sqlalchemy(steps: Steps[T], conn: AsyncConnection) -> T:
  """Runs the steps through SQLAlchemy (PostgreSQL via asyncpg)."""
  try:
    kind, sql, params = next(steps)
    while True:
      result = await conn.execute(_text(sql), params)
      rows = list(result.all()) if kind == "fetch" else None
      kind, sql, params = steps.send(rows)
  except StopIteration as done:
    return done.value


class SqliteWriter:
  """One SQLite connection on one thread, running whole write transactions.

  Writes of this process queue here instead of competing for SQLite's lock; writers in
  other processes wait up to `busy_timeout` (SQLite's busy handler).
  """

  def __init__(self, database: str, connect_kwargs: dict[str, Any], pragmas: list[str]) -> None:
    self._database = database
    self._connect_kwargs = connect_kwargs
    self._pragmas = pragmas
    self._conn: Optional[sqlite3.Connection] = None
    self._executor = concurrent.futures.ThreadPoolExecutor(
        max_workers=1, thread_name_prefix="adk_nb-sqlite-writer")

  def _connection(self) -> sqlite3.Connection:
    if self._conn is None:
      conn = sqlite3.connect(self._database, isolation_level=None, check_same_thread=False,
                             **self._connect_kwargs)
      for pragma in self._pragmas:
        try:
          conn.execute(pragma)
        except sqlite3.Error:
          pass  # e.g. a read-only file cannot switch to WAL; its writes fail with a clear error
      self._conn = conn
    return self._conn

  def _transaction(self, steps: Steps[T]) -> T:
    conn = self._connection()
    # IMMEDIATE takes the write lock up front, so a read-then-write never deadlocks.
    conn.execute("BEGIN IMMEDIATE")
    try:
      result = run_steps_sync(steps, conn)
      conn.execute("COMMIT")
      return result
    except BaseException:
      if conn.in_transaction:
        conn.execute("ROLLBACK")
      raise

  async def run(self, steps: Steps[T]) -> T:
    """Runs the steps as one transaction, committed, or rolled back if anything raises."""
    return await asyncio.get_running_loop().run_in_executor(self._executor, self._transaction, steps)

  def close(self) -> None:
    """Closes the connection and stops the thread (after queued writes finish)."""
    def close_connection() -> None:
      if self._conn is not None:
        self._conn.close()
        self._conn = None
    self._executor.submit(close_connection)
    self._executor.shutdown(wait=True)
