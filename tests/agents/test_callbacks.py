"""Callbacks: ADK's signatures, short-circuits and replacements; errors name the callback."""

import pytest
from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.models import LlmResponse
from adk_nb.testing import ScriptedModel, call, run_turn, session_of
from tests.support import function_responses, last_text


def _content(text):
  return types.Content(role="model", parts=[types.Part(text=text)])


async def test_before_agent_content_skips_the_agent():
  model = ScriptedModel([])
  agent = Agent(name="a", model=model, before_agent_callback=lambda callback_context: _content("closed today"))
  events = await run_turn(InMemoryRunner(agent, app_name="app"), "hi")
  assert [e.text for e in events[1:]] == ["closed today"] and model.requests == []


async def test_before_agent_state_only_continues_and_after_agent_appends():
  calls = []

  async def before(callback_context):
    callback_context.state["seen"] = True
    calls.append("before")

  def after(callback_context):
    calls.append("after")
    return _content("(signed)")

  agent = Agent(name="a", model=ScriptedModel(["answer"]), before_agent_callback=[before],
                after_agent_callback=after)
  runner = InMemoryRunner(agent, app_name="app")
  events = await run_turn(runner, "hi")
  assert [e.text for e in events[1:]] == ["", "answer", "(signed)"]
  assert events[1].actions.state_delta == {"seen": True}
  assert calls == ["before", "after"]


async def test_callback_lists_stop_at_the_first_result():
  order = []

  def first(callback_context, llm_request):
    order.append("first")

  def second(callback_context, llm_request):
    order.append("second")
    return LlmResponse(content=_content("short-circuit"))

  def third(callback_context, llm_request):
    order.append("third")

  agent = Agent(name="a", model=ScriptedModel([]), before_model_callback=[first, second, third])
  events = await run_turn(InMemoryRunner(agent, app_name="app"), "hi")
  assert order == ["first", "second"] and last_text(events) == "short-circuit"


async def test_after_model_replaces_and_on_model_error_recovers():
  def shout(callback_context, llm_response):
    if llm_response.content:
      return LlmResponse(content=_content(llm_response.content.parts[0].text.upper()))

  def recover(callback_context, llm_request, error):
    return LlmResponse(content=_content(f"fallback after {type(error).__name__}"))

  agent = Agent(name="a", model=ScriptedModel(["quiet", TimeoutError("slow")]), after_model_callback=shout,
                on_model_error_callback=recover)
  runner = InMemoryRunner(agent, app_name="app")
  assert (await run_turn(runner, "1"))[-1].text == "QUIET"
  assert (await run_turn(runner, "2"))[-1].text == "fallback after TimeoutError"


async def test_tool_callbacks_skip_replace_and_recover():
  ran = []

  def lookup(key: str) -> str:
    ran.append(key)
    if key == "bad":
      raise KeyError(key)
    return f"value-{key}"

  def before(tool, args, tool_context):
    if args.get("key") == "cached":
      return {"result": "from cache"}

  def after(tool, args, tool_context, tool_response):
    if args.get("key") == "x":
      return {"result": tool_response + "!"}  # the raw value, as in ADK

  def on_error(tool, args, tool_context, error):
    return {"result": f"default for {args['key']}"}

  model = ScriptedModel([[call("lookup", key="cached"), call("lookup", key="x"), call("lookup", key="bad")], "ok"])
  agent = Agent(name="a", model=model, tools=[lookup], before_tool_callback=before, after_tool_callback=after,
                on_tool_error_callback=on_error)
  events = await run_turn(InMemoryRunner(agent, app_name="app"), "go")
  results = [r.response["result"] for r in function_responses(events)]
  assert results == ["from cache", "value-x!", "default for bad"]
  assert ran == ["x", "bad"]


