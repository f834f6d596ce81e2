"""Tool results and state values have one JSON form: the model, the events and every store agree."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum

import pytest

from adk_nb.agents import LlmAgent
from adk_nb.runners import Runner
from adk_nb.sessions.json_form import MAX_DEPTH, NotJsonError, to_json_form
from adk_nb.testing import ScriptedModel, call, run_turn
from adk_nb.tools.tool_context import ToolContext
from tests.support import last_text

APP = "app"


class Colour(enum.Enum):
  RED = "red"


@dataclasses.dataclass
class Point:
  x: int
  y: float


class Opaque:
  """Has no JSON form."""


AWKWARD = {
    "nan": float("nan"), "inf": float("inf"), "neg_inf": float("-inf"), "n": 1.5,
    "bytes": b"\xff\x00", "tuple": (1, 2), "set": {"only"},
    "when": datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
    "day": datetime.date(2026, 1, 2), "wait": datetime.timedelta(seconds=90),
    "price": decimal.Decimal("1.50"), "colour": Colour.RED, "point": Point(1, float("nan")),
    7: "int key", "text": "bad \udcff name",
}
AS_JSON = {
    "nan": None, "inf": None, "neg_inf": None, "n": 1.5,
    "bytes": "_wA=", "tuple": [1, 2], "set": ["only"],
    "when": "2026-01-02T03:04:05Z", "day": "2026-01-02", "wait": "PT1M30S",
    "price": "1.50", "colour": "red", "point": {"x": 1, "y": None},
    "7": "int key", "text": "bad \ufffd name",
}


def test_the_documented_conversions():
  assert to_json_form(AWKWARD) == AS_JSON
  assert to_json_form([1, "a", None, True, {"k": [{}]}]) == [1, "a", None, True, {"k": [{}]}]


def test_values_without_a_json_form_are_named_with_their_path():
  with pytest.raises(NotJsonError, match=r"result\['a'\]\[1\] is a Opaque") as info:
    to_json_form({"a": [1, Opaque()]}, "result")
  assert info.value.type_name == "Opaque"
  cycle: list = []
  cycle.append(cycle)
  with pytest.raises(NotJsonError, match="cycle"):
    to_json_form(cycle)
  deep: list = []
  for _ in range(MAX_DEPTH + 5):
    deep = [deep]
  with pytest.raises(NotJsonError, match=f"more than {MAX_DEPTH} levels"):
    to_json_form(deep)


def awkward_tool(tool_context: ToolContext) -> dict:
  """Returns awkward values and writes some to state."""
  tool_context.state["when"] = AWKWARD["when"]
  tool_context.state["user:score"] = float("nan")
  return AWKWARD


def opaque_tool() -> dict:
  """Returns an object with no JSON form."""
  return {"handle": Opaque()}


def opaque_state_tool(tool_context: ToolContext) -> str:
  """Writes an object with no JSON form to state."""
  tool_context.state["ok"] = 1
  tool_context.state["handle"] = Opaque()
  return "stored"


def runner_for(service, tools, script):
  model = ScriptedModel(script)
  agent = LlmAgent(name="agent", model=model, tools=tools)
  return Runner(agent=agent, app_name=APP, session_service=service), model


def responses(events):
  return [p.function_response.response for e in events for p in (e.content.parts if e.content else [])
          if p.function_response]


async def test_a_tool_result_is_the_same_json_for_the_model_the_event_and_every_store(session_service):
  runner, model = runner_for(session_service, [awkward_tool], [call("awkward_tool"), "done"])
  events = await run_turn(runner, "go")
  sent = [p.function_response.response for c in model.requests[1].contents for p in c.parts
          if p.function_response]
  assert sent == [AS_JSON]
  assert responses(events) == [AS_JSON]
  stored = await session_service.get_session(app_name=APP, user_id="user", session_id="session")
  assert responses(stored.events) == [AS_JSON]
  assert stored.state["when"] == "2026-01-02T03:04:05Z" and stored.state["user:score"] is None
  [response_event] = [e for e in stored.events if responses([e])]
  assert response_event.actions.state_delta == {"when": "2026-01-02T03:04:05Z", "user:score": None}


async def test_an_unconvertible_result_is_an_error_answer_and_the_turn_goes_on(session_service):
  runner, model = runner_for(session_service, [opaque_tool], [call("opaque_tool"), "sorry"])
  events = await run_turn(runner, "go")
  [answer] = responses(events)
  assert "opaque_tool" in answer["error"] and "Opaque" in answer["error"]
  assert last_text(events) == "sorry"
  model.assert_complete()
  stored = await session_service.get_session(app_name=APP, user_id="user", session_id="session")
  assert responses(stored.events) == [answer]


async def test_an_unconvertible_state_write_is_an_error_answer_and_nothing_of_it_is_kept(session_service):
  runner, model = runner_for(session_service, [opaque_state_tool], [call("opaque_state_tool"), "ok"])
  events = await run_turn(runner, "go")
  [answer] = responses(events)
  assert "opaque_state_tool" in answer["error"] and "state['handle']" in answer["error"]
  assert "not kept" in answer["error"]
  stored = await session_service.get_session(app_name=APP, user_id="user", session_id="session")
  assert "ok" not in stored.state and "handle" not in stored.state
  model.assert_complete()


async def test_state_given_directly_is_converted_or_refused_before_anything_is_written(session_service):
  session = await session_service.create_session(app_name=APP, user_id="u", state={"user:t": (1, 2)})
  assert session.state == {"user:t": [1, 2]}
  from adk_nb.events import Event, EventActions
  await session_service.append_event(session, Event(author="a", actions=EventActions(
      state_delta={"when": AWKWARD["day"]})))
  with pytest.raises(ValueError, match=r"state\['bad'\] is a Opaque.*Nothing was written"):
    await session_service.append_event(session, Event(author="a", actions=EventActions(
        state_delta={"bad": Opaque(), "fine": 1})))
  loaded = await session_service.get_session(app_name=APP, user_id="u", session_id=session.id)
  assert loaded.state == {"user:t": [1, 2], "when": "2026-01-02"} and len(loaded.events) == 1


async def test_a_turns_state_delta_without_a_json_form_is_refused_before_the_turn_writes_anything(session_service):
  from adk_nb import Agent, Runner
  from adk_nb.testing import user_message

  model = ScriptedModel(["never sent"])
  runner = Runner(agent=Agent(name="a", model=model), app_name=APP, session_service=session_service)
  session = await session_service.create_session(app_name=APP, user_id="u")
  with pytest.raises(ValueError, match=r"state\['bad'\] is a Opaque.*Nothing was written"):
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=user_message("hi"),
                                    state_delta={"bad": Opaque()}):
      pass
  loaded = await session_service.get_session(app_name=APP, user_id="u", session_id=session.id)
  assert loaded.events == [] and model.requests == []  # no message, no error event, no model call
