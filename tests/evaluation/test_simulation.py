"""google-adk's simulation package in adk_nb: personas, the static simulator, the provider and its registry,
and the per_turn_user_simulator_quality_v1 metric (simulated user and judge are ScriptedModels)."""

import json

import pytest
from google.genai import types

from adk_nb.errors.not_found_error import NotFoundError
from adk_nb.evaluation import EvalCase, EvalSet, evaluate
from adk_nb.evaluation.conversation_scenarios import ConversationScenario
from adk_nb.evaluation.eval_metrics import EvalMetric, LlmBackedUserSimulatorCriterion
from adk_nb.evaluation.llm_as_judge_utils import Label
from adk_nb.evaluation.metric_evaluator_registry import DEFAULT_METRIC_EVALUATOR_REGISTRY
from adk_nb.evaluation.simulation import LlmBackedUserSimulatorConfig, NextUserMessage, Status
from adk_nb.evaluation.simulation.llm_backed_user_simulator import LlmBackedUserSimulator
from adk_nb.evaluation.simulation.llm_backed_user_simulator_prompts import (get_llm_backed_user_simulator_prompt,
                                                                            is_valid_user_simulator_template)
from adk_nb.evaluation.simulation.per_turn_user_simulator_quality_v1 import (PerTurnUserSimulatorQualityV1,
                                                                             _parse_llm_response)
from adk_nb.evaluation.simulation.pre_built_personas import (DEFAULT_USER_PERSONA_REGISTRY, PreBuiltBehaviors,
                                                             get_default_persona_registry)
from adk_nb.evaluation.simulation.static_user_simulator import StaticUserSimulator
from adk_nb.evaluation.simulation.user_simulator import (_SIMULATOR_BY_CONFIG_TYPE, BaseUserSimulatorConfig,
                                                         UserSimulator, register_user_simulator)
from adk_nb.evaluation.simulation.user_simulator_personas import UserBehavior, UserPersona
from adk_nb.evaluation.simulation.user_simulator_provider import UserSimulatorProvider
from adk_nb.models import ScriptedModel

PLAN = "Ask for the weather in Paris, then in Oslo, then stop."


def user(text: str) -> types.Content:
  return types.Content(role="user", parts=[types.Part(text=text)])


def scenario_case(persona=None) -> EvalCase:
  return EvalCase(eval_id="two_cities", conversation_scenario=ConversationScenario(
      starting_prompt="hi", conversation_plan=PLAN, user_persona=persona))


# ---- personas -------------------------------------------------------------------------------------


def test_a_scenario_names_a_pre_built_persona_by_id():
  scenario = ConversationScenario.model_validate({"starting_prompt": "hi", "conversation_plan": PLAN,
                                                  "user_persona": "NOVICE"})
  assert isinstance(scenario.user_persona, UserPersona) and scenario.user_persona.id == "NOVICE"
  assert PreBuiltBehaviors.ANSWER_ALL.value in scenario.user_persona.behaviors
  # written back, the persona is spelled out, and reads back the same
  again = ConversationScenario.model_validate(json.loads(scenario.model_dump_json(by_alias=True)))
  assert again.user_persona == scenario.user_persona
  with pytest.raises(NotFoundError, match="NOBODY not found in registry; registered personas: EXPERT, NOVICE"):
    ConversationScenario(starting_prompt="hi", conversation_plan=PLAN, user_persona="NOBODY")


def test_the_default_registry_has_expert_novice_and_evaluator():
  assert [p.id for p in DEFAULT_USER_PERSONA_REGISTRY.get_registered_personas()] == ["EXPERT", "NOVICE", "EVALUATOR"]
  assert len(PreBuiltBehaviors) == 11
  registry = get_default_persona_registry()  # a new one each call: registering here changes no other
  mine = UserPersona(id="HURRIED", description="Always short of time.", behaviors=[
      UserBehavior(name="Hurry", description="Wants it fast.", behavior_instructions=["Be brief."],
                   violation_rubrics=["The message is long."])])
  registry.register_persona("HURRIED", mine)
  assert registry.get_persona("HURRIED") is mine
  with pytest.raises(NotFoundError):
    DEFAULT_USER_PERSONA_REGISTRY.get_persona("HURRIED")
  assert mine.behaviors[0].get_behavior_instructions_str() == "  * Be brief."


