"""runner.fork_async on every store: a new session as the original stood, with its lineage; the original untouched."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.genai import types

from adk_nb import Agent
from adk_nb.artifacts import InMemoryArtifactService
from adk_nb.errors import AlreadyExistsError, InvocationNotFoundError
from adk_nb.models import ScriptedModel, call
from adk_nb.runners import Runner
from adk_nb.sessions import lineage
from adk_nb.testing import run_turn, session_of
from tests.sessions.notes_tool import note, texts
from tests.support import last_text

APP = "notes"


@pytest.fixture
async def noted(session_service):
  """A runner whose session 'session' holds two turns ('note one', 'note two'); the model then answers 'later'."""
  model = ScriptedModel([call("note", text="one"), "noted one", call("note", text="two"), "noted two", "later"])
  runner = Runner(agent=Agent(name="scribe", model=model, tools=[note]), app_name=APP,
                  session_service=session_service, artifact_service=InMemoryArtifactService())
  await session_service.create_session(app_name=APP, user_id="user", session_id="session", state={"tenant": "t1"})
  first = await run_turn(runner, "note one")
  second = await run_turn(runner, "note two")
  return runner, model, first[0].invocation_id, second[0].invocation_id


async def snapshot(runner, session_id="session"):
  session = await session_of(runner, session_id)
  arts = {}
  for name in ("report.txt", "only_one.txt", "only_two.txt", "user:profile.txt"):
    part = await runner.artifact_service.load_artifact(app_name=APP, user_id="user", session_id=session_id,
                                                       filename=name)
    arts[name] = None if part is None else part.text
  return [e.model_dump() for e in session.events], dict(session.state), arts


async def test_fork_before_an_invocation_starts_where_the_original_stood(noted):
  runner, _, _, second = noted
  original = await session_of(runner)
  fork = await runner.fork_async(user_id="user", session_id="session", before_invocation_id=second,
                                 new_session_id="what-if")
  assert fork.id == "what-if" and fork.app_name == APP and fork.user_id == "user"
  cut = next(i for i, e in enumerate(original.events) if e.invocation_id == second)
  assert [e.id for e in fork.events] == [e.id for e in original.events[:cut]]
  assert [e.content for e in fork.events] == [e.content for e in original.events[:cut]]
  _, state, arts = await snapshot(runner, "what-if")
  assert state["note"] == "one" and state["seen_one"] is True and "seen_two" not in state
  assert state["tenant"] == "t1" and state["user:last_note"] == "two"  # user state is shared, not forked
  assert arts == {"report.txt": "report one", "only_one.txt": "one", "only_two.txt": None,
                  "user:profile.txt": "profile two"}


async def test_the_fork_records_where_it_came_from(noted):
  runner, _, _, second = noted
  fork = await runner.fork_async(user_id="user", session_id="session", before_invocation_id=second)
  record = lineage(fork)
  assert record.session_id == "session" and record.before_invocation_id == second
  assert record.events_copied == len(fork.events) and record.app_name == APP and record.user_id == "user"
  assert fork.id != "session"
  assert lineage(await session_of(runner)) is None
  assert lineage(await session_of(runner, fork.id)) == record  # as stored


async def test_the_original_is_untouched_by_the_fork_and_by_turns_in_it(noted):
  runner, model, _, second = noted
  before = await snapshot(runner)
  fork = await runner.fork_async(user_id="user", session_id="session", before_invocation_id=second)
  events = await run_turn(runner, "what now?", session_id=fork.id)
  assert last_text(events) == "later"
  seen = texts(model.requests[-1])
  assert "noted one" in seen and "note two" not in seen and "noted two" not in seen
  assert await snapshot(runner) == before


async def test_fork_of_everything_copies_every_event_and_the_state(noted):
  runner, _, _, _ = noted
  original = await session_of(runner)
  fork = await runner.fork_async(user_id="user", session_id="session")
  assert [e.id for e in fork.events] == [e.id for e in original.events]
  assert {k: v for k, v in fork.state.items() if k != "adk_nb:forked_from"} == original.state
  assert lineage(fork).before_invocation_id is None and lineage(fork).events_copied == len(original.events)
  assert (await snapshot(runner, fork.id))[2]["report.txt"] == "report two"


async def test_a_rewind_inside_the_fork_keeps_its_lineage_and_leaves_the_original(noted):
  runner, _, first, second = noted
  before = await snapshot(runner)
  fork = await runner.fork_async(user_id="user", session_id="session")
  await runner.rewind_async(user_id="user", session_id=fork.id, rewind_before_invocation_id=second)
  rewound = await session_of(runner, fork.id)
  assert rewound.state["note"] == "one" and lineage(rewound).session_id == "session"
  assert (await snapshot(runner, fork.id))[2]["report.txt"] == "report one"
  assert await snapshot(runner) == before


async def test_bad_forks_raise_and_leave_nothing_behind(noted):
  runner, _, first, _ = noted
  svc = runner.session_service
  listed = sorted(s.id for s in (await svc.list_sessions(app_name=APP, user_id="user")).sessions)
  with pytest.raises(InvocationNotFoundError, match="e-nope"):
    await runner.fork_async(user_id="user", session_id="session", before_invocation_id="e-nope")
  await svc.create_session(app_name=APP, user_id="user", session_id="taken")
  with pytest.raises(AlreadyExistsError):
    await runner.fork_async(user_id="user", session_id="session", new_session_id="taken")
  with pytest.raises(ValueError, match="not both"):
    await runner.fork_async(user_id="user", session_id="session", before_invocation_id=first, at_event_id="x")
  with pytest.raises(ValueError, match="at_event_id"):
    await runner.fork_async(user_id="user", session_id="session", replace_with=types.Content(parts=[]))
  after = sorted(s.id for s in (await svc.list_sessions(app_name=APP, user_id="user")).sessions)
  assert after == sorted(listed + ["taken"])
  assert (await session_of(runner, "taken")).events == []


# -- the database store: one transaction per fork ------------------------------------------------

_DIES_AFTER_CREATING = """
import asyncio, os, signal, sys
from google.genai import types
from adk_nb.events import Event
from adk_nb.sessions import DatabaseSessionService
from adk_nb.sessions.fork import fork_session

