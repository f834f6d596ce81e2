"""LlmAgent: model resolution, instructions, tools as the model sees them, output_key and schema."""

import asyncio
from enum import Enum
from typing import Literal, Optional

import pytest
from google.genai import types
from pydantic import BaseModel, ValidationError

from adk_nb import Agent, InMemoryRunner
from adk_nb.agents import RunConfig, SequentialAgent, StreamingMode
from adk_nb.agents.invocation_context import LlmCallsLimitExceededError
from adk_nb.models import LlmResponse
from adk_nb.testing import ScriptedModel, call, run_turn, summarize
from adk_nb.tools import FunctionTool, ToolContext
from tests.support import function_calls, function_responses, last_text


def texts(events):
  return [e.text for e in events if e.text]


async def test_tool_round_trip_commits_each_event_before_the_agent_resumes():
  seen_by_tool = {}

  def add(a: int, b: int, tool_context: ToolContext) -> int:
    """Adds two numbers."""
    # The model's function-call event is already in the session when the tool runs.
    seen_by_tool["last_author"] = tool_context.session.events[-1].author
    seen_by_tool["calls"] = len(tool_context.session.events[-1].get_function_calls())
    tool_context.state["last_sum"] = a + b
    return a + b

  model = ScriptedModel([call("add", a=2, b=3), "The sum is 5."])
  agent = Agent(name="calc", model=model, tools=[add])
  runner = InMemoryRunner(agent, app_name="app")
  events = await run_turn(runner, "2+3?")
  assert summarize(events) == [("user", "text", "2+3?"), ("calc", "call", "add"), ("calc", "result", "add"),
                               ("calc", "state", "last_sum"), ("calc", "text", "The sum is 5.")]
  result = events[2]
  assert result.get_function_responses()[0].response == {"result": 5}
  assert result.actions.state_delta == {"last_sum": 5}
  assert events[-1].is_final_response() and events[-1].text == "The sum is 5."
  assert seen_by_tool == {"last_author": "calc", "calls": 1}
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert session.state["last_sum"] == 5 and len(session.events) == 4
  # The second request carries the call and its answer.
  sent = model.requests[1].contents
  assert sent[1].parts[0].function_call.name == "add"
  assert sent[2].parts[0].function_response.response == {"result": 5}
  model.assert_complete()


def test_schema_the_model_receives_is_derived_from_the_signature():
  class Color(Enum):
    RED = "red"
    BLUE = "blue"

  class Address(BaseModel):
    city: str
    zip: Optional[str] = None

  def ship(item: str, qty: int, express: bool, weight: float, tags: list[str], meta: dict,
           note: Optional[str] = None, size: Literal["s", "m"] = "m", color: Color = Color.RED,
           address: Optional[Address] = None, tool_context: ToolContext = None) -> dict:
    """Ships an item.

    Args:
      item: What to ship.
      qty: How many.
    """
    return {}

  decl = FunctionTool(ship)._get_declaration()
  schema = decl.parameters_json_schema
  props = schema["properties"]
  assert decl.name == "ship" and decl.description.startswith("Ships an item.")
  assert schema["required"] == ["item", "qty", "express", "weight", "tags", "meta"]
  assert "tool_context" not in props
  # As google-adk 2.13: pydantic's titles; the docstring's Args stay in the description only.
  assert props["item"] == {"type": "string", "title": "Item"} and "item: What to ship." in decl.description
  assert props["qty"]["type"] == "integer" and props["express"]["type"] == "boolean"
  assert props["weight"]["type"] == "number" and props["tags"] == {"type": "array", "items": {"type": "string"}, "title": "Tags"}
  assert props["meta"]["type"] == "object"
  assert props["size"]["enum"] == ["s", "m"]
  assert "$defs" in schema and {"city"} <= set(schema["$defs"]["Address"]["properties"])


async def test_tool_arguments_are_validated_and_converted():
  class Point(BaseModel):
    x: int
    y: int

  got = {}

  async def move(p: Point, steps: int = 1) -> str:
    got["p"], got["steps"] = p, steps
    return "ok"

  model = ScriptedModel([call("move", p={"x": 1, "y": 2}, steps="3"), call("move", p={"x": "bad"}), "done"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[move]), app_name="app")
  events = await run_turn(runner, "go")
  assert isinstance(got["p"], Point) and got["p"].y == 2 and got["steps"] == 3
  error = function_responses(events)[1].response["error"]
  assert "Invalid arguments for `move`" in error and "p.x" in error and "p.y" in error
  assert last_text(events) == "done"


async def test_unknown_tool_is_an_error_response_the_model_reads():
  def boom() -> str:
    return "boom"

  model = ScriptedModel([call("nope"), "recovered"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[boom]), app_name="app")
  events = await run_turn(runner, "go")
  first = function_responses(events)[0].response["error"]
  assert "`nope()`" in first and "boom" in first
  assert last_text(events) == "recovered"


