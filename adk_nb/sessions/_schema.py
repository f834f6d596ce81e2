"""DatabaseSessionService's tables on first use: created, migrated from an older release, or checked
read-only; and how an SQLite file that cannot be written is opened.

The tables themselves and the migration steps are declared in `_sql` (`metadata`, `MIGRATIONS`);
this module applies them, once per service, and refuses a database it cannot read: tables adk_nb
did not write (google-adk's are recognised and the move named), a newer schema version, or a
read-only file of an older one.
"""

from __future__ import annotations

import os
import urllib.parse
from typing import Callable

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from ._sql import MIGRATIONS, SCHEMA_VERSION, metadata
from ._storage_errors import SessionStorageError
from .google_adk_store import find_google_adk_store


def unwritable(path: str) -> bool:
  """True when an existing SQLite file, or the folder it would be made in, cannot be written."""
  path = os.path.abspath(path)
  folder = os.path.dirname(path)
  if os.path.exists(path):
    # access() reports EROFS on a read-only mount even to root.
    return not (os.access(path, os.W_OK) and os.access(folder, os.W_OK))
  return os.path.isdir(folder) and not os.access(folder, os.W_OK)


def read_only_url(url: sa.URL) -> sa.URL:
  """The SQLite URI that opens the file read-only (immutable on a read-only file system)."""
  path = os.path.abspath(url.database)
  query = {"mode": "ro", "uri": "true"}
  try:
    read_only_media = bool(os.statvfs(os.path.dirname(path)).f_flag & os.ST_RDONLY)
    unmerged_log = os.path.getsize(path + "-wal") > 0 if os.path.exists(path + "-wal") else False
  except OSError:
    read_only_media = unmerged_log = False
  if read_only_media and not unmerged_log:
    # Nobody can change it, so SQLite need not create a -shm file to read it. (With a
    # non-empty -wal left by a killed writer it must read the log: SQLite then uses the
    # -shm file beside it.)
    query["immutable"] = "1"
  return url.set(database="file:" + urllib.parse.quote(path), query=query)


async def prepare(engine: AsyncEngine, *, sqlite: bool, read_only: bool, where: str,
                  reason: Callable[[], str]) -> None:
  """Creates missing tables and migrates older ones (one transaction), or, for a read-only file,
  checks that they are there at this release's version. `where` and `reason()` are for messages."""
  async with engine.connect() as conn:
    if read_only:
      await conn.run_sync(check_tables_read_only, where, reason)
    elif sqlite:
      await conn.exec_driver_sql("BEGIN IMMEDIATE")
      try:
        await conn.run_sync(create_tables, where)
      except BaseException:
        await conn.exec_driver_sql("ROLLBACK")
        raise
      await conn.exec_driver_sql("COMMIT")
    else:
      async with conn.begin():
        # Serialises first-use table creation between processes.
        await conn.exec_driver_sql("SELECT pg_advisory_xact_lock(8127311)")
        await conn.run_sync(create_tables, where)


def create_tables(conn: sa.Connection, where: str) -> None:
  """Creates the missing tables, and brings an older schema to this version, in the caller's transaction."""
  existing = set(sa.inspect(conn).get_table_names())
  if "adk_nb_schema" not in existing and existing & {"sessions", "events"}:
    raise foreign_tables(conn, where)
  metadata.create_all(conn, checkfirst=True)
  row = conn.exec_driver_sql(
      "SELECT value FROM adk_nb_schema WHERE key = 'schema_version'").first()
  if row is None:
    conn.exec_driver_sql(
        f"INSERT INTO adk_nb_schema (key, value) VALUES ('schema_version', '{SCHEMA_VERSION}')")
    return
  found = int(row[0]) if row[0].isdigit() else -1
  if 0 < found < SCHEMA_VERSION:
    migrate(conn, found)
    return
  if found != SCHEMA_VERSION:
    raise SessionStorageError(
        f"The {where} has session schema version {row[0]!r}; this adk_nb release "
        f"reads version {SCHEMA_VERSION}. Upgrade adk_nb, or use a new database."
    )


def foreign_tables(conn: sa.Connection, where: str) -> SessionStorageError:
  """The error for session tables adk_nb did not write; google-adk's name the move."""
  found = find_google_adk_store(conn)
  if found is None:
    return SessionStorageError(
        f"The {where} already has 'sessions'/'events' tables that adk_nb did not "
        "create, in a layout it does not know; use a new database file or server database "
        "for adk_nb.")
  url = conn.engine.url
  url = url.set(drivername=url.get_backend_name()).render_as_string(hide_password=True)
  return SessionStorageError(
      f"The {where} holds {found.describe()}; adk_nb keeps sessions in its own "
      f"layout and has not touched those tables. To move them (lossless; google-adk's tables are kept "
      f"as a backup): `adk-nb migrate-sessions '{url}' --dry-run`, then without --dry-run. "
      "Or point adk_nb at another database.")


def check_tables_read_only(conn: sa.Connection, where: str, reason: Callable[[], str]) -> None:
  """What `create_tables` checks, for a file that cannot be written (nothing is created)."""
  existing = set(sa.inspect(conn).get_table_names())
  if "adk_nb_schema" not in existing and existing & {"sessions", "events"}:
    raise foreign_tables(conn, where)
  if "adk_nb_schema" not in existing:
    raise SessionStorageError(
        f"The {where} is open read-only and has no adk_nb session tables "
        f"({reason()}); point db_url at a database adk_nb wrote.")
  row = conn.exec_driver_sql(
      "SELECT value FROM adk_nb_schema WHERE key = 'schema_version'").first()
  if row is None or row[0] != str(SCHEMA_VERSION):
    raise SessionStorageError(
        f"The {where} has session schema version {row[0] if row else None!r} and is "
        f"open read-only ({reason()}), so it cannot be brought to version "
        f"{SCHEMA_VERSION}; open it once with a writable copy and this adk_nb release.")


def migrate(conn: sa.Connection, found: int) -> None:
  """Brings tables written by an older release to this layout, in the caller's transaction."""
  for version in range(found, SCHEMA_VERSION):
    for table, column, ddl in MIGRATIONS[version]:
      # A table dropped and recreated by create_all already has the column.
      if column not in {c["name"] for c in sa.inspect(conn).get_columns(table)}:
        conn.exec_driver_sql(ddl)
  conn.exec_driver_sql(
      f"UPDATE adk_nb_schema SET value = '{SCHEMA_VERSION}' WHERE key = 'schema_version'")
