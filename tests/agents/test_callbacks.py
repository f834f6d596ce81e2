"""Callbacks: ADK's signatures, short-circuits and replacements; errors name the callback."""

import pytest
from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.models import LlmResponse
from adk_nb.testing import ScriptedModel, call, run_turn, session_of


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
  assert order == ["first", "second"] and events[-1].text == "short-circuit"


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
      return {"result": tool_response["result"] + "!"}

  def on_error(tool, args, tool_context, error):
    return {"result": f"default for {args['key']}"}

  model = ScriptedModel([[call("lookup", key="cached"), call("lookup", key="x"), call("lookup", key="bad")], "ok"])
  agent = Agent(name="a", model=model, tools=[lookup], before_tool_callback=before, after_tool_callback=after,
                on_tool_error_callback=on_error)
  events = await run_turn(InMemoryRunner(agent, app_name="app"), "go")
  results = [r.response["result"] for r in events[2].get_function_responses()]
  assert results == ["from cache", "value-x!", "default for bad"]
  assert ran == ["x", "bad"]


def test_wrong_callback_signature_is_reported_at_construction_with_the_expected_one():
  def wrong(ctx):
    return None

  with pytest.raises(TypeError, match=r"before_model_callback `wrong\(ctx\)`.*callback_context, llm_request"):
    Agent(name="a", before_model_callback=wrong)
  with pytest.raises(TypeError, match="before_tool_callback"):
    Agent(name="a", before_tool_callback=[lambda tool, args: None])


async def test_raising_callback_becomes_an_error_event_and_committed_state_survives():
  def explode(callback_context, llm_response):
    raise ValueError("bad mood")

  def note(callback_context):
    callback_context.state["started"] = True

  agent = Agent(name="a", model=ScriptedModel(["hi"]), before_agent_callback=note, after_model_callback=explode)
  runner = InMemoryRunner(agent, app_name="app")
  events = await run_turn(runner, "hi")
  assert events[-1].error_code == "CALLBACK_ERROR"
  assert "after_model_callback" in events[-1].error_message and "explode" in events[-1].error_message
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert session.state["started"] is True


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