class Dies(DatabaseSessionService):
  async def create_session(self, **kwargs):
    session = await super().create_session(**kwargs)
    if kwargs.get("session_id") == "fork":
      os.kill(os.getpid(), signal.SIGKILL)  # the process dies right after the fork's session is written
    return session

async def main():
  store = Dies(sys.argv[1])
  session = await store.create_session(app_name="app", user_id="u", session_id="s")
  for i in range(5):
    await store.append_event(session, Event(author="user", invocation_id=f"i{i}", content=types.Content(
        role="user", parts=[types.Part(text=f"m{i}")])))
  await fork_session(store, app_name="app", user_id="u", session_id="s", new_session_id="fork")
  print("forked", flush=True)
  os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
async def test_a_process_killed_while_forking_never_leaves_a_fork_without_its_events(kind, tmp_path, request):
  import os
  import subprocess
  import sys

  from adk_nb.sessions import DatabaseSessionService

  url = f"sqlite:///{tmp_path / 'sessions.db'}" if kind == "sqlite" else request.getfixturevalue("pg_url")
  env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}  # this checkout's adk_nb
  done = subprocess.run([sys.executable, "-c", _DIES_AFTER_CREATING, url], capture_output=True, text=True,
                        timeout=120, env=env)
  assert done.returncode == -9, done.stderr[-2000:]
  store = DatabaseSessionService(url)
  try:
    fork = await store.get_session(app_name="app", user_id="u", session_id="fork")
    if fork is not None:  # a fork exists only whole: every event its lineage counts
      assert len(fork.events) == lineage(fork).events_copied == 5
  finally:
    await store.close()


async def test_a_fork_on_the_database_store_is_loaded_next_without_decoding_its_events(tmp_path):
  from adk_nb.sessions import DatabaseSessionService
  from adk_nb.sessions.fork import fork_session

  class Counted(DatabaseSessionService):
    decoded = 0

    def _event_from_row(self, seq, data, session_id):
      Counted.decoded += 1
      return super()._event_from_row(seq, data, session_id)

  store = Counted(f"sqlite:///{tmp_path / 'sessions.db'}")
  try:
    model = ScriptedModel(["first", "second", "third"])
    runner = Runner(agent=Agent(name="scribe", model=model), app_name=APP, session_service=store)
    await run_turn(runner, "one", session_id="session")
    await run_turn(runner, "two", session_id="session")
    fork = await fork_session(store, app_name=APP, user_id="user", session_id="session", new_session_id="f")
    Counted.decoded = 0
    await run_turn(runner, "three", session_id="f")
    assert texts(model.requests[-1]) == ["one", "first", "two", "second", "three"]
    assert Counted.decoded <= 2  # at most the turn's own two new rows, read back once; none of the fork's 4
    reloaded = await store.get_session(app_name=APP, user_id="user", session_id="f")
    assert [e.id for e in reloaded.events][:len(fork.events)] == [e.id for e in fork.events]
    assert len(reloaded.events) == len(fork.events) + 2
  finally:
    await store.close()