async def test_the_simulated_user_plays_its_persona(make_weather_agent, tmp_path):
  model = ScriptedModel(["weather Paris", "</finished>"])
  await evaluate(make_weather_agent(), EvalSet(eval_set_id="s", eval_cases=[scenario_case("EXPERT")]),
                 {"criteria": {}}, user_simulator_model=model, progress=False, results_dir=tmp_path)
  prompt = model.requests[0].contents[0].parts[0].text
  expert = DEFAULT_USER_PERSONA_REGISTRY.get_persona("EXPERT")
  assert expert.description in prompt and PLAN in prompt and "user: hi" in prompt
  for behavior in expert.behaviors:
    assert behavior.name in prompt
  assert "{{" not in prompt and "Say </finished> when every request of the plan is done." in prompt


def test_custom_instructions_with_a_persona_need_a_persona_placeholder():
  persona = DEFAULT_USER_PERSONA_REGISTRY.get_persona("NOVICE")
  base = "Plan: {{ conversation_plan }}\nSo far: {{ conversation_history }}\nEnd with {{ stop_signal }}."
  with pytest.raises(ValueError, match="persona"):
    get_llm_backed_user_simulator_prompt("plan", "history", "</finished>", custom_instructions=base,
                                         user_persona=persona)
  text = get_llm_backed_user_simulator_prompt("plan", "history", "</finished>", user_persona=persona,
                                              custom_instructions=base + "\nYou are: {{ persona.description }}")
  assert text.endswith("You are: " + persona.description) and "End with </finished>." in text
  # no persona: the template is used as it is
  assert get_llm_backed_user_simulator_prompt("plan", "h", "</f>", custom_instructions=base).startswith("Plan: plan")
  assert is_valid_user_simulator_template(base, ["stop_signal", "conversation_plan", "conversation_history"])
  assert not is_valid_user_simulator_template(base, ["persona"])


def test_the_dialogue_goes_into_the_prompt_as_it_is():
  text = get_llm_backed_user_simulator_prompt("plan", "agent: type {{ stop_signal }} to quit", "</finished>")
  assert "agent: type {{ stop_signal }} to quit" in text


# ---- simulators and the provider -----------------------------------------------------------------


async def test_the_static_simulator_replays_the_user_messages_then_stops(make_turn):
  simulator = StaticUserSimulator(static_conversation=[make_turn("hi", "hello"), make_turn("bye", "ciao")])
  said = [await simulator.get_next_user_message([]) for _ in range(3)]
  assert [m.user_message.parts[0].text for m in said[:2]] == ["hi", "bye"]
  assert said[2].status == Status.STOP_SIGNAL_DETECTED and said[2].user_message is None
  assert simulator.get_simulation_evaluator() is None


def test_the_provider_picks_the_simulator_by_case_and_config(make_turn):
  provider = UserSimulatorProvider()
  assert isinstance(provider.provide(EvalCase(eval_id="a", conversation=[make_turn("hi", "hello")])),
                    StaticUserSimulator)
  simulated = UserSimulatorProvider(LlmBackedUserSimulatorConfig(max_allowed_invocations=3),
                                    model=ScriptedModel([])).provide(scenario_case())
  assert isinstance(simulated, LlmBackedUserSimulator) and simulated.config.max_allowed_invocations == 3
  with pytest.raises(NotImplementedError, match="per_turn_user_simulator_quality_v1"):
    simulated.get_simulation_evaluator()
  with pytest.raises(ValueError, match="Expect config of type"):
    UserSimulatorProvider({"model": "x"})
  with pytest.raises(ValueError, match="No simulator is registered for user_simulator_config of type `BaseUserSimulatorConfig`"):
    UserSimulatorProvider(BaseUserSimulatorConfig()).provide(scenario_case())


class EchoConfig(BaseUserSimulatorConfig):
  type: str = "echo"
  lines: list[str] = []


