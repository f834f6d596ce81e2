"""Bad input to the session stores: clear errors, the same on every store, and no damage spread."""

from __future__ import annotations

import os

import pytest

from adk_nb.events import Event
from adk_nb.sessions import DatabaseSessionService
from adk_nb.sessions.database_session_service import SessionStorageError

APP, USER = "shop", "ada"


async def test_ids_with_unpaired_surrogates_are_refused_by_name_on_every_store(session_service):
  with pytest.raises(ValueError, match=r"session id 'x\\udcff' is not valid Unicode text.*position 1"):
    await session_service.create_session(app_name=APP, user_id=USER, session_id="x\udcff")
  with pytest.raises(ValueError, match="user id"):
    await session_service.get_session(app_name=APP, user_id="\ud800", session_id="s")
  session = await session_service.create_session(app_name=APP, user_id=USER)
  with pytest.raises(ValueError, match="event id"):
    await session_service.append_event(session, Event(id="e\ud800", author="agent"))
  loaded = await session_service.get_session(app_name=APP, user_id=USER, session_id=session.id)
  assert loaded.events == []


async def test_after_a_load_finds_the_file_damaged_the_service_writes_nothing_more(tmp_path):
  path = tmp_path / "s.db"
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    session = await service.create_session(app_name=APP, user_id=USER, session_id="s1")
    for _ in range(200):
      await service.append_event(session, Event(author="agent", invocation_id="i" * 200))
  with open(path, "r+b") as f:  # overwrite pages in the middle of the events table
    f.seek(os.path.getsize(path) // 2)
    f.write(b"\x5a" * 8192)
  damaged = path.read_bytes()
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    with pytest.raises(SessionStorageError, match="not a valid SQLite database.*malformed"):
      await service.get_session(app_name=APP, user_id=USER, session_id="s1")
    with pytest.raises(SessionStorageError, match="found damaged earlier.*nothing was written.*backup"):
      await service.create_session(app_name=APP, user_id=USER)
  assert path.read_bytes() == damaged


async def test_damage_that_shows_as_a_decode_error_is_treated_as_damage_and_nothing_more_is_written(tmp_path):
  import sqlite3

  path = tmp_path / "s.db"
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    session = await service.create_session(app_name=APP, user_id=USER, session_id="s1")
    for _ in range(3):
      await service.append_event(session, Event(author="agent", invocation_id="i1"))
  with sqlite3.connect(path) as db:  # damaged bytes inside a row: text that is not UTF-8
    db.execute("UPDATE events SET data = CAST(X'7B22ff8022' AS TEXT) WHERE seq = 2")
  damaged = path.read_bytes()
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    with pytest.raises(SessionStorageError, match="damaged.*not UTF-8.*Restore it from a backup") as caught:
      await service.get_session(app_name=APP, user_id=USER, session_id="s1")
    assert "unreachable" not in str(caught.value)
    with pytest.raises(SessionStorageError, match="found damaged earlier.*nothing was written.*backup"):
      await service.create_session(app_name=APP, user_id=USER)
    with pytest.raises(SessionStorageError, match="found damaged earlier.*nothing was written"):
      await service.append_event(session, Event(author="agent", invocation_id="i2"))
  assert path.read_bytes() == damaged
