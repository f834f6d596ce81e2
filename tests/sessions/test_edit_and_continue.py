"""Edit a step and continue: fork_async(at_event_id=E, replace_with=X), then run_async(invocation_id=E's).

Counted: nothing before the edit is called again (model calls, tool runs); what follows runs live
and reflects the edit; the original session stays as it was. On every store.
"""

from __future__ import annotations

import pytest
from google.genai import types

from adk_nb import Agent
from adk_nb.errors import NotFoundError
from adk_nb.models import ScriptedModel, call
from adk_nb.runners import Runner
from adk_nb.sessions import lineage
from adk_nb.testing import run_turn, session_of
from tests.support import forecaster, function_responses, last_text

APP = "weather"


def texts(request) -> list[str]:
  return [p.text for c in request.contents for p in c.parts or [] if p.text]


@pytest.fixture
async def weather(session_service):
  """One finished turn: the model called lookup(Paris), the tool answered 21, the model said 'Paris: 21 degrees'."""
  runs: list[str] = []
  agent, model = forecaster(runs)
  runner = Runner(agent=agent, app_name=APP,
                  session_service=session_service)
  await session_service.create_session(app_name=APP, user_id="user", session_id="session")
  events = await run_turn(runner, "weather?")
  assert [e.content.parts[0].text for e in events if e.content.parts[0].text] == ["weather?", "Paris: 21 degrees"]
  return runner, model, runs, await session_of(runner)


async def continue_run(runner, fork, invocation_id):
  return [e async for e in runner.run_async(user_id="user", session_id=fork.id, invocation_id=invocation_id)]


def step(session, kind):
  for event in session.events:
    if kind == "call" and event.get_function_calls():
      return event
    if kind == "result" and event.get_function_responses():
      return event
    if kind == "answer" and event.author != "user" and event.content.parts[0].text:
      return event
  raise AssertionError(kind)


async def test_an_edited_tool_result_is_answered_by_the_model_without_running_anything_before(weather):
  runner, model, runs, original = weather
  result = step(original, "result")
  edited = types.Content(parts=[types.Part(function_response=types.FunctionResponse(
      name="lookup", response={"city": "Paris", "temp": 35}))])
  fork = await runner.fork_async(user_id="user", session_id="session", at_event_id=result.id, replace_with=edited)
  assert lineage(fork).at_event_id == result.id and lineage(fork).edited_event_id == fork.events[-1].id
  calls_before = len(model.requests)

  events = await continue_run(runner, fork, result.invocation_id)

  assert len(model.requests) == calls_before + 1 and runs == ["Paris"]  # one live model call, no tool run
  assert [e.content.parts[0].text for e in events] == ["Paris: 35 degrees"]
  assert all(e.invocation_id == result.invocation_id for e in events)
  assert model.requests[-1].contents[-1].parts[0].function_response.response == {"city": "Paris", "temp": 35}
  assert fork.events[-1].get_function_responses()[0].id == result.get_function_responses()[0].id  # still answers its call
  continued = await session_of(runner, fork.id)
  assert [e.id for e in continued.events[:3]] == [e.id for e in original.events[:3]][:2] + [fork.events[-1].id]
  after = await session_of(runner)
  assert [e.model_dump() for e in after.events] == [e.model_dump() for e in original.events]


async def test_an_edited_tool_call_runs_the_edited_call_then_the_model(weather):
  runner, model, runs, original = weather
  made = step(original, "call")
  edited = types.Content(parts=[types.Part(function_call=types.FunctionCall(name="lookup", args={"city": "Rome"}))])
  fork = await runner.fork_async(user_id="user", session_id="session", at_event_id=made.id, replace_with=edited)
  calls_before = len(model.requests)

  events = await continue_run(runner, fork, made.invocation_id)

  assert runs == ["Paris", "Rome"]  # the edited call ran once; nothing before it ran again
  assert len(model.requests) == calls_before + 1
  assert [r.response for r in function_responses(events)] == [{"city": "Rome", "temp": 21}]
  assert last_text(events) == "Rome: 21 degrees"
  assert not any((e.custom_metadata or {}).get("adk_nb_interrupted") for e in events)


async def test_an_edited_final_answer_ends_the_invocation_and_later_turns_see_it(weather):
  runner, model, runs, original = weather
  answer = step(original, "answer")
  fork = await runner.fork_async(user_id="user", session_id="session", at_event_id=answer.id,
                                 replace_with=types.Content(parts=[types.Part(text="Paris: mild")]))
  calls_before = len(model.requests)
  assert await continue_run(runner, fork, answer.invocation_id) == []
  assert len(model.requests) == calls_before and runs == ["Paris"]
  await run_turn(runner, "and now?", session_id=fork.id)
  seen = texts(model.requests[-1])
  assert "Paris: mild" in seen and "Paris: 21 degrees" not in seen


async def test_an_edit_given_as_an_event_keeps_its_parts(weather):
  from adk_nb.events import Event

  runner, model, runs, original = weather
  result = step(original, "result")
  replacement = Event(author="forecaster", content=types.Content(role="user", parts=[types.Part(
      function_response=types.FunctionResponse(id=result.get_function_responses()[0].id, name="lookup",
                                               response={"city": "Oslo", "temp": -3}))]))
  fork = await runner.fork_async(user_id="user", session_id="session", at_event_id=result.id,
                                 replace_with=replacement)
  events = await continue_run(runner, fork, result.invocation_id)
  assert last_text(events) == "Oslo: -3 degrees" and runs == ["Paris"]


