"""runner.fork_async on every store: a new session as the original stood, with its lineage; the original untouched."""

from __future__ import annotations

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
  assert events[-1].content.parts[0].text == "later"
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
