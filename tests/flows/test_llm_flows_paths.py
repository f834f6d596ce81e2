"""google-adk's flows.llm_flows paths: working function-call helpers, import-only processors that raise."""

import pytest
from google.genai import types

from adk_nb import Agent
from adk_nb.agents.invocation_context import InvocationContext
from adk_nb.events import Event, EventActions
from adk_nb.flows.llm_flows import contents, identity, instructions, request_confirmation
from adk_nb.flows.llm_flows.base_llm_flow import BaseLlmFlow
from adk_nb.flows.llm_flows.functions import (REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, REQUEST_EUC_FUNCTION_CALL_NAME,
                                              find_matching_function_call, handle_function_calls_async,
                                              handle_function_calls_live, merge_parallel_function_response_events)
from adk_nb.flows.llm_flows.single_flow import SingleFlow
from adk_nb.models import LlmRequest
from adk_nb.sessions import InMemorySessionService
from adk_nb.tools import FunctionTool


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


async def test_import_only_names_raise_naming_the_issue():
  for make in (BaseLlmFlow, SingleFlow):
    with pytest.raises(NotImplementedError, match="issue 14"):
      make()
  for processor in (contents.request_processor, request_confirmation.request_processor):
    with pytest.raises(NotImplementedError, match="issue 14"):
      async for _ in processor.run_async(None, LlmRequest()):
        pass
  with pytest.raises(NotImplementedError, match="live"):
    await handle_function_calls_live(None, None, {})


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
      'You are an agent. Your internal name is "helper". The description about you is "Answers questions.".'
      "\n\nGreet Ada in .")