async def test_an_unknown_event_raises_and_creates_nothing(weather):
  runner, _, _, _ = weather
  with pytest.raises(NotFoundError, match="session.events"):
    await runner.fork_async(user_id="user", session_id="session", at_event_id="nope",
                            replace_with=types.Content(parts=[types.Part(text="x")]))
  listed = await runner.session_service.list_sessions(app_name=APP, user_id="user")
  assert [s.id for s in listed.sessions] == ["session"]


async def test_editing_the_call_of_a_paused_invocation_asks_again_and_runs_the_edited_call_once(session_service):
  from adk_nb.pending import answer_message, confirmation_response
  from adk_nb.tools import FunctionTool
  from adk_nb.testing import pending

  deleted: list[str] = []

  def delete_file(path: str) -> dict:
    """Deletes a file."""
    deleted.append(path)
    return {"deleted": path}

  def script(request):
    last = request.contents[-1].parts[-1]
    if last.function_response:
      return f"done: {last.function_response.response}"
    return call("delete_file", path="important.txt")

  model = ScriptedModel(script)
  runner = Runner(agent=Agent(name="janitor", model=model, tools=[FunctionTool(delete_file, require_confirmation=True)]),
                  app_name=APP, session_service=session_service)
  await session_service.create_session(app_name=APP, user_id="user", session_id="session")
  await run_turn(runner, "clean up")
  original = await session_of(runner)
  made = next(e for e in original.events if any(c.name == "delete_file" for c in e.get_function_calls()))
  edited = types.Content(parts=[types.Part(function_call=types.FunctionCall(name="delete_file", args={"path": "tmp.txt"}))])
  fork = await runner.fork_async(user_id="user", session_id="session", at_event_id=made.id, replace_with=edited)

  events = await continue_run(runner, fork, made.invocation_id)  # the edited call needs approval again
  [waiting] = await pending(runner, session_id=fork.id)
  assert waiting.kind == "confirmation" and waiting.args == {"path": "tmp.txt"} and deleted == []
  assert any(c.name == "adk_request_confirmation" for e in events for c in e.get_function_calls())

  done = await run_turn(runner, answer_message([confirmation_response(waiting, True)]), session_id=fork.id)
  assert deleted == ["tmp.txt"] and done[-1].content.parts[0].text.startswith("done:")
  assert await pending(runner) and deleted == ["tmp.txt"]  # the original still waits, untouched


async def test_an_edited_workflow_node_output_flows_on_and_nothing_before_it_runs_again(session_service):
  from adk_nb import Workflow
  from adk_nb.events import Event

  runs: list[str] = []

  def prepare(node_input: str) -> str:
    runs.append("prepare")
    return "topic: weather"

  def draft(node_input: str) -> str:
    runs.append("draft")
    return node_input + " / draft"

  def publish(node_input: str) -> str:
    runs.append("publish")
    return node_input.upper()

  runner = Runner(agent=Workflow(name="wf", edges=[("START", prepare, draft, publish)]), app_name=APP,
                  session_service=session_service)
  await session_service.create_session(app_name=APP, user_id="user", session_id="session")
  await run_turn(runner, "go")
  original = await session_of(runner)
  drafted = next(e for e in original.events if e.node_info and e.node_info.path == "wf@1/draft@1")
  fork = await runner.fork_async(user_id="user", session_id="session", at_event_id=drafted.id,
                                 replace_with=Event(output="an edited draft"))
  assert fork.events[-1].node_info.path == "wf@1/draft@1" and fork.events[-1].author == "wf"
  runs.clear()

  events = await continue_run(runner, fork, drafted.invocation_id)

  assert runs == ["publish"]  # prepare and draft came from the recording
  assert [(e.node_info.path, e.output) for e in events if e.output is not None] == [("wf@1/publish@1", "AN EDITED DRAFT")]
  after = await session_of(runner)
  assert [e.id for e in after.events] == [e.id for e in original.events]
  assert [e.output for e in after.events if e.output is not None][-1] == "TOPIC: WEATHER / DRAFT"


async def test_an_edited_answer_of_an_agent_node_is_its_output_and_its_model_is_not_called_again(session_service):
  from adk_nb import Workflow

  model = ScriptedModel(["a first draft"])

  def wrap(node_input: str) -> str:
    return f"<{node_input}>"

  writer = Agent(name="writer", model=model)
  runner = Runner(agent=Workflow(name="wf", edges=[("START", writer, wrap)]), app_name=APP,
                  session_service=session_service)
  await session_service.create_session(app_name=APP, user_id="user", session_id="session")
  await run_turn(runner, "write")
  original = await session_of(runner)
  answer = next(e for e in original.events if e.author == "writer" and e.text == "a first draft")
  fork = await runner.fork_async(user_id="user", session_id="session", at_event_id=answer.id,
                                 replace_with=types.Content(parts=[types.Part(text="a better draft")]))

  events = await continue_run(runner, fork, answer.invocation_id)

  assert len(model.requests) == 1  # only the original run called the model
  assert [(e.node_info.path, e.output) for e in events if e.output is not None] == [("wf@1/wrap@1", "<a better draft>")]
