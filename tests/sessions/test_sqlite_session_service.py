"""SqliteSessionService (google-adk's path and argument) and the in-memory store's sync methods."""

import asyncio

import pytest
from google.genai import types

from adk_nb.events import Event, EventActions
from adk_nb.sessions import InMemorySessionService
from adk_nb.sessions.sqlite_session_service import SqliteSessionService


async def test_sessions_in_a_file_path_survive_a_new_service(tmp_path):
  path = tmp_path / "sessions.db"
  first = SqliteSessionService(str(path))
  session = await first.create_session(app_name="app", user_id="u", state={"user:name": "Ada", "n": 1})
  await first.append_event(session, Event(invocation_id="i", author="agent",
                                          content=types.Content(role="model", parts=[types.Part(text="hi")]),
                                          actions=EventActions(state_delta={"n": 2})))
  await first.close()
  assert path.exists()

  second = SqliteSessionService(path)
  loaded = await second.get_session(app_name="app", user_id="u", session_id=session.id)
  assert loaded.state == {"user:name": "Ada", "n": 2}
  assert [e.content.parts[0].text for e in loaded.events] == ["hi"]
  await second.close()


async def test_url_and_memory_forms():
  memory = SqliteSessionService(":memory:")
  session = await memory.create_session(app_name="app", user_id="u")
  assert (await memory.get_session(app_name="app", user_id="u", session_id=session.id)).id == session.id
  await memory.close()
  with pytest.raises(ValueError, match="file path"):
    SqliteSessionService("")


def test_in_memory_sync_methods_work_without_a_loop():
  service = InMemorySessionService()
  session = service.create_session_sync(app_name="app", user_id="u", state={"app:v": 1}, session_id="s1")
  assert service.get_session_sync(app_name="app", user_id="u", session_id="s1").state == {"app:v": 1}
  assert [s.id for s in service.list_sessions_sync(app_name="app").sessions] == [session.id]
  service.delete_session_sync(app_name="app", user_id="u", session_id="s1")
  assert service.get_session_sync(app_name="app", user_id="u", session_id="s1") is None


async def test_in_memory_sync_methods_work_inside_a_running_loop():
  service = InMemorySessionService()
  session = service.create_session_sync(app_name="app", user_id="u")
  assert asyncio.get_running_loop() is not None
  assert (await service.get_session(app_name="app", user_id="u", session_id=session.id)).id == session.id
