"""Planners: what the model is sent (thinking config, planning instruction) and the events made of its answers."""

import pytest
from google.genai import types

from adk_nb import Agent
from adk_nb.agents.run_config import RunConfig, StreamingMode
from adk_nb.models import LlmResponse, ScriptedModel, call
from adk_nb.planners import BasePlanner, BuiltInPlanner, PlanReActPlanner
from adk_nb.planners.plan_re_act_planner import FINAL_ANSWER_TAG, PLANNING_TAG, REASONING_TAG
from adk_nb.runners import InMemoryRunner
from adk_nb.testing import run_turn


def get_weather(city: str) -> dict:
  """Returns the forecast for a city."""
  return {"city": city, "forecast": "sunny"}


def runner_for(agent):
  return InMemoryRunner(agent, app_name="plans")


def parts_of(event):
  return [(p.text, bool(p.thought)) if p.function_call is None else ("call", p.function_call.name)
          for p in event.content.parts]


async def test_built_in_planner_sends_its_thinking_config_over_the_agents():
  thinking = types.ThinkingConfig(include_thoughts=True, thinking_budget=256)
  model = ScriptedModel([[types.Part(text="Sunny weather means...", thought=True), "It is sunny."], "Still sunny."])
  agent = Agent(name="thinker", model=model, planner=BuiltInPlanner(thinking_config=thinking),
                generate_content_config=types.GenerateContentConfig(
                    temperature=0.1, thinking_config=types.ThinkingConfig(thinking_budget=0)))
  runner = runner_for(agent)

  events = await run_turn(runner, "Weather?")
  await run_turn(runner, "And now?")

  first, second = model.requests
  assert first.config.thinking_config == thinking and first.config.temperature == 0.1
  answer = events[-1]
  assert parts_of(answer) == [("Sunny weather means...", True), ("It is sunny.", False)]
  assert answer.text == "It is sunny." and answer.is_final_response()
  # Thoughts stay on the stored event but are not sent back to the model.
  sent = [p.text for c in second.contents for p in c.parts]
  assert sent == ["Weather?", "It is sunny.", "And now?"]
  assert "planning" not in (first.config.system_instruction or "").lower()


def test_built_in_planner_needs_a_thinking_config():
  with pytest.raises(TypeError, match="ThinkingConfig"):
    BuiltInPlanner(thinking_config="high")


def test_an_agent_refuses_something_that_is_not_a_planner():
  with pytest.raises(ValueError, match="PlanReActPlanner"):
    Agent(name="a", model=ScriptedModel([]), planner="react")


async def test_plan_react_instruction_and_thought_parts_through_a_tool_call():
  model = ScriptedModel([
      [f"{PLANNING_TAG}1. Look up Paris with get_weather.", call("get_weather", city="Paris"),
       "text after the call is dropped"],
      f"{REASONING_TAG}The tool says sunny.{FINAL_ANSWER_TAG}It is sunny in Paris.",
  ])
  agent = Agent(name="planner", model=model, instruction="Answer weather questions.", tools=[get_weather],
                planner=PlanReActPlanner(), output_key="answer")
  runner = runner_for(agent)

  events = await run_turn(runner, "Weather in Paris?")

  first, second = model.requests
  system = first.config.system_instruction
  # google-adk's order: the agent's instruction, its identity, then the planner's instruction.
  assert system.startswith("Answer weather questions.") and "You are the agent " in system
  assert system.index("You are the agent ") < system.index("/*PLANNING*/")
  for tag in ("/*PLANNING*/", "/*ACTION*/", "/*REASONING*/", "/*FINAL_ANSWER*/", "/*REPLANNING*/"):
    assert tag in system
  calling, answered, final = events[1:]
  assert parts_of(calling) == [("1. Look up Paris with get_weather.", True), ("call", "get_weather")]
  assert answered.get_function_responses()[0].response == {"city": "Paris", "forecast": "sunny"}
  assert parts_of(final) == [("The tool says sunny.", True), ("It is sunny in Paris.", False)]
  assert final.text == "It is sunny in Paris."
  session = await runner.session_service.get_session(app_name="plans", user_id="user", session_id="session")
  assert session.state["answer"] == "It is sunny in Paris."
  # The second request carries the plan back as plain text (the model follows it), the call and its answer.
  sent = [(c.role, [p.text if p.text else (p.function_call or p.function_response).name for p in c.parts])
          for c in second.contents]
  assert sent == [("user", ["Weather in Paris?"]), ("model", ["1. Look up Paris with get_weather.", "get_weather"]),
                  ("user", ["get_weather"])]
  assert not any(p.thought for c in second.contents for p in c.parts)
  assert calling.content.parts[0].thought  # the stored event keeps the mark


