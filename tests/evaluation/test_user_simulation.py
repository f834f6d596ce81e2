"""Conversation scenarios played by a simulated user (a ScriptedModel here): starting prompt, plan, stop, cap."""

import pytest

from adk_nb import Agent
from adk_nb.evaluation import EvalCase, EvalSet, evaluate
from adk_nb.evaluation.conversation_scenarios import ConversationScenario
from adk_nb.evaluation.simulation import LlmBackedUserSimulatorConfig
from adk_nb.models import ScriptedModel

PLAN = "Ask for the weather in Paris, then in Oslo, then stop."


def scenario_set() -> EvalSet:
  return EvalSet(eval_set_id="simulated", eval_cases=[EvalCase(
      eval_id="two_cities", conversation_scenario=ConversationScenario(starting_prompt="hi", conversation_plan=PLAN))])


def simulated_user(replies: list[str]) -> ScriptedModel:
  """Says the next scripted line whatever the agent said (the plan and dialogue reach it in the prompt)."""
  return ScriptedModel(list(replies))


async def test_a_scenario_is_played_until_the_simulated_user_stops(make_weather_agent, tmp_path):
  user = simulated_user(["weather Paris", "weather Oslo", "Thanks! </finished>"])
  results = await evaluate(make_weather_agent(), scenario_set(), {"criteria": {}}, user_simulator_model=user,
                           progress=False, results_dir=tmp_path)
  turns = results.turns
  assert turns["user"].tolist() == ["hi", "weather Paris", "weather Oslo"]  # the starting prompt is sent as it is
  assert turns["actual_response"].tolist() == ["Hello! Ask me about the weather.", "It is 21 degrees C in Paris.",
                                               "It is 21 degrees C in Oslo."]
  assert results.cases.loc[0, "turns"] == 3 and results.cases.loc[0, "error"] is None
  # the simulator's model saw the plan, the stop signal and the dialogue so far
  last = user.requests[-1].contents[0].parts[0].text
  assert PLAN in last and "</finished>" in last
  assert "user: weather Oslo" in last and "weather: It is 21 degrees C in Oslo." in last
  assert len(user.requests) == 3  # no model call for the starting prompt
  user.assert_complete()


async def test_the_turn_cap_ends_a_conversation_that_never_stops(make_weather_agent, tmp_path):
  user = ScriptedModel(lambda request: "weather Rome")
  config = {"criteria": {}, "user_simulator_config": {"max_allowed_invocations": 3}}
  results = await evaluate(make_weather_agent(), scenario_set(), config, user_simulator_model=user, progress=False,
                           results_dir=tmp_path)
  assert results.turns["user"].tolist() == ["hi", "weather Rome", "weather Rome"]
  assert len(user.requests) == 2


def test_custom_instructions_must_keep_the_placeholders():
  with pytest.raises(ValueError, match="conversation_history"):
    LlmBackedUserSimulatorConfig(custom_instructions="{{ stop_signal }} {{ conversation_plan }}")


async def test_a_simulated_user_that_says_nothing_fails_the_case_with_the_reason(tmp_path):
  agent = Agent(name="a", model=ScriptedModel(lambda request: "ok"))
  results = await evaluate(agent, scenario_set(), {"criteria": {}}, user_simulator_model=ScriptedModel([""]),
                           progress=False, results_dir=tmp_path)
  assert results.cases.loc[0, "status"] == "error" and "returned no text" in results.cases.loc[0, "error"]