async def test_raising_tool_raises_out_of_the_run_after_an_error_event():
  def boom() -> str:
    raise RuntimeError("disk on fire")

  model = ScriptedModel([call("boom"), "next turn"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[boom]), app_name="app")
  session = await runner.session_service.create_session(app_name="app", user_id="user", session_id="session")
  seen = []
  with pytest.raises(RuntimeError, match="disk on fire"):
    async for event in runner.run_async(user_id="user", session_id=session.id,
                                        new_message=types.Content(role="user", parts=[types.Part(text="go")])):
      seen.append(event)
  assert [e.author for e in seen] == ["a", "a"] and seen[0].get_function_calls()  # the call, then the error
  assert seen[-1].error_code == "RuntimeError" and seen[-1].error_message == "disk on fire"
  assert len(model.requests) == 1
  # The next run answers the call the failure left open, so the history stays valid for any provider.
  await run_turn(runner, "again")
  answers = [p.function_response for c in model.requests[1].contents for p in c.parts if p.function_response]
  assert answers[0].name == "boom" and "Interrupted" in answers[0].response["error"]


async def test_on_tool_error_callback_answers_for_a_raising_tool():
  def boom() -> str:
    raise RuntimeError("disk on fire")

  def fallback(tool, args, tool_context, error):
    return {"fallback": f"{type(error).__name__}: {error}"}

  model = ScriptedModel([call("boom"), "recovered"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[boom], on_tool_error_callback=fallback), app_name="app")
  events = await run_turn(runner, "go")
  assert [r.response for r in function_responses(events)] == [{"fallback": "RuntimeError: disk on fire"}]
  assert last_text(events) == "recovered"


async def test_model_error_raises_and_the_session_keeps_what_was_committed():
  model = ScriptedModel([call("t"), ConnectionError("provider down")])

  def t() -> str:
    return "x"

  runner = InMemoryRunner(Agent(name="a", model=model, tools=[t]), app_name="app")
  with pytest.raises(ConnectionError, match="provider down"):
    await run_turn(runner, "go")
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert [e.author for e in session.events] == ["user", "a", "a", "a"]
  assert session.events[-1].error_code == "ConnectionError" and session.events[-1].error_message == "provider down"


async def test_error_code_is_the_providers_status_when_the_exception_carries_one():
  class ApiError(Exception):
    status = "PERMISSION_DENIED"

  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel([ApiError("no key")])), app_name="app")
  with pytest.raises(ApiError):
    await run_turn(runner, "go")
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert session.events[-1].error_code == "PERMISSION_DENIED"


async def test_several_calls_in_one_turn_run_concurrently_and_answer_in_one_event():
  started = []
  gate = asyncio.Event()

  async def slow(name: str) -> str:
    started.append(name)
    if len(started) == 2:
      gate.set()
    await asyncio.wait_for(gate.wait(), 30)  # deadlocks unless both calls run at once (generous: a loaded machine)
    return name.upper()

  model = ScriptedModel([[call("slow", name="a"), call("slow", name="b")], "both"])
  runner = InMemoryRunner(Agent(name="p", model=model, tools=[slow]), app_name="app")
  events = await run_turn(runner, "go")
  responses = function_responses(events)
  assert [r.response["result"] for r in responses] == ["A", "B"]
  assert [r.id for r in responses] == [c.id for c in function_calls(events)]


async def test_instruction_templating_from_state_and_providers():
  model = ScriptedModel(["ok", "ok"])
  agent = Agent(name="a", model=model,
                instruction='Hi {user:name}, topic {topic}, opt [{missing?}], app {app:v}, json {"k": 1}, {not a key}')
  runner = InMemoryRunner(agent, app_name="app")
  await runner.session_service.create_session(app_name="app", user_id="user", session_id="session",
                                              state={"user:name": "Ann", "topic": "tea", "app:v": 7})
  await run_turn(runner, "hi")
  si = model.requests[0].system_instruction_text
  assert 'Hi Ann, topic tea, opt [], app 7, json {"k": 1}, {not a key}' in si
  assert 'You are the agent "a".' in si

  def provider(ctx):
    return "Provided {not_templated} for " + ctx.agent_name

  agent2 = Agent(name="b", model=model, instruction=provider)
  await run_turn(InMemoryRunner(agent2, app_name="app"), "hi")
  assert "Provided {not_templated} for b" in model.requests[1].system_instruction_text


async def test_missing_required_state_key_names_the_fix():
  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel(["x"]), instruction="Use {absent}."), app_name="app")
  with pytest.raises(KeyError, match=r"absent.*\{absent\?\}"):
    await run_turn(runner, "hi")
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert session.events[-1].error_code == "KeyError" and "{absent?}" in session.events[-1].error_message


