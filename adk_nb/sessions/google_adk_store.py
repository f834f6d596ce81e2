"""Sessions that google-adk wrote, moved into adk_nb's table layout with nothing lost.

google-adk keeps sessions in tables named like adk_nb's (`sessions`, `events`, `app_states`,
`user_states`) with other columns, in three layouts: `SqliteSessionService` (what `adk run` and
`adk web` write to `AGENT_DIR/.adk/session.db`), `DatabaseSessionService` schema v1 (JSON event
data, SQLite or PostgreSQL) and schema v0 (pickled event actions). adk_nb refuses to open such a
database and names this module's command instead of guessing:

  adk-nb migrate-sessions URL --dry-run      # what would move, and where the backup goes
  adk-nb migrate-sessions URL                # in place: google-adk's tables are kept as google_adk_*
  adk-nb migrate-sessions URL --to URL2      # copy into another adk_nb store; URL is not touched
  adk-nb migrate-sessions URL --revert       # in place again: back to google-adk's tables

What moves: every session with its own state, every event (each row's JSON is kept as google-adk
stored it, with the id, invocation id and timestamp google-adk reads from its columns), app and
user state. Artifacts are not in these tables (google-adk keeps them in an artifact service) and
are not touched. Shared state rows start at revision 0 with no per-key revisions, as rows of an
adk_nb store from before revisions were tracked: the first write to a key records its revision.

In place, the whole move is one transaction: google-adk's tables are renamed to `google_adk_<name>`
(kept, unchanged, as the backup that `--revert` restores) and adk_nb's tables are created and filled.
An SQLite file is also copied to `<file>.google-adk-backup` before anything changes. Schema v0 is
refused: its event actions are Python pickles, and unpickling runs code; google-adk's own
`adk migrate session` brings such a database to v1 first.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import sqlite3
from pathlib import Path
from typing import Any, Optional

import sqlalchemy as sa

from ..errors import AdkNbError, codes
from ..events.event import Event
from . import _sql

__all__ = ["GoogleAdkStore", "MigrationError", "MigrationReport", "find_google_adk_store",
           "migrate_sessions"]

TABLES = ("sessions", "events", "app_states", "user_states", "adk_internal_metadata")
"""google-adk's session tables; in place they are kept as `google_adk_<name>`."""

BACKUP_PREFIX = "google_adk_"
REVERTED = "reverted"


class MigrationError(AdkNbError, RuntimeError):
  """The move could not be made; nothing was changed. The message says why and what to do."""

  error_code = codes.SESSION_STORAGE_ERROR


@dataclasses.dataclass(frozen=True)
class GoogleAdkStore:
  """What google-adk wrote in a database: its layout and how many rows each table holds."""

  layout: str
  """'SqliteSessionService', 'DatabaseSessionService schema v1' or 'DatabaseSessionService schema v0'."""
  sessions: int
  events: int
  app_states: int
  user_states: int

  def describe(self) -> str:
    return (f"google-adk's {self.layout} tables: {self.sessions} sessions, {self.events} events, "
            f"{self.app_states} app and {self.user_states} user state rows")


