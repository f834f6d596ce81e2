"""Stored events decode to exactly what `Event.model_validate_json` gives, without google-genai's
per-model hooks (sessions/_event_decoder.py): the cold load of a long session costs half as much."""

from __future__ import annotations

import sys

import pytest
from google.genai import types

from adk_nb.events.event import Event, NodeInfo
from adk_nb.events.event_actions import EventActions, EventCompaction
from adk_nb.sessions import DatabaseSessionService
from adk_nb.sessions._event_decoder import decode
from adk_nb.tools.tool_confirmation import ToolConfirmation


def _corpus() -> list[Event]:
  """One event of each kind a session stores, with every typed corner (bytes, enums, nested models)."""
  call = types.FunctionCall(id="c1", name="refund", args={"order": "A1", "items": [1, 2], "note": None})
  return [
      Event(author="user", invocation_id="i1", content=types.Content(role="user", parts=[types.Part(text="hello")])),
      Event(author="desk", invocation_id="i1", content=types.Content(role="model", parts=[
          types.Part(text="thinking", thought=True, thought_signature=b"\x00\xffsig"),
          types.Part(function_call=call)]),
          long_running_tool_ids={"c1"}, finish_reason=types.FinishReason.STOP,
          usage_metadata=types.GenerateContentResponseUsageMetadata(prompt_token_count=12, candidates_token_count=3,
                                                                      total_token_count=15)),
      Event(author="desk", invocation_id="i1", content=types.Content(role="user", parts=[types.Part(
          function_response=types.FunctionResponse(id="c1", name="refund", response={"ok": True, "n": 1.5}))])),
      Event(author="desk", invocation_id="i1", content=types.Content(role="user", parts=[
          types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG\r\n\x1a\n\x00")),
          types.Part(executable_code=types.ExecutableCode(language=types.Language.PYTHON, code="print(1)")),
          types.Part(code_execution_result=types.CodeExecutionResult(outcome=types.Outcome.OUTCOME_OK, output="1")),
          types.Part(file_data=types.FileData(file_uri="gs://b/f.pdf", mime_type="application/pdf"))])),
      Event(author="desk", invocation_id="i2", branch="root.desk", error_code="ModelRateLimitError",
            error_message="slow down", custom_metadata={"k": [1, {"x": None}]}, turn_complete=True,
            citation_metadata=types.CitationMetadata(citations=[types.Citation(uri="https://e.x", start_index=1)]),
            actions=EventActions(state_delta={"a": 1, "user:b": [1, 2], "c": None}, artifact_delta={"f.txt": 2},
                                 transfer_to_agent="billing", escalate=True, skip_summarization=True,
                                 requested_tool_confirmations={"c1": ToolConfirmation(hint="ok?", payload={"x": 1})},
                                 rewind_before_invocation_id="i0", route=["a", 1])),
      Event(author="wf", invocation_id="i3", output={"total": 3, "items": ["a"]},
            node_info=NodeInfo(path="wf@1/step@2"), isolation_scope="c9",
            actions=EventActions(compaction=EventCompaction(
                start_timestamp=1.0, end_timestamp=2.0,
                compacted_content=types.Content(role="model", parts=[types.Part(text="summary")])))),
      Event(author="desk", invocation_id="i4", content=types.Content(role="model", parts=[]), partial=False,
            grounding_metadata=types.GroundingMetadata(web_search_queries=["q"])),
  ]


@pytest.mark.parametrize("index", range(len(_corpus())))
def test_a_stored_event_decodes_to_what_model_validate_json_gives(index):
  event = _corpus()[index]
  data = event.model_dump_json(by_alias=True, exclude_none=True)  # as the database store writes it
  reference = Event.model_validate_json(data)
  decoded = decode(data)
  assert decoded == reference
  assert decoded.model_dump_json(by_alias=True, exclude_none=True) == data
  pairs = [(decoded, reference)]
  while pairs:  # the same classes and the same fields set, all the way down
    a, b = pairs.pop()
    assert type(a) is type(b)
    if hasattr(b, "model_fields_set"):
      assert a.model_fields_set == b.model_fields_set
      pairs += [(getattr(a, name), getattr(b, name)) for name in type(b).model_fields]
    elif isinstance(b, (list, tuple)):
      pairs += list(zip(a, b))
    elif isinstance(b, dict):
      pairs += [(a[k], b[k]) for k in b]


@pytest.mark.parametrize("data", ['{"author": "x"', '{"timestamp": "not a time"}', '{"content": {"parts": 3}}',
                                  '{"actions": {"artifactDelta": {"f": "two"}}}', '[1]'])
def test_a_row_that_is_not_an_event_is_refused_as_model_validate_json_refuses_it(data):
  with pytest.raises(ValueError) as expected:
    Event.model_validate_json(data)
  with pytest.raises(ValueError) as got:
    decode(data)
  assert str(got.value).splitlines()[0] == str(expected.value).splitlines()[0]


async def _python_calls_to_load(tmp_path, name: str, events: int) -> int:
  store = DatabaseSessionService(f"sqlite:///{tmp_path / name}")
  session = await store.create_session(app_name="app", user_id="u", session_id="s")
  for i in range(events):
    await store.append_event(session, Event(author="desk", invocation_id=f"i{i}", content=types.Content(
        role="model", parts=[types.Part(text=f"m{i}"), types.Part(function_call=types.FunctionCall(
            id=f"c{i}", name="lookup", args={"i": i}))])))
  await store.close()
  fresh = DatabaseSessionService(f"sqlite:///{tmp_path / name}")
  await fresh.get_session(app_name="app", user_id="u", session_id="s")  # the engine and tables, warmed
  await fresh.close()
  fresh = DatabaseSessionService(f"sqlite:///{tmp_path / name}")
  calls = 0

  def count(frame, event, arg):
    nonlocal calls
    if event == "call":
      calls += 1

  sys.setprofile(count)
  try:
    loaded = await fresh.get_session(app_name="app", user_id="u", session_id="s")
  finally:
    sys.setprofile(None)
  assert len(loaded.events) == events
  await fresh.close()
  return calls


async def test_a_cold_load_runs_no_python_per_part_of_a_stored_event(tmp_path):
  """Counted in Python calls, not time: each further stored event (a Content of two Parts) costs the
  store's row decode and Event's own hooks (4 calls) and the event's empty `node_info` (1: NodeInfo's
  __init__, as google-adk builds one per event), not google-genai's: its model validator on the
  Content and on each Part and Part's __init__ made it 50 calls per event."""
  short = await _python_calls_to_load(tmp_path, "short.db", 10)
  long = await _python_calls_to_load(tmp_path, "long.db", 110)
  per_event = (long - short) / 100
  assert per_event <= 6, per_event


def test_when_the_fast_decoder_cannot_be_built_events_decode_as_before(monkeypatch):
  from adk_nb.sessions import _event_decoder

  def unbuildable():
    raise KeyError("a pydantic release that lays its schema out differently")

  monkeypatch.setattr(_event_decoder, "_decoder", None)
  monkeypatch.setattr(_event_decoder, "_fast_validator", unbuildable)
  data = _corpus()[1].model_dump_json(by_alias=True, exclude_none=True)
  assert decode(data) == Event.model_validate_json(data)
  assert _event_decoder._decoder == Event.model_validate_json