class EchoSimulator(UserSimulator):
  """Says its configured lines, then stops."""

  def __init__(self, *, config, conversation_scenario):
    super().__init__(config, config_type=EchoConfig)
    self.left = list(self._config.lines)

  async def get_next_user_message(self, events):
    if not self.left:
      return NextUserMessage(status=Status.STOP_SIGNAL_DETECTED)
    return NextUserMessage(status=Status.SUCCESS, user_message=user(self.left.pop(0)))


@pytest.fixture
def echo_registered():
  register_user_simulator(EchoConfig, EchoSimulator)
  yield
  _SIMULATOR_BY_CONFIG_TYPE.pop(EchoConfig)


async def test_a_registered_simulator_plays_cases_whose_config_has_its_type(make_weather_agent, echo_registered,
                                                                            tmp_path):
  config = {"criteria": {}, "user_simulator_config": {"type": "echo", "lines": ["weather Rome", "hi"]}}
  results = await evaluate(make_weather_agent(), EvalSet(eval_set_id="s", eval_cases=[scenario_case()]), config,
                           progress=False, results_dir=tmp_path)
  assert results.turns["user"].tolist() == ["weather Rome", "hi"]


def test_the_config_reads_simulator_options_into_their_class(echo_registered):
  from adk_nb.evaluation.eval_config import EvalConfig

  config = EvalConfig.model_validate({"criteria": {}, "userSimulatorConfig": {"maxAllowedInvocations": 4}})
  assert type(config.user_simulator_config) is LlmBackedUserSimulatorConfig  # no type: the model-driven one
  assert config.user_simulator_config.max_allowed_invocations == 4
  echo = EvalConfig(user_simulator_config={"type": "echo", "lines": ["a"]}).user_simulator_config
  assert isinstance(echo, EchoConfig) and echo.lines == ["a"]
  given = LlmBackedUserSimulatorConfig(max_allowed_invocations=2)
  assert EvalConfig(user_simulator_config=given).user_simulator_config is given


async def test_an_unknown_simulator_type_is_refused_with_the_known_ones(make_weather_agent, tmp_path):
  config = {"criteria": {}, "user_simulator_config": {"type": "nope"}}
  with pytest.raises(ValueError, match="no simulator is registered for; known types: \\['llm_backed'\\]"):
    await evaluate(make_weather_agent(), EvalSet(eval_set_id="s", eval_cases=[scenario_case()]), config,
                   progress=False, results_dir=tmp_path)


# ---- per_turn_user_simulator_quality_v1 ---------------------------------------------------------------


def judge_saying(verdicts: dict[str, bool]) -> ScriptedModel:
  """A judge whose verdict depends on the message under review (the text after '# Message to review')."""

  def reply(request):
    reviewed = request.contents[0].parts[0].text.split("# Message to review\n")[1].split("\n")[0]
    valid = verdicts.get(reviewed, True)
    criteria = [{"name": "Plan", "reasoning": "It follows the plan." if valid else f"{reviewed!r} is not in the plan.",
                 "passes": valid}, {"name": "Role", "reasoning": "It speaks as the user.", "passes": True}]
    return "```json\n" + json.dumps({"criteria": criteria, "is_valid": valid}) + "\n```"

  return ScriptedModel(reply)


QUALITY = {"criteria": {"per_turn_user_simulator_quality_v1": {
    "threshold": 0.6, "judge_model_options": {"num_samples": 3}}}}


async def test_the_quality_metric_scores_each_simulated_turn(make_weather_agent, tmp_path):
  simulated = ScriptedModel(["weather Paris", "weather Lima", "</finished>"])
  judge = judge_saying({"weather Lima": False})  # Lima is not in the plan
  results = await evaluate(make_weather_agent(), EvalSet(eval_set_id="s", eval_cases=[scenario_case()]), QUALITY,
                           user_simulator_model=simulated, judge_model=judge, progress=False, results_dir=tmp_path)
  turns = results.metrics.query("level == 'turn'")
  # the starting prompt is checked word for word, the other messages by the judge
  assert turns["score"].tolist() == [1.0, 1.0, 0.0]
  assert turns["rationale"].tolist()[2] == "Plan: 'weather Lima' is not in the plan."
  assert results.metrics.query("level == 'case'")["score"].tolist() == [pytest.approx(2 / 3)]
  assert results.passed
  assert len(judge.requests) == 3 * 3  # two messages and the ending, three samples each
  prompt = judge.requests[3].contents[0].parts[0].text  # the review of 'weather Lima'
  assert PLAN in prompt and "user: hi" in prompt and "user: weather Paris" in prompt
  assert "user: weather Lima" not in prompt.split("# Message to review")[0]


