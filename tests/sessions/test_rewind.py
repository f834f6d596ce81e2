"""runner.rewind_async on every store: state and artifacts as before the invocation, history kept."""

from __future__ import annotations

import pytest

from adk_nb import Agent
from adk_nb.artifacts import InMemoryArtifactService
from adk_nb.errors._invocation_not_found_error import InvocationNotFoundError
from adk_nb.models import ScriptedModel, call
from adk_nb.runners import Runner
from adk_nb.testing import run_turn, session_of
from tests.sessions.notes_tool import note, texts
from tests.support import last_text

APP = "notes"


@pytest.fixture
async def noted(session_service):
  """A runner whose session 'session' holds two turns, each noting a word ('one', then 'two')."""
  model = ScriptedModel([call("note", text="one"), "noted one", call("note", text="two"), "noted two",
                         "third answer"])
  runner = Runner(agent=Agent(name="scribe", model=model, tools=[note]), app_name=APP,
                  session_service=session_service, artifact_service=InMemoryArtifactService())
  await session_service.create_session(app_name=APP, user_id="user", session_id="session",
                                       state={"tenant": "t1"})
  first = await run_turn(runner, "note one")
  second = await run_turn(runner, "note two")
  return runner, model, first[0].invocation_id, second[0].invocation_id


async def load(runner, filename):
  part = await runner.artifact_service.load_artifact(app_name=APP, user_id="user", session_id="session",
                                                     filename=filename)
  return None if part is None else part.text


async def test_rewind_puts_session_state_back_and_keeps_initial_and_user_state(noted):
  runner, _, _, second = noted
  before = await session_of(runner)
  assert before.state["note"] == "two" and before.state["seen_two"] is True

  await runner.rewind_async(user_id="user", session_id="session", rewind_before_invocation_id=second)

  after = await session_of(runner)
  assert after.state["note"] == "one" and after.state["seen_one"] is True
  assert after.state.get("seen_two") is None  # written only by the rewound turn
  assert after.state["tenant"] == "t1"  # given at create_session: survives (google-adk 2.13 clears it)
  assert after.state["user:last_note"] == "two"  # user state is shared: not rewound


async def test_rewind_appends_one_event_and_keeps_the_history(noted):
  runner, _, _, second = noted
  before = await session_of(runner)
  await runner.rewind_async(user_id="user", session_id="session", rewind_before_invocation_id=second)
  after = await session_of(runner)
  assert [e.id for e in after.events[:-1]] == [e.id for e in before.events]
  marker = after.events[-1]
  assert marker.author == "user" and marker.content is None
  assert marker.actions.rewind_before_invocation_id == second
  assert marker.invocation_id not in {e.invocation_id for e in before.events}


async def test_rewind_restores_session_artifacts_but_not_user_artifacts(noted):
  runner, _, _, second = noted
  assert await load(runner, "report.txt") == "report two"
  await runner.rewind_async(user_id="user", session_id="session", rewind_before_invocation_id=second)
  assert await load(runner, "report.txt") == "report one"
  assert await load(runner, "only_one.txt") == "one"
  assert await load(runner, "only_two.txt") is None  # did not exist before the rewound turn
  assert await load(runner, "user:profile.txt") == "profile two"


async def test_the_next_turn_model_no_longer_sees_the_rewound_turn(noted):
  runner, model, _, second = noted
  await runner.rewind_async(user_id="user", session_id="session", rewind_before_invocation_id=second)
  events = await run_turn(runner, "what did I note?")
  assert last_text(events) == "third answer"
  seen = texts(model.requests[-1])
  assert "note one" in seen and "noted one" in seen
  assert "note two" not in seen and "noted two" not in seen
  model.assert_complete()


async def test_rewind_to_the_first_invocation_empties_what_events_wrote(noted):
  runner, _, first, _ = noted
  await runner.rewind_async(user_id="user", session_id="session", rewind_before_invocation_id=first)
  state = (await session_of(runner)).state
  assert state.get("note") is None and state["tenant"] == "t1"
  assert await load(runner, "report.txt") is None


async def test_an_unknown_invocation_raises_and_writes_nothing(noted):
  runner, _, _, _ = noted
  before = await session_of(runner)
  with pytest.raises(InvocationNotFoundError, match="e-nope"):
    await runner.rewind_async(user_id="user", session_id="session", rewind_before_invocation_id="e-nope")
  assert isinstance(InvocationNotFoundError("x"), ValueError)
  after = await session_of(runner)
  assert [e.id for e in after.events] == [e.id for e in before.events] and after.state == before.state
  assert await load(runner, "report.txt") == "report two"


async def test_rewind_of_an_unknown_session_says_how_to_create_it(noted):
  from adk_nb.errors import SessionNotFoundError

  runner, _, first, _ = noted
  with pytest.raises(SessionNotFoundError, match="create_session"):
    await runner.rewind_async(user_id="user", session_id="nope", rewind_before_invocation_id=first)


async def test_rewind_error_is_importable_at_google_adk_path():
  from adk_nb.errors import InvocationNotFoundError as exported
  from adk_nb.errors.not_found_error import NotFoundError

  assert exported is InvocationNotFoundError and issubclass(exported, NotFoundError)


async def test_after_rewinding_a_transfer_the_next_turn_starts_at_the_root_again(session_service):
  child = Agent(name="billing", description="Answers billing questions.",
                model=ScriptedModel(["billing here"]))
  root_model = ScriptedModel([call("transfer_to_agent", agent_name="billing"), "root again"])
  runner = Runner(agent=Agent(name="root", model=root_model, sub_agents=[child]), app_name=APP,
                  session_service=session_service)
  await session_service.create_session(app_name=APP, user_id="user", session_id="session")
  transferred = await run_turn(runner, "a billing question")
  assert transferred[-1].author == "billing"
  await runner.rewind_async(user_id="user", session_id="session",
                            rewind_before_invocation_id=transferred[0].invocation_id)
  events = await run_turn(runner, "hello")
  assert [e.author for e in events[1:]] == ["root"] and last_text(events) == "root again"


async def test_a_rewound_pause_waits_no_more_and_its_answer_is_refused(session_service):
  from adk_nb.errors import AnswerError
  from adk_nb.pending import answer_message, confirmation_response
  from adk_nb.testing import orphan_calls, pending
  from adk_nb.tools import FunctionTool

  deleted: list[str] = []

  def delete_file(path: str) -> dict:
    """Deletes a file."""
    deleted.append(path)
    return {"deleted": path}

  model = ScriptedModel([call("delete_file", path="a.txt"), "hello again"])
  runner = Runner(agent=Agent(name="janitor", model=model, tools=[FunctionTool(delete_file, require_confirmation=True)]),
                  app_name=APP, session_service=session_service)
  await session_service.create_session(app_name=APP, user_id="user", session_id="session")
  paused = await run_turn(runner, "delete a.txt")
  [waiting] = await pending(runner)
  await runner.rewind_async(user_id="user", session_id="session", rewind_before_invocation_id=paused[0].invocation_id)

  assert await pending(runner) == []
  with pytest.raises(AnswerError):
    await run_turn(runner, answer_message([confirmation_response(waiting, True)]))
  assert deleted == []
  events = await run_turn(runner, "hi")
  assert [e.content.parts[0].text for e in events[1:]] == ["hello again"]
  assert orphan_calls(model.requests[-1]) == [] and "delete a.txt" not in texts(model.requests[-1])