@dataclasses.dataclass(frozen=True)
class MigrationReport:
  """What `migrate_sessions` did (or, for a dry run, would do)."""

  found: GoogleAdkStore
  dry_run: bool
  target: str
  """Where the sessions are (or would be) afterwards: 'in place', or the other store's URL."""
  backup: Optional[str]
  """The SQLite file copy kept before an in-place move (None for PostgreSQL and for --to)."""
  kept_tables: tuple[str, ...]
  """google-adk's tables as kept after an in-place move (the backup that --revert restores)."""

  def lines(self) -> list[str]:
    if self.target == REVERTED:
      verb = "Would put" if self.dry_run else "Put"
      out = [f"{verb} back google-adk's tables ({self.found.sessions} sessions, "
             f"{self.found.events} events) and {'drop' if self.dry_run else 'dropped'} adk_nb's "
             "session tables; anything adk_nb wrote since the move is not carried back."]
      if self.dry_run:
        out.append("Nothing was changed (dry run); run again without --dry-run to revert.")
      return out
    verb = "Would move" if self.dry_run else "Moved"
    out = [f"{verb} {self.found.sessions} sessions and {self.found.events} events "
           f"(+ {self.found.app_states} app and {self.found.user_states} user state rows) from "
           f"{self.found.layout} into adk_nb's layout, {self.target}."]
    if self.kept_tables:
      out.append(f"google-adk's tables {'would be' if self.dry_run else 'are'} kept as "
                 + ", ".join(self.kept_tables) + " (`--revert` puts them back).")
    if self.backup:
      out.append(f"A copy of the file {'would be' if self.dry_run else 'was'} kept at {self.backup}.")
    if self.dry_run:
      out.append("Nothing was changed (dry run); run again without --dry-run to move them.")
    return out


def find_google_adk_store(conn: sa.Connection) -> Optional[GoogleAdkStore]:
  """google-adk's session tables in this database, or None (run it inside `run_sync`)."""
  inspector = sa.inspect(conn)
  tables = set(inspector.get_table_names())
  if "adk_nb_schema" in tables or "events" not in tables:
    return None
  columns = {c["name"] for c in inspector.get_columns("events")}
  if "event_data" in columns:
    layout = ("DatabaseSessionService schema v1" if "adk_internal_metadata" in tables
              else "SqliteSessionService")
  elif "actions" in columns:
    layout = "DatabaseSessionService schema v0"
  else:
    return None
  counts = [conn.exec_driver_sql(f"SELECT count(*) FROM {t}").scalar_one() if t in tables else 0
            for t in ("sessions", "events", "app_states", "user_states")]
  return GoogleAdkStore(layout, *counts)


def _timestamp(value: Any, naive_is_utc: bool) -> float:
  """google-adk's timestamp column as seconds: a REAL, or a DATETIME (text on SQLite)."""
  if isinstance(value, (int, float)):
    return float(value)
  if isinstance(value, str):
    value = datetime.datetime.fromisoformat(value)
  if value.tzinfo is None and naive_is_utc:
    value = value.replace(tzinfo=datetime.timezone.utc)
  return value.timestamp()


def _json_object(value: Any, what: str) -> dict[str, Any]:
  if value is None:
    return {}
  if isinstance(value, (str, bytes)):
    try:
      value = json.loads(value)
    except ValueError as exc:
      raise MigrationError(f"{what} is not valid JSON ({exc}); nothing was changed. Fix or "
                           "delete that row in google-adk's tables, then run again.") from None
  if not isinstance(value, dict):
    raise MigrationError(f"{what} is not a JSON object; nothing was changed. Fix or delete that "
                         "row in google-adk's tables, then run again.")
  return value


@dataclasses.dataclass
class _Rows:
  sessions: list[dict[str, Any]]
  events: list[dict[str, Any]]
  app_states: list[dict[str, Any]]
  user_states: list[dict[str, Any]]


