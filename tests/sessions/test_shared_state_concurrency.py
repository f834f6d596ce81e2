"""`app:` and `user:` state: a write computed from a value another session changed is refused.

Each test runs on every store (memory, an SQLite file, PostgreSQL); the database stores
use two services on one database, as two kernels would.
"""

from __future__ import annotations

import asyncio
import pathlib
import sqlite3

import pytest

from adk_nb.errors.stale_session_error import StaleSessionError
from adk_nb.events import Event, EventActions
from adk_nb.sessions import DatabaseSessionService

APP, USER = "shop", "ada"
V1_DUMP = pathlib.Path(__file__).parent / "data" / "schema_v1.sql"


def write(delta: dict) -> Event:
  return Event(invocation_id="i", author="agent", actions=EventActions(state_delta=delta))


async def load(service, session):
  return await service.get_session(app_name=APP, user_id=session.user_id, session_id=session.id)


async def test_a_user_key_changed_by_another_session_is_not_overwritten(two_services):
  first, second = two_services
  a = await first.create_session(app_name=APP, user_id=USER, state={"user:visits": 0})
  b = await second.create_session(app_name=APP, user_id=USER)
  b = await load(second, b)  # both copies read visits = 0
  await first.append_event(a, write({"user:visits": a.state["user:visits"] + 1}))
  with pytest.raises(StaleSessionError, match=r"'user:visits'.*user 'ada'.*get_session") as info:
    await second.append_event(b, write({"user:visits": b.state["user:visits"] + 1, "note": "b"}))
  assert info.value.scope == "user" and info.value.keys == ["user:visits"]
  # Nothing of the refused event was written: not its event, not its session key.
  stored_b = await load(first, b)
  assert stored_b.events == [] and "note" not in stored_b.state and stored_b.state["user:visits"] == 1
  # Reloaded, the write goes through and counts both visits.
  b = await load(second, b)
  await second.append_event(b, write({"user:visits": b.state["user:visits"] + 1}))
  assert (await load(first, a)).state["user:visits"] == 2


async def test_an_app_key_is_protected_across_users(two_services):
  first, second = two_services
  a = await first.create_session(app_name=APP, user_id="ada", state={"app:stock": 5})
  b = await second.create_session(app_name=APP, user_id="bob")
  b = await load(second, b)
  await first.append_event(a, write({"app:stock": 4}))
  with pytest.raises(StaleSessionError, match="'app:stock'.*app 'shop'") as info:
    await second.append_event(b, write({"app:stock": 4}))
  assert info.value.scope == "app"
  assert (await load(first, a)).state["app:stock"] == 4


async def test_writes_of_other_keys_go_through_and_the_writer_sees_the_row_as_written(two_services):
  first, second = two_services
  a = await first.create_session(app_name=APP, user_id=USER)
  b = await load(second, await second.create_session(app_name=APP, user_id=USER))
  await first.append_event(a, write({"user:lang": "fr"}))
  await second.append_event(b, write({"user:theme": "dark"}))  # another key: no conflict
  # b's copy now holds the user row as it wrote it, including a's change...
  assert b.state["user:lang"] == "fr" and b.state["user:theme"] == "dark"
  # ...so it may now write that key too, and keep writing without reloading.
  await second.append_event(b, write({"user:lang": "de"}))
  await second.append_event(b, write({"user:lang": "en"}))
  assert (await load(first, a)).state["user:lang"] == "en"


async def test_a_refused_write_changes_neither_scope(two_services):
  first, second = two_services
  a = await first.create_session(app_name=APP, user_id=USER)
  b = await load(second, await second.create_session(app_name=APP, user_id=USER))
  await first.append_event(a, write({"user:n": 1}))
  with pytest.raises(StaleSessionError):
    await second.append_event(b, write({"app:last": "b", "user:n": 1}))
  assert "app:last" not in (await load(first, a)).state


async def test_concurrent_increments_with_reload_and_retry_lose_no_update(two_services):
  first, second = two_services
  sessions = [await (first, second)[n % 2].create_session(app_name=APP, user_id=USER, session_id=f"s{n}")
              for n in range(6)]
  all_read = asyncio.Barrier(len(sessions))
  refused = 0

  async def visit(n, session):
    nonlocal refused
    service = (first, second)[n % 2]
    copy = await load(service, session)
    await all_read.wait()  # every copy has read the counter before anyone writes
    while True:
      try:
        await service.append_event(copy, write({"user:visits": copy.state.get("user:visits", 0) + 1}))
        return
      except StaleSessionError:
        refused += 1
        copy = await load(service, session)

  await asyncio.gather(*(visit(n, s) for n, s in enumerate(sessions)))
  assert (await load(first, sessions[0])).state["user:visits"] == len(sessions)
  assert refused >= len(sessions) - 1  # all but the first writer read a stale counter


# -- a database made by the previous release -----------------------------------

async def test_a_schema_1_sqlite_file_is_migrated_in_place_and_keeps_its_data(tmp_path):
  path = tmp_path / "old.db"
  with sqlite3.connect(path) as conn:
    conn.executescript(V1_DUMP.read_text())
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    session = await service.get_session(app_name=APP, user_id=USER, session_id="s1")
    assert session.state == {"k": 1, "app:theme": "dark", "user:visits": 4}
    assert [e.id for e in session.events] == ["e1"]
    other = await service.create_session(app_name=APP, user_id=USER)
    await service.append_event(other, write({"user:visits": 5}))
    with pytest.raises(StaleSessionError, match="user:visits"):
      await service.append_event(session, write({"user:visits": 5}))
  with sqlite3.connect(path) as conn:
    assert conn.execute("SELECT value FROM adk_nb_schema").fetchall() == [("2",)]
    assert conn.execute("SELECT revision FROM user_states").fetchall() == [(1,)]


async def test_a_schema_1_postgresql_database_is_migrated(pg_url):
  import asyncpg

  async with DatabaseSessionService(pg_url) as service:
    await service.create_session(app_name=APP, user_id=USER, session_id="s1",
                                 state={"user:visits": 4, "app:theme": "dark"})
  # Make it what release 1 wrote: no revision columns, schema version 1.
  conn = await asyncpg.connect(pg_url)
  try:
    for table in ("app_states", "user_states"):
      await conn.execute(f"ALTER TABLE {table} DROP COLUMN revision, DROP COLUMN key_revisions")
    await conn.execute("UPDATE adk_nb_schema SET value = '1'")
  finally:
    await conn.close()
  async with DatabaseSessionService(pg_url) as service:
    session = await service.get_session(app_name=APP, user_id=USER, session_id="s1")
    assert session.state == {"user:visits": 4, "app:theme": "dark"}
    other = await service.create_session(app_name=APP, user_id=USER)
    await service.append_event(other, write({"user:visits": 5}))
    with pytest.raises(StaleSessionError, match="user:visits"):
      await service.append_event(session, write({"user:visits": 5}))
    assert (await load(service, session)).state["user:visits"] == 5