def test_wrong_callback_signature_is_reported_at_construction_with_the_expected_one():
  def wrong(ctx):
    return None

  with pytest.raises(TypeError, match=r"before_model_callback `wrong\(ctx\)`.*callback_context, llm_request"):
    Agent(name="a", before_model_callback=wrong)
  with pytest.raises(TypeError, match="before_tool_callback"):
    Agent(name="a", before_tool_callback=[lambda tool, args: None])


async def test_raising_callback_raises_its_own_exception_after_an_error_event():
  def explode(callback_context, llm_response):
    raise ValueError("bad mood")

  def note(callback_context):
    callback_context.state["started"] = True

  agent = Agent(name="a", model=ScriptedModel(["hi"]), before_agent_callback=note, after_model_callback=explode)
  runner = InMemoryRunner(agent, app_name="app")
  with pytest.raises(ValueError, match="bad mood") as raised:
    await run_turn(runner, "hi")
  assert any("after_model_callback" in n and "explode" in n for n in raised.value.__notes__)
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert session.state["started"] is True
  assert (session.events[-1].error_code, session.events[-1].error_message) == ("ValueError", "bad mood")


async def test_callbacks_assigned_after_construction_take_effect():
  seen = []

  def ping() -> str:
    return "pong"

  agent = Agent(name="a", model=ScriptedModel([call("ping"), "done"]))
  agent.tools = [ping]
  agent.before_agent_callback = lambda callback_context: seen.append("before_agent")
  agent.before_model_callback = lambda callback_context, llm_request: seen.append("before_model")
  agent.after_tool_callback = lambda tool, args, tool_context, tool_response: {"replaced": True}
  events = await run_turn(InMemoryRunner(agent, app_name="app"), "hi")
  assert seen == ["before_agent", "before_model", "before_model"]
  assert [r.response for r in function_responses(events)] == [{"replaced": True}]
  with pytest.raises(TypeError, match="after_agent_callback"):
    agent.after_agent_callback = lambda: None


async def test_an_artifact_saved_in_a_before_agent_callback_is_committed_with_its_delta():
  async def save(callback_context):
    await callback_context.save_artifact("notes.txt", types.Part(text="remember"))

  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel(["hi"]), before_agent_callback=save), app_name="app")
  events = await run_turn(runner, "hi")
  assert events[1].actions.artifact_delta == {"notes.txt": 0} and events[1].content is None
  assert last_text(events) == "hi"
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert [e.actions.artifact_delta for e in session.events] == [{}, {"notes.txt": 0}, {}]


async def test_on_tool_error_callback_is_called_for_an_unknown_tool_and_can_answer_it():
  errors = []

  def known() -> str:
    return "ok"

  def on_error(tool, args, tool_context, error):
    errors.append((tool.name, args, type(error).__name__, "known" in str(error)))
    return {"result": "handled by the callback"}

  model = ScriptedModel([call("made_up", q=1), "fine"])
  agent = Agent(name="a", model=model, tools=[known], on_tool_error_callback=on_error)
  events = await run_turn(InMemoryRunner(agent, app_name="app"), "go")
  assert errors == [("made_up", {"q": 1}, "ValueError", True)]
  assert [r.response for r in function_responses(events)] == [{"result": "handled by the callback"}]


async def test_before_model_callback_editing_request_contents_does_not_corrupt_history():
  """ADK deep-copies event content into the request; a callback that edits it must not rewrite the session."""

  def add_note(callback_context, llm_request):
    llm_request.contents[-1].parts.append(types.Part(text="[note]"))

  model = ScriptedModel(["one", "two"])
  runner = InMemoryRunner(Agent(name="bot", model=model, before_model_callback=add_note), app_name="app")
  await run_turn(runner, "hi")
  await run_turn(runner, "again")
  session = await session_of(runner)
  assert [p.text for p in session.events[0].content.parts] == ["hi"]
  first_user_turn = model.requests[1].contents[0]
  assert [p.text for p in first_user_turn.parts] == ["hi"]  # only the current turn's note is added