def _read(conn: sa.Connection, found: GoogleAdkStore) -> _Rows:
  """google-adk's rows, converted and checked: an event adk_nb cannot read stops the move."""
  sqlite = conn.dialect.name == "sqlite"
  # google-adk's own read order: SqliteSessionService breaks timestamp ties by insertion
  # (rowid), DatabaseSessionService by event id.
  tie = "rowid" if found.layout == "SqliteSessionService" else "id"
  v1 = found.layout != "SqliteSessionService"
  fetch = lambda sql: [dict(r._mapping) for r in conn.exec_driver_sql(sql)]
  sessions = []
  for row in fetch("SELECT app_name, user_id, id, state, create_time, update_time FROM sessions"):
    key = (row["app_name"], row["user_id"], row["id"])
    sessions.append({
        "app_name": key[0], "user_id": key[1], "id": key[2],
        "state": json.dumps(_json_object(row["state"], f"The state of session {key}")),
        # DatabaseSessionService reads a session's naive DATETIMEs as UTC.
        "create_time": _timestamp(row["create_time"], naive_is_utc=True),
        "update_time": _timestamp(row["update_time"], naive_is_utc=True)})
  events = []
  for row in fetch("SELECT id, app_name, user_id, session_id, invocation_id, timestamp, event_data"
                   " FROM events ORDER BY app_name, user_id, session_id, timestamp, " + tie):
    what = f"Event {row['id']!r} of session {row['session_id']!r}"
    data = _json_object(row["event_data"], what)
    # The columns win over the JSON, as when google-adk reads the row; the event's naive
    # DATETIME is read as local time there (datetime.timestamp()).
    data.update(id=row["id"], invocation_id=row["invocation_id"],
                timestamp=_timestamp(row["timestamp"], naive_is_utc=not v1))
    text = json.dumps(data)
    try:
      Event.model_validate_json(text)
    except ValueError as exc:
      raise MigrationError(f"{what} cannot be read as an event ({str(exc).splitlines()[0]}); "
                           "nothing was changed.") from None
    events.append({"app": row["app_name"], "user": row["user_id"], "sid": row["session_id"],
                   "eid": row["id"], "ts": data["timestamp"], "data": text})
  app_states = [{"app": r["app_name"], "state": json.dumps(_json_object(r["state"], "App state")),
                 "now": _timestamp(r["update_time"], naive_is_utc=True)}
                for r in fetch("SELECT app_name, state, update_time FROM app_states")]
  user_states = [{"app": r["app_name"], "user": r["user_id"],
                  "state": json.dumps(_json_object(r["state"], "User state")),
                  "now": _timestamp(r["update_time"], naive_is_utc=True)}
                 for r in fetch("SELECT app_name, user_id, state, update_time FROM user_states")]
  return _Rows(sessions, events, app_states, user_states)


_INSERT = {
    "sessions": "INSERT INTO sessions (app_name, user_id, id, state, create_time, update_time)"
                " VALUES (:app_name, :user_id, :id, :state, :create_time, :update_time)",
    "events": "INSERT INTO events (app_name, user_id, session_id, id, timestamp, data)"
              " VALUES (:app, :user, :sid, :eid, :ts, :data)",
    "app_states": "INSERT INTO app_states (app_name, state, update_time, revision, key_revisions)"
                  " VALUES (:app, :state, :now, 0, '{}')",
    "user_states": "INSERT INTO user_states (app_name, user_id, state, update_time, revision,"
                   " key_revisions) VALUES (:app, :user, :state, :now, 0, '{}')",
}


def _write(conn: sa.Connection, rows: _Rows) -> None:
  """adk_nb's tables (created when missing) filled with the rows, in the caller's transaction."""
  tables = set(sa.inspect(conn).get_table_names())
  _sql.metadata.create_all(conn, checkfirst=True)
  if "adk_nb_schema" not in tables:
    conn.execute(sa.text("INSERT INTO adk_nb_schema (key, value) VALUES ('schema_version', :v)"),
                 {"v": str(_sql.SCHEMA_VERSION)})
  for table in ("sessions", "events", "app_states", "user_states"):
    values = getattr(rows, table)
    if values:
      conn.execute(sa.text(_INSERT[table]), values)


def _rename(conn: sa.Connection, old: str, new: str) -> None:
  conn.exec_driver_sql(f'ALTER TABLE "{old}" RENAME TO "{new}"')
  if conn.dialect.name == "postgresql":
    # Index names (a primary key's among them) are per schema there, not per table:
    # keep them from colliding with the indexes of the tables created in their place.
    for (index,) in conn.execute(sa.text(
        "SELECT indexname FROM pg_indexes WHERE tablename = :t AND schemaname = current_schema()"),
        {"t": new}).all():
      swapped = (BACKUP_PREFIX + index if not index.startswith(BACKUP_PREFIX)
                 else index[len(BACKUP_PREFIX):])
      conn.exec_driver_sql(f'ALTER INDEX "{index}" RENAME TO "{swapped}"')