def test_plan_react_rewrites_parts_as_adk_does():
  planner = PlanReActPlanner()
  process = lambda *parts: planner.process_planning_response(None, list(parts))  # noqa: E731
  text = lambda t: types.Part(text=t)  # noqa: E731
  fc = lambda name: types.Part(function_call=types.FunctionCall(name=name, args={}))  # noqa: E731

  assert process() is None
  # Untagged text stays an answer; tagged text becomes a thought without its tags.
  assert [(p.text, p.thought) for p in process(text("plain"))] == [("plain", None)]
  assert [(p.text, p.thought) for p in process(text("/*ACTION*/x /*REASONING*/y"))] == [("x y", True)]
  # The last FINAL_ANSWER tag splits reasoning from the answer; nothing empty is kept.
  out = process(text(f"{REASONING_TAG}a{FINAL_ANSWER_TAG}b{FINAL_ANSWER_TAG}c"))
  assert [(p.text, p.thought) for p in out] == [(f"a{FINAL_ANSWER_TAG}b", True), ("c", None)]
  assert [(p.text, p.thought) for p in process(text(f"{FINAL_ANSWER_TAG}only"))] == [("only", None)]
  # Calls without a name are skipped; the first group of calls is kept, whatever follows is not.
  out = process(text("/*PLANNING*/p"), fc(""), fc("a"), fc("b"), text("late"), fc("c"))
  assert [p.function_call.name if p.function_call else p.text for p in out] == ["p", "a", "b"]
  # The input parts are not changed.
  original = text("/*PLANNING*/p")
  process(original)
  assert original.text == "/*PLANNING*/p" and original.thought is None


async def test_plan_react_streams_partials_then_the_rewritten_answer():
  model = ScriptedModel([f"{PLANNING_TAG}think{FINAL_ANSWER_TAG}Done."], chunk_size=6)
  agent = Agent(name="planner", model=model, planner=PlanReActPlanner())
  events = await run_turn(runner_for(agent), "Go", run_config=RunConfig(streaming_mode=StreamingMode.SSE),
                          include_partial=True)
  final = events[-1]
  assert not final.partial and parts_of(final) == [("think", True), ("Done.", False)]
  assert any(e.partial for e in events)


class CountingPlanner(BasePlanner):
  """A custom planner: its own instruction, and a state write on each answer."""

  def build_planning_instruction(self, readonly_context, llm_request):
    return f"Plan for {readonly_context.state.get('topic', 'anything')}."

  def process_planning_response(self, callback_context, response_parts):
    callback_context.state["answers_seen"] = callback_context.state.get("answers_seen", 0) + 1
    return [types.Part(text=p.text.upper()) if p.text else p for p in response_parts]


async def test_a_custom_planner_rewrites_answers_and_its_state_writes_are_committed():
  model = ScriptedModel(["ok"])
  agent = Agent(name="custom", model=model, planner=CountingPlanner())
  runner = runner_for(agent)
  events = await run_turn(runner, "Go", state_delta={"topic": "trains"})
  assert model.requests[0].config.system_instruction.endswith("Plan for trains.")
  state_event, answer = events[1:]
  assert state_event.actions.state_delta == {"answers_seen": 1} and state_event.content is None
  assert answer.text == "OK"
  session = await runner.session_service.get_session(app_name="plans", user_id="user", session_id="session")
  assert session.state["answers_seen"] == 1


async def test_planner_runs_on_an_answer_from_a_before_model_callback():
  def canned(callback_context, llm_request):
    return LlmResponse(content=types.Content(role="model", parts=[
        types.Part(text=f"{PLANNING_TAG}skip the model{FINAL_ANSWER_TAG}Canned.")]))

  agent = Agent(name="canned", model=ScriptedModel([]), planner=PlanReActPlanner(), before_model_callback=canned)
  events = await run_turn(runner_for(agent), "Go")
  assert parts_of(events[-1]) == [("skip the model", True), ("Canned.", False)]


async def test_another_agents_thoughts_are_not_relayed_even_when_signed():
  from adk_nb.agents.sequential_agent import SequentialAgent

  first = Agent(name="first", model=ScriptedModel([[types.Part(text="secret plan", thought=True,
                                                               thought_signature=b"sig"), "Step one done."]]))
  second_model = ScriptedModel(["Step two done."])
  second = Agent(name="second", model=second_model)
  await run_turn(InMemoryRunner(SequentialAgent(name="pipeline", sub_agents=[first, second]), app_name="plans"), "Go")
  relayed = " ".join(p.text for c in second_model.requests[0].contents for p in c.parts if p.text)
  assert "Step one done." in relayed and "secret plan" not in relayed