async def test_global_instruction_and_model_inherited_from_ancestor():
  model = ScriptedModel(["from child"])
  child = Agent(name="child", instruction="Be the child.")
  root = SequentialAgent(name="seq", sub_agents=[child])
  outer = Agent(name="root", model=model, global_instruction="Always be polite.", sub_agents=[])
  assert outer.canonical_model is model
  assert child.canonical_model.model == Agent.DEFAULT_MODEL  # no model above it yet: google-adk's default
  parent = Agent(name="parent", model=model, global_instruction="Always be polite.", sub_agents=[root])
  events = await run_turn(InMemoryRunner(root, app_name="app"), "hi")
  assert child.canonical_model is model
  assert texts(events) == ["hi", "from child"]
  assert parent.root_agent is parent and child.root_agent is parent
  assert "Always be polite." in model.requests[0].system_instruction_text


async def test_output_key_and_output_schema():
  class Verdict(BaseModel):
    ok: bool
    reason: str

  model = ScriptedModel(['{"ok": true, "reason": "fine"}', "not json"])
  agent = Agent(name="judge", model=model, output_schema=Verdict, output_key="verdict")
  runner = InMemoryRunner(agent, app_name="app")
  await run_turn(runner, "judge")
  assert model.requests[0].config.response_mime_type == "application/json"
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert session.state["verdict"] == {"ok": True, "reason": "fine"}
  with pytest.raises(ValidationError):
    await run_turn(runner, "again")
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert session.state["verdict"] == {"ok": True, "reason": "fine"}
  # As in ADK the answer that failed its schema is not committed; the error event says why.
  assert [e.author for e in session.events[-2:]] == ["user", "judge"]
  assert session.events[-1].error_code == "ValidationError" and session.events[-1].content is None


async def test_a_blank_last_answer_with_output_schema_keeps_the_state_and_does_not_fail():
  class Verdict(BaseModel):
    ok: bool

  # A stream can end with a whitespace-only chunk; there is nothing to validate, so nothing is saved.
  model = ScriptedModel(['{"ok": true}', LlmResponse(content=types.ModelContent("  \n"))])
  runner = InMemoryRunner(Agent(name="judge", model=model, output_schema=Verdict, output_key="verdict"),
                          app_name="app")
  await run_turn(runner, "judge")
  events = await run_turn(runner, "again")
  assert events[-1].text.strip() == "" and not events[-1].error_code
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert session.state["verdict"] == {"ok": True}


async def test_include_contents_none_sends_only_the_current_turn():
  model = ScriptedModel(["one", "two"])
  runner = InMemoryRunner(Agent(name="a", model=model, include_contents="none"), app_name="app")
  await run_turn(runner, "first")
  await run_turn(runner, "second")
  assert [c.parts[0].text for c in model.requests[1].contents] == ["second"]


async def test_history_is_sent_in_full_and_grows_by_turn():
  model = ScriptedModel(["r1", "r2", "r3"])
  runner = InMemoryRunner(Agent(name="a", model=model), app_name="app")
  for msg in ("m1", "m2", "m3"):
    await run_turn(runner, msg)
  assert [c.parts[0].text for c in model.requests[2].contents] == ["m1", "r1", "m2", "r2", "m3"]
  assert [c.role for c in model.requests[2].contents] == ["user", "model", "user", "model", "user"]


async def test_streaming_yields_partials_then_one_final_event_and_stores_only_the_final():
  model = ScriptedModel(["Hello streaming world"], chunk_size=5)
  runner = InMemoryRunner(Agent(name="a", model=model), app_name="app")
  events = await run_turn(runner, "hi", run_config=RunConfig(streaming_mode=StreamingMode.SSE),
                          include_partial=True)
  partial = [e for e in events if e.partial]
  assert "".join(e.text for e in partial) == "Hello streaming world" and len(partial) == 5
  assert events[-1].text == "Hello streaming world" and not events[-1].partial
  assert {e.id for e in partial} == {events[-1].id}
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert [e.partial for e in session.events] == [None, None]


async def test_max_llm_calls_raises_after_an_error_event():
  def again() -> str:
    return "again"

  model = ScriptedModel(lambda req: call("again"))
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[again]), app_name="app")
  with pytest.raises(LlmCallsLimitExceededError, match="max_llm_calls"):
    await run_turn(runner, "loop", run_config=RunConfig(max_llm_calls=3))
  assert len(model.requests) == 3
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert session.events[-1].error_code == "LlmCallsLimitExceededError"