def _sqlite_path(url: sa.URL) -> Optional[Path]:
  if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
    return None
  return Path(url.database)


def _backup_path(path: Path) -> Path:
  candidate = path.with_name(path.name + ".google-adk-backup")
  n = 1
  while candidate.exists():
    n += 1
    candidate = path.with_name(f"{path.name}.google-adk-backup.{n}")
  return candidate


async def _run(url: str, work):
  """Runs `work(sync_connection)` in one write transaction on the database at `url`.

  An SQLite file is opened with the standard library's driver (no event loop is needed for a
  one-off command, and its backup API copies the file under the same lock); PostgreSQL through
  adk_nb's async driver.
  """
  from .database_session_service import normalize_db_url

  target = sa.make_url(normalize_db_url(url))
  if target.get_backend_name() == "sqlite":
    engine = sa.create_engine(sa.URL.create("sqlite", database=target.database),
                              connect_args={"isolation_level": None})
    try:
      with engine.connect() as conn:
        conn.exec_driver_sql("BEGIN IMMEDIATE")
        try:
          result = work(conn)
        except BaseException:
          conn.exec_driver_sql("ROLLBACK")
          raise
        conn.exec_driver_sql("COMMIT")
        return result
    finally:
      engine.dispose()
  from sqlalchemy.ext.asyncio import create_async_engine

  engine = create_async_engine(target)
  try:
    async with engine.connect() as conn:
      async with conn.begin():
        return await conn.run_sync(work)
  finally:
    await engine.dispose()


def _nothing_to_move(conn: sa.Connection, where: str) -> MigrationError:
  tables = set(sa.inspect(conn).get_table_names())
  if "adk_nb_schema" in tables and any(BACKUP_PREFIX + t in tables for t in TABLES):
    return MigrationError(f"{where} was already moved to adk_nb's layout (google-adk's tables are "
                          "kept as google_adk_*); `--revert` puts them back.")
  if "adk_nb_schema" in tables:
    return MigrationError(f"{where} already holds adk_nb's session tables and none of "
                          "google-adk's; there is nothing to move.")
  return MigrationError(f"{where} holds no google-adk session tables (sessions/events written by "
                        "SqliteSessionService or DatabaseSessionService); there is nothing to move.")


def _refuse_v0(found: GoogleAdkStore) -> None:
  if found.layout.endswith("v0"):
    raise MigrationError(
        "This database uses google-adk's schema v0, whose event actions are Python pickles; "
        "adk_nb does not unpickle them (that runs code). Bring it to schema v1 with google-adk's "
        "own `adk migrate session` command, then run this again. Nothing was changed.")


async def migrate_sessions(url: str, *, to: Optional[str] = None, dry_run: bool = False,
                           revert: bool = False) -> MigrationReport:
  """Moves google-adk's sessions at `url` into adk_nb's layout (see the module docstring).

  Raises MigrationError, having changed nothing, when there is nothing to move or a row cannot
  be read.
  """
  from .database_session_service import _redact

  where = f"The database {_redact(url)}"
  if revert:
    return await _revert(url, where, dry_run)
  found_box: list[Any] = []

  def inspect_and_read(conn: sa.Connection) -> _Rows:
    found = find_google_adk_store(conn)
    if found is None:
      raise _nothing_to_move(conn, where)
    _refuse_v0(found)
    found_box.append(found)
    return _read(conn, found)

  if to is not None:
    rows = await _run(url, inspect_and_read)
    found = found_box[0]
    report = MigrationReport(found, dry_run, _redact(to), None, ())
    if not dry_run:
      await _run(to, lambda conn: _into_other(conn, rows, _redact(to)))
    return report

  path = _sqlite_path(sa.make_url(url))
  backup = _backup_path(path) if path is not None else None

  def in_place(conn: sa.Connection) -> GoogleAdkStore:
    rows = inspect_and_read(conn)
    if dry_run:
      return found_box[0]
    if backup is not None:
      # Copied by a second (reading) connection while this one holds the write lock, so the
      # copy is exactly what is moved.
      source, target = sqlite3.connect(path), sqlite3.connect(backup)
      try:
        source.backup(target)
      finally:
        source.close()
        target.close()
    present = set(sa.inspect(conn).get_table_names())
    for table in TABLES:
      if table in present:
        _rename(conn, table, BACKUP_PREFIX + table)
    _write(conn, rows)
    return found_box[0]

  found = await _run(url, in_place)
  kept = tuple(BACKUP_PREFIX + t for t in TABLES if t != "adk_internal_metadata" or
               found.layout.endswith("v1"))
  return MigrationReport(found, dry_run, "in place", str(backup) if backup else None, kept)


