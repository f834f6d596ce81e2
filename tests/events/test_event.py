"""Events: final-response rules, accessors, JSON round trip with ADK's camelCase aliases."""

import json

from google.genai import types

from adk_nb.events import Event, EventActions
from adk_nb.tools.tool_confirmation import ToolConfirmation


def _call_event():
  return Event(author="a", content=types.Content(role="model", parts=[
      types.Part(function_call=types.FunctionCall(id="c1", name="f", args={"x": 1})),
      types.Part(function_call=types.FunctionCall(id="c2", name="g", args={})),
  ]))


def test_function_calls_are_not_final_and_text_is():
  assert not _call_event().is_final_response()
  assert [c.name for c in _call_event().get_function_calls()] == ["f", "g"]
  text = Event(author="a", content=types.Content(role="model", parts=[types.Part(text="hi")]))
  assert text.is_final_response()
  assert not Event(author="a", partial=True, content=text.content).is_final_response()


def test_long_running_calls_and_skip_summarization_are_final():
  ev = _call_event()
  ev.long_running_tool_ids = {"c1"}
  assert ev.is_final_response()
  resp = Event(author="a", actions=EventActions(skip_summarization=True), content=types.Content(
      role="user", parts=[types.Part(function_response=types.FunctionResponse(id="c1", name="f", response={}))]))
  assert resp.is_final_response()
  assert resp.get_function_responses()[0].id == "c1"


def test_json_round_trip_uses_camel_case_and_keeps_everything():
  ev = Event(
      invocation_id="e-1", author="agent", branch="p.c",
      content=types.Content(role="model", parts=[types.Part(text="x")]),
      actions=EventActions(state_delta={"k": [1, 2]}, artifact_delta={"f.txt": 0}, transfer_to_agent="b",
                           escalate=True, requested_tool_confirmations={"c1": ToolConfirmation(hint="ok?")}),
      long_running_tool_ids={"z", "a"}, error_code="E", error_message="m",
  )
  data = json.loads(ev.model_dump_json(by_alias=True, exclude_none=True))
  assert data["invocationId"] == "e-1"
  assert data["actions"]["stateDelta"] == {"k": [1, 2]}
  assert data["actions"]["transferToAgent"] == "b"
  assert data["actions"]["requestedToolConfirmations"]["c1"]["hint"] == "ok?"
  assert data["longRunningToolIds"] == ["a", "z"]
  back = Event.model_validate(data)
  assert back == ev
  # snake_case input is accepted too
  assert Event.model_validate({"author": "x", "invocation_id": "i"}).invocation_id == "i"


def test_every_event_gets_a_unique_id_and_timestamp():
  a, b = Event(author="x"), Event(author="x")
  assert a.id and b.id and a.id != b.id
  assert a.timestamp > 0
