"""google-adk's flows.llm_flows paths: the function-call helpers, request processors and flow classes work."""

import pytest
from google.genai import types

from adk_nb import Agent
from adk_nb.agents.invocation_context import InvocationContext
from adk_nb.events import Event, EventActions
from adk_nb.flows.llm_flows import contents, identity, instructions
from adk_nb.flows.llm_flows.auto_flow import AutoFlow
from adk_nb.flows.llm_flows.functions import (REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, REQUEST_EUC_FUNCTION_CALL_NAME,
                                              find_matching_function_call, handle_function_calls_async,
                                              handle_function_calls_live, merge_parallel_function_response_events)
from adk_nb.flows.llm_flows.single_flow import SingleFlow
from adk_nb.models import LlmRequest, LlmResponse
from adk_nb.testing import ScriptedModel, call
from adk_nb.sessions import InMemorySessionService
from adk_nb.tools import FunctionTool


def add(a: int, b: int) -> int:
  """Adds."""
  return a + b


def call_event(*calls):
  return Event(invocation_id="i", author="agent", content=types.Content(
      role="model", parts=[types.Part(function_call=c) for c in calls]))


async def test_handle_function_calls_async_runs_the_tools_with_callbacks():
  seen = []

  def add(a: int, b: int) -> int:
    """Adds."""
    return a + b

  def before(tool, args, tool_context):
    seen.append((tool.name, dict(args)))

  agent = Agent(name="agent", model="gemini-2.5-flash", tools=[add], before_tool_callback=before)
  service = InMemorySessionService()
  session = await service.create_session(app_name="app", user_id="u")
  ctx = InvocationContext(session_service=service, invocation_id="i", agent=agent, session=session)
  event = await handle_function_calls_async(
      ctx, call_event(types.FunctionCall(id="c1", name="add", args={"a": 2, "b": 3})), {"add": FunctionTool(add)})
  [part] = event.content.parts
  assert (part.function_response.id, part.function_response.response) == ("c1", {"result": 5})
  assert seen == [("add", {"a": 2, "b": 3})]
  assert await handle_function_calls_async(ctx, call_event(types.FunctionCall(id="c2", name="add", args={})),
                                           {"add": FunctionTool(add)}, filters={"other"}) is None


def test_find_matching_call_and_merge_responses():
  call = call_event(types.FunctionCall(id="c1", name="f"), types.FunctionCall(id="c2", name="g"))
  answer = lambda cid, name, delta: Event(
      invocation_id="i", author="agent", actions=EventActions(state_delta=delta),
      content=types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
          id=cid, name=name, response={"ok": cid}))]))
  first, second = answer("c1", "f", {"a": 1}), answer("c2", "g", {"b": 2})
  assert find_matching_function_call([call, first]) is call
  assert find_matching_function_call([call], function_response_event=second) is call
  assert find_matching_function_call([first]) is None
  merged = merge_parallel_function_response_events([first, second])
  assert [p.function_response.id for p in merged.content.parts] == ["c1", "c2"]
  assert merged.actions.state_delta == {"a": 1, "b": 2}
  assert merge_parallel_function_response_events([first]) is first
  with pytest.raises(ValueError):
    merge_parallel_function_response_events([])
  assert (REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, REQUEST_EUC_FUNCTION_CALL_NAME) == (
      "adk_request_confirmation", "adk_request_credential")


async def _context(agent, events=(), state=None):
  service = InMemorySessionService()
  session = await service.create_session(app_name="app", user_id="u", state=state or {})
  session.events.extend(events)
  return InvocationContext(session_service=service, invocation_id="now", agent=agent, session=session)


def user(text, inv):
  return Event(invocation_id=inv, author="user", content=types.UserContent(text))


async def test_the_flow_classes_run_the_agents_loop_and_live_runs_are_refused():
  agent = Agent(name="helper", model=ScriptedModel([call("add", a=1, b=2), "3"]), tools=[add])
  ctx = await _context(agent, [user("1+2?", "now")])
  events = [e async for e in AutoFlow().run_async(ctx)]
  said = [e.get_function_calls()[0].name if e.get_function_calls() else e.text
          for e in events if not e.get_function_responses()]
  assert said == ["add", "3"] and {e.author for e in events} == {"helper"}
  with pytest.raises(NotImplementedError, match="live"):
    await handle_function_calls_live(None, None, {})


async def test_processors_by_hand_build_the_request_the_loop_sends():
  # A static instruction holds the system slot; the per-turn instruction goes just before the user's message.
  agent = Agent(name="helper", model="gemini-2.5-flash", static_instruction="You are terse.",
                instruction="Greet {name}.")
  ctx = await _context(agent, [user("hi", "now")], state={"name": "Ada"})
  request = LlmRequest()
  async for _ in SingleFlow()._preprocess_async(ctx, request):
    pass
  assert request.model == "gemini-2.5-flash"
  assert request.config.system_instruction.startswith('You are terse.\n\nYou are the agent "helper".')
  turn, said = request.contents
  assert "Greet Ada." in turn.parts[0].text and "Greet" not in request.config.system_instruction
  assert said.parts[0].text == "hi"


async def test_a_rewind_takes_the_rewound_turns_out_of_the_conversation():
  agent = Agent(name="helper", model="gemini-2.5-flash")
  events = [user("keep", "a"), user("drop", "b"),
            Event(invocation_id="r", author="helper", actions=EventActions(rewind_before_invocation_id="b")),
            user("after", "c")]
  ctx = await _context(agent, events)
  request = LlmRequest()
  async for _ in contents.request_processor.run_async(ctx, request):
    pass
  assert [c.parts[0].text for c in request.contents] == ["keep", "after"]


async def test_a_rewind_committed_after_earlier_model_calls_still_takes_its_turns_out():
  agent = Agent(name="helper", model="gemini-2.5-flash")
  ctx = await _context(agent, [user("keep", "a"), user("drop", "b")])

  async def conversation():
    request = LlmRequest()
    async for _ in contents.request_processor.run_async(ctx, request):
      pass
    return [c.parts[0].text for c in request.contents]

  assert await conversation() == ["keep", "drop"]  # the session has been read once, without a rewind
  ctx.session.events.extend([
      Event(invocation_id="r", author="helper", actions=EventActions(rewind_before_invocation_id="b")),
      user("after", "c")])
  assert await conversation() == ["keep", "after"]


async def test_an_empty_model_response_records_no_event():
  agent = Agent(name="helper", model=ScriptedModel([LlmResponse(content=None)]))
  ctx = await _context(agent, [user("hi", "now")])
  assert [e async for e in SingleFlow().run_async(ctx)] == []


async def test_instructions_and_identity_processors_fill_the_request():
  agent = Agent(name="helper", description="Answers questions.", model="gemini-2.5-flash",
                instruction="Greet {name} in {user:lang?}.")
  service = InMemorySessionService()
  session = await service.create_session(app_name="app", user_id="u", state={"name": "Ada"})
  ctx = InvocationContext(session_service=service, invocation_id="i", agent=agent, session=session)
  request = LlmRequest()
  for processor in (identity.request_processor, instructions.request_processor):
    async for _ in processor.run_async(ctx, request):
      pass
  assert request.config.system_instruction == (
      'You are the agent "helper". You are described as "Answers questions.".'
      "\n\nGreet Ada in .")