def _into_other(conn: sa.Connection, rows: _Rows, where: str) -> None:
  tables = set(sa.inspect(conn).get_table_names())
  if "adk_nb_schema" not in tables and tables & {"sessions", "events"}:
    raise MigrationError(f"The target {where} has session tables adk_nb did not create; "
                         "choose an empty database or an adk_nb store.")
  if "sessions" in tables:
    taken = {tuple(r) for r in conn.exec_driver_sql("SELECT app_name, user_id, id FROM sessions")}
    clash = [s for s in rows.sessions if (s["app_name"], s["user_id"], s["id"]) in taken]
    if clash:
      first = clash[0]
      raise MigrationError(
          f"The target {where} already has {len(clash)} of these sessions (first: app "
          f"{first['app_name']!r}, user {first['user_id']!r}, id {first['id']!r}); nothing was "
          "written. Choose another target, or delete those sessions there first.")
    for table, keys in (("app_states", ("app",)), ("user_states", ("app", "user"))):
      existing = {tuple(r) for r in conn.exec_driver_sql(
          f"SELECT app_name{', user_id' if table == 'user_states' else ''} FROM {table}")}
      mine = getattr(rows, table)
      if any(tuple(r[k] for k in keys) in existing for r in mine):
        raise MigrationError(
            f"The target {where} already has {table.replace('_', ' ')} for these apps or users; "
            "merging shared state is not done automatically, so nothing was written. Use an "
            "empty target.")
  _write(conn, rows)


async def _revert(url: str, where: str, dry_run: bool) -> MigrationReport:
  def work(conn: sa.Connection) -> GoogleAdkStore:
    tables = set(sa.inspect(conn).get_table_names())
    kept = [t for t in TABLES if BACKUP_PREFIX + t in tables]
    if not kept or "adk_nb_schema" not in tables:
      raise MigrationError(f"{where} has no google-adk tables kept by an in-place move "
                           "(google_adk_sessions, ...); there is nothing to revert.")
    found = _kept_store(conn)
    if dry_run:
      return found
    for table in reversed(_sql.metadata.sorted_tables):  # every table adk_nb made
      table = table.name
      if table in tables:
        conn.exec_driver_sql(f'DROP TABLE "{table}"')
    for table in kept:
      _rename(conn, BACKUP_PREFIX + table, table)
    return found

  found = await _run(url, work)
  return MigrationReport(found, dry_run, REVERTED, None, ())


def _kept_store(conn: sa.Connection) -> GoogleAdkStore:
  """Row counts of google-adk's tables as kept by an in-place move."""
  tables = set(sa.inspect(conn).get_table_names())
  counts = [conn.exec_driver_sql(f"SELECT count(*) FROM {BACKUP_PREFIX}{t}").scalar_one()
            if BACKUP_PREFIX + t in tables else 0
            for t in ("sessions", "events", "app_states", "user_states")]
  layout = ("DatabaseSessionService schema v1" if BACKUP_PREFIX + "adk_internal_metadata" in tables
            else "SqliteSessionService")
  return GoogleAdkStore(layout, *counts)
