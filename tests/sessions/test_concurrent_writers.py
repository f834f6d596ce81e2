"""Many writers: conflicts are reported cleanly, no event is ever lost or duplicated."""

from __future__ import annotations

import asyncio

from google.genai import types

from adk_nb.errors.stale_session_error import StaleSessionError
from adk_nb.events.event import Event
from adk_nb.events.event_actions import EventActions
from adk_nb.sessions import DatabaseSessionService

APP, USER = "shop", "ada"


def text_event(text: str, delta: dict | None = None) -> Event:
  return Event(author="agent", content=types.Content(role="model", parts=[types.Part(text=text)]),
               actions=EventActions(state_delta=delta or {}))


async def test_two_writers_on_one_copy_one_wins_one_gets_a_clean_conflict(two_services):
  first, second = two_services
  session = await first.create_session(app_name=APP, user_id=USER)
  copy_a = await first.get_session(app_name=APP, user_id=USER, session_id=session.id)
  copy_b = await second.get_session(app_name=APP, user_id=USER, session_id=session.id)
  results = await asyncio.gather(
      first.append_event(copy_a, text_event("a", {"who": "a"})),
      second.append_event(copy_b, text_event("b", {"who": "b"})),
      return_exceptions=True,
  )
  errors = [r for r in results if isinstance(r, BaseException)]
  assert len(errors) == 1 and isinstance(errors[0], StaleSessionError), results
  loaded = await first.get_session(app_name=APP, user_id=USER, session_id=session.id)
  [stored] = loaded.events
  winner = "a" if not isinstance(results[0], BaseException) else "b"
  assert stored.text == winner and loaded.state == {"who": winner}


async def test_writers_that_reload_on_conflict_lose_and_duplicate_nothing(two_services):
  first, second = two_services
  session = await first.create_session(app_name=APP, user_id=USER)
  per_writer = 15
  conflicts = 0

  async def writer(service, name):
    nonlocal conflicts
    copy = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    done = 0
    while done < per_writer:
      event = text_event(f"{name}{done}", {f"{name}_count": done + 1, "app:last": name})
      try:
        await service.append_event(copy, event)
        done += 1
      except StaleSessionError:
        conflicts += 1
        copy = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
      await asyncio.sleep(0)  # let the other writer interleave

  await asyncio.gather(writer(first, "a"), writer(second, "b"))
  loaded = await first.get_session(app_name=APP, user_id=USER, session_id=session.id)
  texts = [e.text for e in loaded.events]
  assert sorted(texts) == sorted([f"a{i}" for i in range(per_writer)] + [f"b{i}" for i in range(per_writer)])
  assert len({e.id for e in loaded.events}) == 2 * per_writer
  # Each writer's own events stay in its order.
  assert [t for t in texts if t[0] == "a"] == [f"a{i}" for i in range(per_writer)]
  assert loaded.state["a_count"] == per_writer and loaded.state["b_count"] == per_writer


async def test_twenty_concurrent_sessions_on_one_sqlite_file_all_complete(tmp_path):
  url = f"sqlite:///{tmp_path / 'shared.db'}"
  # Four services = four connection pools, as from several kernels; each runs five sessions.
  services = [DatabaseSessionService(url) for _ in range(4)]
  per_session = 20

  async def conversation(service, n):
    session = await service.create_session(app_name=APP, user_id=f"user{n % 3}", session_id=f"s{n}")
    for i in range(per_session):
      await service.append_event(session, text_event(f"{n}:{i}", {
          "i": i, f"user:last_{n}": i, f"app:done_{n}": i == per_session - 1}))
    return session.id

  try:
    ids = await asyncio.gather(*(conversation(services[n % 4], n) for n in range(20)))
    reader = services[0]
    for n, session_id in enumerate(ids):
      loaded = await reader.get_session(app_name=APP, user_id=f"user{n % 3}", session_id=session_id)
      assert [e.text for e in loaded.events] == [f"{n}:{i}" for i in range(per_session)]
      assert loaded.state["i"] == per_session - 1
      assert loaded.state[f"user:last_{n}"] == per_session - 1
    app_state = loaded.state
    assert all(app_state[f"app:done_{n}"] is True for n in range(20))
  finally:
    for service in services:
      await service.close()