async def test_ending_at_the_wrong_time_fails_the_last_turn(make_weather_agent, tmp_path):
  simulated = ScriptedModel(lambda request: "weather Paris")
  judge = judge_saying({"</finished>": False})  # stopping after the cap was not what the plan said
  config = {**QUALITY, "user_simulator_config": {"max_allowed_invocations": 2}}
  results = await evaluate(make_weather_agent(), EvalSet(eval_set_id="s", eval_cases=[scenario_case()]), config,
                           user_simulator_model=simulated, judge_model=judge, progress=False, results_dir=tmp_path)
  assert results.metrics.query("level == 'turn'")["score"].tolist() == [1.0, 0.0]
  assert not results.passed


async def test_the_quality_metric_is_not_evaluated_on_fixed_turns(make_weather_agent, make_weather_set, tmp_path):
  results = await evaluate(make_weather_agent(), make_weather_set(), QUALITY, judge_model=judge_saying({}),
                           progress=False, results_dir=tmp_path)
  case_rows = results.metrics.query("level == 'case'")
  assert case_rows["status"].eq("NOT_EVALUATED").all()
  assert "the eval case needs a conversation_scenario" in results.case_results[0].overall_eval_metric_results[0].details.error


async def test_the_metric_registry_hands_out_the_quality_evaluator(make_turn):
  metric = EvalMetric(metric_name="per_turn_user_simulator_quality_v1",
                      criterion=LlmBackedUserSimulatorCriterion(threshold=1.0))
  evaluator = DEFAULT_METRIC_EVALUATOR_REGISTRY.get_evaluator(metric)
  assert isinstance(evaluator, PerTurnUserSimulatorQualityV1)
  scenario = scenario_case().conversation_scenario
  with pytest.raises(ValueError, match="the eval case needs a conversation_scenario"):
    await evaluator.evaluate_invocations([make_turn("hi", "hello")], None, None)
  evaluator = PerTurnUserSimulatorQualityV1(metric, judge_model=judge_saying({}))
  result = await evaluator.evaluate_invocations([make_turn("hello", "hi")], None, scenario)
  assert result.overall_score == 0.0  # the first message was not the starting prompt


@pytest.mark.parametrize("reply, label", [
    ('{"is_valid": true}', Label.VALID), ('{"is_valid": "valid"}', Label.VALID),
    ('```json\n{\n  "is_valid": True\n}\n```', Label.VALID), ('{"is_valid": ["true"]}', Label.VALID),
    ('{"is_valid": false}', Label.INVALID), ('{"is_valid": "partially valid"}', Label.INVALID),
    ('{"is_valid": "almost",}', Label.INVALID), ('{"is_valid": "maybe"}', Label.NOT_FOUND),
    ('{"is_valid_reason": true}', Label.NOT_FOUND), ("no json", Label.NOT_FOUND)])
def test_the_judge_verdict_is_read_from_is_valid(reply, label):
  assert _parse_llm_response(reply) == label


async def test_an_adk_custom_metric_receives_the_conversation_scenario(make_weather_agent, tmp_path):
  seen = []

  def plan_metric(eval_metric, actual_invocations, expected_invocations, conversation_scenario):
    from adk_nb.evaluation.evaluator import EvaluationResult

    seen.append(conversation_scenario.conversation_plan)
    return EvaluationResult()

  await evaluate(make_weather_agent(), EvalSet(eval_set_id="s", eval_cases=[scenario_case()]), {"criteria": {}},
                 metrics=[plan_metric], user_simulator_model=ScriptedModel(["</finished>"]), progress=False,
                 results_dir=tmp_path)
  assert seen == [PLAN]