def test_configuration_mistakes_are_raised_at_construction():
  with pytest.raises(ValueError, match="Invalid agent name 'my agent'.*'my_agent'"):
    Agent(name="my agent")
  with pytest.raises(ValueError, match="reserved"):
    Agent(name="user")
  child = Agent(name="child")
  Agent(name="p1", sub_agents=[child])
  with pytest.raises(ValueError, match="already has parent 'p1'.*AgentTool"):
    Agent(name="p2", sub_agents=[child])
  with pytest.raises(ValueError, match="tools=\\["):
    Agent(name="x", generate_content_config=types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[types.FunctionDeclaration(name="f")])]))


def test_tree_navigation_and_clone():
  leaf = Agent(name="leaf")
  mid = SequentialAgent(name="mid", sub_agents=[leaf])
  root = Agent(name="root", sub_agents=[mid])
  assert root.find_agent("leaf") is leaf and leaf.root_agent is root and leaf.parent_agent is mid
  assert root.find_agent("nope") is None
  copy = mid.clone({"name": "mid2"})
  assert copy.parent_agent is None and copy.name == "mid2"
  assert copy.sub_agents[0] is not leaf and copy.sub_agents[0].parent_agent is copy
  Agent(name="root2", sub_agents=[copy])  # a clone can join another tree


async def test_before_model_callback_can_answer_without_calling_the_model():
  model = ScriptedModel([])

  def cached(callback_context, llm_request):
    callback_context.state["cache_hit"] = True
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text="cached")]))

  runner = InMemoryRunner(Agent(name="a", model=model, before_model_callback=cached), app_name="app")
  events = await run_turn(runner, "hi")
  assert events[-1].text == "cached" and events[-1].actions.state_delta == {"cache_hit": True}
  assert model.requests == []


async def test_output_schema_with_tools_answers_through_set_model_response():
  class Forecast(BaseModel):
    city: str
    temp_c: int

  def lookup(city: str) -> dict:
    return {"temp_c": 21}

  model = ScriptedModel([call("lookup", city="Oslo"), call("set_model_response", city="Oslo"),
                         call("set_model_response", city="Oslo", temp_c=21)])
  agent = Agent(name="w", model=model, tools=[lookup], output_schema=Forecast, output_key="forecast")
  runner = InMemoryRunner(agent, app_name="app")
  events = await run_turn(runner, "weather in Oslo?")
  assert "set_model_response" in model.requests[0].tools_dict and model.requests[0].config.response_schema is None
  error = function_responses(events)[1].response["error"]
  assert "temp_c" in error and "Call set_model_response again" in error
  assert events[-1].is_final_response() and events[-1].text == '{"city": "Oslo", "temp_c": 21}'
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert session.state["forecast"] == {"city": "Oslo", "temp_c": 21}
  model.assert_complete()


async def test_requests_carry_the_agent_name_label_without_touching_the_agents_config():
  config = types.GenerateContentConfig(temperature=0.1, labels={"team": "support"})
  model = ScriptedModel(["hi"])
  agent = Agent(name="helper", model=model, generate_content_config=config)
  await run_turn(InMemoryRunner(agent, app_name="app"), "hi")
  assert model.requests[0].config.labels == {"team": "support", "adk_agent_name": "helper"}
  assert config.labels == {"team": "support"}


async def test_call_ids_made_up_by_adk_nb_reach_only_models_that_pair_calls_by_id():
  def ping() -> str:
    return "pong"

  class PairingModel(ScriptedModel):
    @property
    def pairs_calls_by_id(self) -> bool:
      return True

  for model, kept in ((ScriptedModel([call("ping"), "done"]), False), (PairingModel([call("ping"), "done"]), True)):
    runner = InMemoryRunner(Agent(name="a", model=model, tools=[ping]), app_name="app")
    events = await run_turn(runner, "go")
    [call_id] = [c.id for c in function_calls(events)]
    assert call_id.startswith("adk-")  # the session keeps the id, so answers can be matched
    sent = model.requests[1].contents
    ids = [sent[1].parts[0].function_call.id, sent[2].parts[0].function_response.id]
    assert ids == ([call_id, call_id] if kept else [None, None])


def test_run_config_limits_and_the_agent_tree_names(caplog):
  import sys

  assert RunConfig(max_llm_calls=100).max_llm_calls == 100
  with caplog.at_level("WARNING"):
    RunConfig(max_llm_calls=0)
  assert "no limit on model calls" in caplog.text
  with pytest.raises(ValueError, match="use 0"):
    RunConfig(max_llm_calls=sys.maxsize)
  # ADK's live-only transcription settings exist, one object per config
  assert RunConfig().output_audio_transcription is not RunConfig().output_audio_transcription
  leaf = Agent(name="leaf", model="gemini-2.5-flash")
  root = Agent(name="root", model="gemini-2.5-flash", sub_agents=[Agent(name="mid", model="gemini-2.5-flash",
                                                                      sub_agents=[leaf])])
  assert leaf._get_available_agent_names() == ["root", "mid", "leaf"]
