"""DatabaseSessionService beyond the shared contract: URLs, durability, schema and faults."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest
from google.genai import types

from adk_nb.events.event import Event
from adk_nb.events.event_actions import EventActions
from adk_nb.sessions import DatabaseSessionService, GetSessionConfig
from adk_nb.sessions.database_session_service import SessionStorageError, normalize_db_url

APP, USER = "shop", "ada"


def text_event(text: str, delta: dict | None = None, **kw) -> Event:
  return Event(author="agent", content=types.Content(role="model", parts=[types.Part(text=text)]),
               actions=EventActions(state_delta=delta or {}), **kw)


def sqlite_rows(path, sql):
  with sqlite3.connect(path) as db:
    return db.execute(sql).fetchall()


@pytest.mark.parametrize("url, expected", [
    ("sqlite:///a.db", "sqlite+aiosqlite:///a.db"),
    ("sqlite+aiosqlite:///a.db", "sqlite+aiosqlite:///a.db"),
    ("sqlite://", "sqlite+aiosqlite://"),
    ("postgresql://u:p@h/db", "postgresql+asyncpg://u:p@h/db"),
    ("postgres://u@h:5433/db", "postgresql+asyncpg://u@h:5433/db"),
    ("postgresql+asyncpg://u@h/db", "postgresql+asyncpg://u@h/db"),
])
def test_url_forms_map_to_the_async_drivers(url, expected):
  assert normalize_db_url(url) == expected


@pytest.mark.parametrize("url, hint", [
    ("mysql://u@h/db", "sqlite:///path.db"),
    ("postgresql+psycopg2://u@h/db", "postgresql://"),
    ("sessions.db", "sqlite:///"),
])
def test_unsupported_urls_name_the_form_to_use(url, hint):
  with pytest.raises(ValueError, match=hint.replace("+", r"\+")):
    DatabaseSessionService(url)


async def test_both_sqlite_url_forms_open_the_same_file(tmp_path):
  path = tmp_path / "s.db"
  async with DatabaseSessionService(f"sqlite:///{path}") as one:
    session = await one.create_session(app_name=APP, user_id=USER, state={"k": 1})
    await one.append_event(session, text_event("kept"))
  async with DatabaseSessionService(f"sqlite+aiosqlite:///{path}") as two:
    loaded = await two.get_session(app_name=APP, user_id=USER, session_id=session.id)
  assert loaded.state == {"k": 1} and [e.text for e in loaded.events] == ["kept"]


async def test_in_memory_sqlite_works_for_quick_experiments():
  async with DatabaseSessionService("sqlite://") as service:
    session = await service.create_session(app_name=APP, user_id=USER)
    await service.append_event(session, text_event("hi"))
    assert len((await service.get_session(app_name=APP, user_id=USER, session_id=session.id)).events) == 1


async def test_sessions_survive_a_new_service_on_the_same_database(db_url):
  async with DatabaseSessionService(db_url) as first:
    session = await first.create_session(app_name=APP, user_id=USER, state={"app:a": 1})
    for i in range(3):
      await first.append_event(session, text_event(str(i), {"n": i, "user:u": i}))
  async with DatabaseSessionService(db_url) as second:
    loaded = await second.get_session(app_name=APP, user_id=USER, session_id=session.id)
    assert [e.text for e in loaded.events] == ["0", "1", "2"]
    assert loaded.state == {"n": 2, "user:u": 2, "app:a": 1}
    # The reloaded copy is current: it can append.
    await second.append_event(loaded, text_event("3"))


async def test_sqlite_file_uses_wal_and_records_the_schema_version(tmp_path):
  path = tmp_path / "s.db"
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    await service.create_session(app_name=APP, user_id=USER)
  assert sqlite_rows(path, "PRAGMA journal_mode") == [("wal",)]
  assert sqlite_rows(path, "SELECT key, value FROM adk_nb_schema") == [("schema_version", "2")]
  tables = {r[0] for r in sqlite_rows(path, "SELECT name FROM sqlite_master WHERE type='table'")}
  assert {"sessions", "events", "app_states", "user_states", "adk_nb_schema"} <= tables


async def test_events_are_stored_as_one_json_document_each(tmp_path):
  path = tmp_path / "s.db"
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    session = await service.create_session(app_name=APP, user_id=USER)
    event = text_event("hi", {"k": 1, "temp:t": 2})
    await service.append_event(session, event)
  [(data,)] = sqlite_rows(path, "SELECT data FROM events ORDER BY seq")
  import json
  stored = json.loads(data)
  assert stored["content"]["parts"] == [{"text": "hi"}]
  assert stored["actions"]["stateDelta"] == {"k": 1}
  assert stored["id"] == event.id


async def test_a_newer_schema_version_is_refused_with_the_fix(tmp_path):
  path = tmp_path / "s.db"
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    await service.create_session(app_name=APP, user_id=USER)
  with sqlite3.connect(path) as db:
    db.execute("UPDATE adk_nb_schema SET value = '99'")
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    with pytest.raises(SessionStorageError, match="Upgrade adk_nb"):
      await service.list_sessions(app_name=APP)


async def test_tables_of_another_tool_are_not_reused(tmp_path):
  path = tmp_path / "adk.db"
  with sqlite3.connect(path) as db:
    db.execute("CREATE TABLE sessions (id TEXT, whatever TEXT)")
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    with pytest.raises(SessionStorageError, match="new database"):
      await service.create_session(app_name=APP, user_id=USER)


async def test_state_that_is_not_json_is_refused_and_nothing_is_written(db_url):
  async with DatabaseSessionService(db_url) as service:
    session = await service.create_session(app_name=APP, user_id=USER)
    with pytest.raises(ValueError, match="JSON"):
      await service.append_event(session, text_event("x", {"k": object()}))
    with pytest.raises(ValueError, match="JSON"):
      await service.create_session(app_name=APP, user_id=USER, state={"k": object()})
    loaded = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    assert loaded.events == [] and loaded.state == {}
    assert len((await service.list_sessions(app_name=APP)).sessions) == 1


async def test_the_same_event_cannot_be_stored_twice(db_url):
  async with DatabaseSessionService(db_url) as service:
    session = await service.create_session(app_name=APP, user_id=USER)
    event = text_event("once", {"k": 1})
    await service.append_event(session, event)
    again = event.model_copy(update={"actions": EventActions(state_delta={"k": 2})})
    with pytest.raises(ValueError, match="already stored"):
      await service.append_event(session, again)
    loaded = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    assert [e.id for e in loaded.events] == [event.id] and loaded.state == {"k": 1}


async def test_ids_longer_than_the_key_columns_are_refused_the_same_way_on_sqlite_and_postgresql(db_url):
  """SQLite would store a 300-character id that PostgreSQL rejects; both refuse it up front, naming the limit."""
  async with DatabaseSessionService(db_url) as service:
    with pytest.raises(ValueError, match=r"user_id is 200 characters.*at most 128"):
      await service.create_session(app_name=APP, user_id="u" * 200)
    with pytest.raises(ValueError, match=r"session_id is 300 characters.*at most 128"):
      await service.create_session(app_name=APP, user_id=USER, session_id="s" * 300)
    assert (await service.list_sessions(app_name=APP)).sessions == []
    session = await service.create_session(app_name=APP, user_id=USER, state={"k": 0})
    with pytest.raises(ValueError, match=r"event id is 129 characters.*at most 128"):
      await service.append_event(session, text_event("x", {"k": 1}, id="e" * 129))
    loaded = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    assert loaded.events == [] and loaded.state == {"k": 0}
    await service.append_event(loaded, text_event("fine", {"k": 2}, id="e" * 128))


# -- faults -------------------------------------------------------------------


async def test_a_read_only_file_fails_clearly_and_writes_nothing(tmp_path):
  path = tmp_path / "s.db"
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    session = await service.create_session(app_name=APP, user_id=USER)
    await service.append_event(session, text_event("before"))
  # `mode=ro` is how SQLite sees a file it may not write (root ignores chmod).
  async with DatabaseSessionService(f"sqlite:///file:{path}?mode=ro&uri=true") as read_only:
    loaded = await read_only.get_session(app_name=APP, user_id=USER, session_id=session.id)
    assert [e.text for e in loaded.events] == ["before"]
    with pytest.raises(SessionStorageError, match="read-only.*nothing was written"):
      await read_only.append_event(loaded, text_event("after", {"k": 1}))
    with pytest.raises(SessionStorageError, match="read-only"):
      await read_only.create_session(app_name=APP, user_id=USER)
  assert [r[0] for r in sqlite_rows(path, "SELECT count(*) FROM events")] == [1]
  assert sqlite_rows(path, "SELECT state FROM sessions") == [("{}",)]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only files anyway")
async def test_a_chmod_read_only_directory_fails_clearly(tmp_path):
  path = tmp_path / "s.db"
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    session = await service.create_session(app_name=APP, user_id=USER)
  for p in tmp_path.iterdir():
    p.chmod(0o444)
  tmp_path.chmod(0o555)
  try:
    async with DatabaseSessionService(f"sqlite:///{path}") as service:
      with pytest.raises(SessionStorageError):
        loaded = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
        await service.append_event(loaded, text_event("x"))
  finally:
    tmp_path.chmod(0o755)


async def test_a_corrupt_event_row_names_the_row_and_the_fix(tmp_path):
  path = tmp_path / "s.db"
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    session = await service.create_session(app_name=APP, user_id=USER)
    for text in ("a", "b", "c"):
      await service.append_event(session, text_event(text))
    [(seq,)] = sqlite_rows(path, "SELECT seq FROM events ORDER BY seq LIMIT 1 OFFSET 1")
    with sqlite3.connect(path) as db:
      db.execute("UPDATE events SET data = '{\"content\": tru' WHERE seq = ?", (seq,))
    with pytest.raises(SessionStorageError, match=rf"seq={seq}.*DELETE FROM events WHERE seq = {seq}"):
      await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    with sqlite3.connect(path) as db:
      db.execute(f"DELETE FROM events WHERE seq = {seq}")
    loaded = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    assert [e.text for e in loaded.events] == ["a", "c"]


async def test_a_corrupt_state_row_is_reported_not_silently_reset(tmp_path):
  path = tmp_path / "s.db"
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    session = await service.create_session(app_name=APP, user_id=USER, state={"k": 1})
    with sqlite3.connect(path) as db:
      db.execute("UPDATE sessions SET state = 'not json'")
    with pytest.raises(SessionStorageError, match="Corrupt row.*state of session"):
      await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    with pytest.raises(SessionStorageError, match="Corrupt row"):
      await service.append_event(session, text_event("x", {"k": 2}))
  assert sqlite_rows(path, "SELECT count(*) FROM events") == [(0,)]


async def test_a_missing_table_fails_clearly_writes_nothing_and_can_be_recreated(tmp_path):
  path = tmp_path / "s.db"
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    session = await service.create_session(app_name=APP, user_id=USER)
    await service.append_event(session, text_event("a", {"k": 1}))
    before = sqlite_rows(path, "SELECT state, update_time FROM sessions")
    with sqlite3.connect(path) as db:
      db.execute("DROP TABLE events")
    with pytest.raises(SessionStorageError, match="missing.*prepare_tables"):
      await service.append_event(session, text_event("b", {"k": 2}))
    assert sqlite_rows(path, "SELECT state, update_time FROM sessions") == before
    await service.prepare_tables()
    loaded = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    assert loaded.events == [] and loaded.state == {"k": 1}


async def test_a_missing_table_on_postgresql_fails_clearly(pg_url):
  import asyncpg

  async with DatabaseSessionService(pg_url) as service:
    session = await service.create_session(app_name=APP, user_id=USER)
    conn = await asyncpg.connect(pg_url)
    try:
      await conn.execute("DROP TABLE events")
    finally:
      await conn.close()
    with pytest.raises(SessionStorageError, match="missing"):
      await service.append_event(session, text_event("b", {"k": 2}))
    loaded = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    assert loaded is None or loaded.state == {}


async def test_an_unreachable_server_names_what_to_check():
  import socket

  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]  # nothing listens here once the socket closes
  async with DatabaseSessionService(f"postgresql://u:secret@127.0.0.1:{port}/db") as service:
    with pytest.raises(SessionStorageError, match="unreachable.*server is running") as info:
      await service.create_session(app_name=APP, user_id=USER)
  assert "secret" not in str(info.value)


async def test_a_file_that_is_not_a_database_is_reported(tmp_path):
  path = tmp_path / "notes.db"
  path.write_bytes(b"this is a text file, not SQLite" * 100)
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    with pytest.raises(SessionStorageError, match="not a valid SQLite database"):
      await service.list_sessions(app_name=APP)


async def test_a_killed_process_loses_nothing_it_committed(tmp_path):
  path = tmp_path / "s.db"
  script = textwrap.dedent(f"""
      import asyncio, os, signal
      from google.genai import types
      from adk_nb.events.event import Event
      from adk_nb.events.event_actions import EventActions
      from adk_nb.sessions import DatabaseSessionService

      async def main():
        service = DatabaseSessionService({f'sqlite:///{path}'!r})
        session = await service.create_session(app_name="shop", user_id="ada", session_id="s")
        for i in range(5):
          await service.append_event(session, Event(
              author="agent", content=types.Content(parts=[types.Part(text=str(i))]),
              actions=EventActions(state_delta={{"n": i}})))
        os.kill(os.getpid(), signal.SIGKILL)

      asyncio.run(main())
  """)
  proc = subprocess.run([sys.executable, "-c", script], capture_output=True,
                        cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
  assert proc.returncode == -9, proc.stderr.decode()[-2000:]
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    loaded = await service.get_session(app_name=APP, user_id=USER, session_id="s")
  assert [e.text for e in loaded.events] == ["0", "1", "2", "3", "4"]
  assert loaded.state == {"n": 4}


# -- reloading (the Runner reloads the session every turn) ------------------------------


async def test_reloads_see_what_other_services_appended_deleted_and_recreated(db_url):
  async with DatabaseSessionService(db_url) as mine, DatabaseSessionService(db_url) as other:
    session = await mine.create_session(app_name=APP, user_id=USER, session_id="s")
    await mine.append_event(session, text_event("a"))
    assert [e.text for e in (await mine.get_session(app_name=APP, user_id=USER, session_id="s")).events] == ["a"]
    theirs = await other.get_session(app_name=APP, user_id=USER, session_id="s")
    await other.append_event(theirs, text_event("b"))
    loaded = await mine.get_session(app_name=APP, user_id=USER, session_id="s")
    assert [e.text for e in loaded.events] == ["a", "b"]
    # Deleted and created again elsewhere: the old history must not come back.
    await other.delete_session(app_name=APP, user_id=USER, session_id="s")
    again = await other.create_session(app_name=APP, user_id=USER, session_id="s")
    await other.append_event(again, text_event("fresh"))
    loaded = await mine.get_session(app_name=APP, user_id=USER, session_id="s")
    assert [e.text for e in loaded.events] == ["fresh"]
    await mine.append_event(loaded, text_event("mine"))
    recent = await mine.get_session(app_name=APP, user_id=USER, session_id="s",
                                    config=GetSessionConfig(num_recent_events=1))
    assert [e.text for e in recent.events] == ["mine"]


async def test_a_row_removed_by_hand_is_noticed_on_reload(tmp_path):
  path = tmp_path / "s.db"
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    session = await service.create_session(app_name=APP, user_id=USER)
    for text in ("a", "b", "c"):
      await service.append_event(session, text_event(text))
    assert len((await service.get_session(app_name=APP, user_id=USER, session_id=session.id)).events) == 3
    with sqlite3.connect(path) as db:
      db.execute("DELETE FROM events WHERE seq = (SELECT min(seq) FROM events)")
    loaded = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    assert [e.text for e in loaded.events] == ["b", "c"]


async def test_changing_a_loaded_event_list_does_not_change_the_next_load(db_url):
  async with DatabaseSessionService(db_url, max_cached_events=10) as service:
    session = await service.create_session(app_name=APP, user_id=USER)
    await service.append_event(session, text_event("a"))
    first = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    first.events.clear()
    second = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    assert [e.text for e in second.events] == ["a"]


@pytest.mark.parametrize("max_cached_events", [0, 2])
async def test_loads_are_right_with_a_small_or_no_cache(tmp_path, max_cached_events):
  url = f"sqlite:///{tmp_path / 's.db'}"
  async with DatabaseSessionService(url, max_cached_events=max_cached_events) as service:
    sessions = [await service.create_session(app_name=APP, user_id=USER) for _ in range(3)]
    for round_ in range(3):
      for n, session in enumerate(sessions):
        loaded = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
        assert [e.text for e in loaded.events] == [f"{n}.{r}" for r in range(round_)]
        await service.append_event(loaded, text_event(f"{n}.{round_}"))
