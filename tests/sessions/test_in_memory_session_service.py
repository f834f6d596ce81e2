"""The in-memory store's loads cost no copy of a long history (what each run of a Runner does first)."""

from __future__ import annotations

import tracemalloc

from adk_nb.events.event import Event
from adk_nb.sessions import InMemorySessionService

EVENTS = 10_000


async def test_a_run_in_a_long_session_loads_it_without_copying_its_events():
  service = InMemorySessionService()
  session = await service.create_session(app_name="app", user_id="u", session_id="s")
  for i in range(EVENTS):
    await service.append_event(session, Event(author="agent", invocation_id=f"inv-{i // 10}"))
  del session
  tracemalloc.start()
  try:
    for run in range(3):  # as each run of a Runner: load, append, let go
      loaded = await service.get_session(app_name="app", user_id="u", session_id="s")
      await service.append_event(loaded, Event(author="agent", invocation_id=f"run-{run}"))
      assert len(loaded.events) == EVENTS + run + 1
      del loaded
    _, peak = tracemalloc.get_traced_memory()
  finally:
    tracemalloc.stop()
  assert peak < EVENTS * 8 // 2, f"{peak:,} bytes allocated: the {EVENTS:,} events' list was copied"
