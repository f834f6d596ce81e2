"""Evaluation at google-adk's module paths: eval-set managers, result files, evaluator classes, registry."""

import json

import pytest
from google.genai import types

from adk_nb.errors.not_found_error import NotFoundError
from adk_nb.evaluation.conversation_scenarios import ConversationScenario
from adk_nb.evaluation.eval_case import EvalCase, IntermediateData, Invocation, get_all_tool_calls_with_responses
from adk_nb.evaluation.eval_config import get_evaluation_criteria_or_default
from adk_nb.evaluation.eval_metrics import EvalMetric, EvalStatus, ToolTrajectoryCriterion
from adk_nb.evaluation.eval_result import EvalCaseResult
from adk_nb.evaluation.final_response_match_v1 import RougeEvaluator
from adk_nb.evaluation.in_memory_eval_sets_manager import InMemoryEvalSetsManager
from adk_nb.evaluation.local_eval_set_results_manager import LocalEvalSetResultsManager
from adk_nb.evaluation.local_eval_sets_manager import (LocalEvalSetsManager, convert_eval_set_to_pydantic_schema,
                                                       load_eval_set_from_file)
from adk_nb.evaluation.metric_evaluator_registry import MetricEvaluatorRegistry
from adk_nb.evaluation.trajectory_evaluator import TrajectoryEvaluator


def turn(text, answer="", calls=()):
  return Invocation(user_content=types.Content(role="user", parts=[types.Part(text=text)]),
                    final_response=types.Content(role="model", parts=[types.Part(text=answer)]),
                    intermediate_data=IntermediateData(tool_uses=list(calls)))


def case(eval_id):
  return EvalCase(eval_id=eval_id, conversation=[turn("hi", "hello")])


@pytest.mark.parametrize("make", [InMemoryEvalSetsManager, lambda: LocalEvalSetsManager("AGENTS")])
def test_managers_create_add_update_delete(make, tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  manager = make()
  manager.create_eval_set("app", "smoke")
  with pytest.raises(ValueError, match="already exists"):
    manager.create_eval_set("app", "smoke")
  manager.add_eval_case("app", "smoke", case("a"))
  manager.add_eval_case("app", "smoke", case("b"))
  with pytest.raises(ValueError, match="already exists"):
    manager.add_eval_case("app", "smoke", case("a"))
  changed = EvalCase(eval_id="a", conversation=[turn("bye", "see you")])
  manager.update_eval_case("app", "smoke", changed)
  manager.delete_eval_case("app", "smoke", "b")
  assert [c.eval_id for c in manager.get_eval_set("app", "smoke").eval_cases] == ["a"]
  assert manager.get_eval_case("app", "smoke", "a").conversation[0].user_content.parts[0].text == "bye"
  assert manager.get_eval_case("app", "smoke", "zzz") is None
  assert manager.get_eval_set("app", "missing") is None
  assert manager.list_eval_sets("app") == ["smoke"]
  with pytest.raises(NotFoundError):
    manager.add_eval_case("app", "missing", case("c"))
  with pytest.raises(NotFoundError):
    manager.delete_eval_case("app", "smoke", "zzz")


def test_local_manager_uses_adks_file_layout(tmp_path):
  manager = LocalEvalSetsManager(str(tmp_path))
  manager.create_eval_set("app", "smoke")
  manager.add_eval_case("app", "smoke", case("a"))
  stored = json.loads((tmp_path / "app" / "smoke.evalset.json").read_text())
  assert stored["eval_set_id"] == "smoke" and stored["eval_cases"][0]["eval_id"] == "a"
  with pytest.raises(ValueError, match="Eval Set ID"):
    manager.create_eval_set("app", "bad id")
  with pytest.raises(NotFoundError, match="other"):
    manager.list_eval_sets("other")


def test_old_format_files_are_converted(tmp_path):
  old = [{"name": "roll", "data": [{"query": "Roll a die", "reference": "4",
                                    "expected_tool_use": [{"tool_name": "roll_die", "tool_input": {"sides": 6}}]}],
          "initial_session": {"state": {"k": 1}, "app_name": "dice", "user_id": "u"}}]
  path = tmp_path / "old.json"
  path.write_text(json.dumps(old))
  eval_set = load_eval_set_from_file(str(path), "dice_set")
  assert eval_set.eval_set_id == "dice_set"
  [only] = eval_set.eval_cases
  assert only.eval_id == "roll" and only.session_input.state == {"k": 1}
  assert only.conversation[0].intermediate_data.tool_uses[0].args == {"sides": 6}
  assert convert_eval_set_to_pydantic_schema("x", old).eval_cases[0].conversation[0].final_response.parts[0].text == "4"


def test_results_manager_writes_eval_history_and_reads_it_back(tmp_path):
  manager = LocalEvalSetResultsManager(str(tmp_path))
  assert manager.list_eval_set_results("app") == []
  manager.save_eval_set_result("app", "smoke", [EvalCaseResult(eval_set_id="smoke", eval_id="a",
                                                                final_eval_status=EvalStatus.PASSED)])
  [result_id] = manager.list_eval_set_results("app")
  assert (tmp_path / "app" / ".adk" / "eval_history" / f"{result_id}.evalset_result.json").exists()
  result = manager.get_eval_set_result("app", result_id)
  assert result.eval_set_id == "smoke" and result.eval_case_results[0].eval_id == "a"
  with pytest.raises(NotFoundError):
    manager.get_eval_set_result("app", "nope")


def test_evaluator_classes_score_like_adk():
  call = types.FunctionCall(name="lookup", args={"q": "x"})
  other = types.FunctionCall(name="search", args={})
  actual = [turn("a", "the cat sat", [call]), turn("b", "dog", [other])]
  expected = [turn("a", "the cat sat", [call]), turn("b", "dog", [call])]
  result = TrajectoryEvaluator(threshold=1.0).evaluate_invocations(actual, expected)
  assert [r.score for r in result.per_invocation_results] == [1.0, 0.0]
  assert (result.overall_score, result.overall_eval_status) == (0.5, EvalStatus.FAILED)
  any_order = TrajectoryEvaluator(eval_metric=EvalMetric(
      metric_name="tool_trajectory_avg_score",
      criterion=ToolTrajectoryCriterion(threshold=0.5, match_type="ANY_ORDER")))
  assert any_order.evaluate_invocations(actual, expected).overall_eval_status == EvalStatus.PASSED
  with pytest.raises(ValueError, match="threshold"):
    TrajectoryEvaluator()
  rouge = RougeEvaluator(EvalMetric(metric_name="response_match_score", threshold=0.8))
  assert rouge.evaluate_invocations(actual[:1], expected[:1]).overall_score == pytest.approx(1.0)


def test_registry_hands_out_evaluators_by_metric_name():
  registry = MetricEvaluatorRegistry()
  names = {info.metric_name for info in registry.get_registered_metrics()}
  assert {"tool_trajectory_avg_score", "response_match_score"} <= names
  evaluator = registry.get_evaluator(EvalMetric(metric_name="response_match_score", threshold=0.5))
  assert isinstance(evaluator, RougeEvaluator)
  with pytest.raises(NotFoundError, match="my_metric"):
    registry.get_evaluator(EvalMetric(metric_name="my_metric"))


def test_tool_calls_with_responses_and_default_criteria(tmp_path):
  data = IntermediateData(
      tool_uses=[types.FunctionCall(id="1", name="a"), types.FunctionCall(id="2", name="b")],
      tool_responses=[types.FunctionResponse(id="1", name="a", response={"ok": True})])
  pairs = get_all_tool_calls_with_responses(data)
  assert [(c.name, r.response if r else None) for c, r in pairs] == [("a", {"ok": True}), ("b", None)]
  assert get_evaluation_criteria_or_default(None).criteria == {"tool_trajectory_avg_score": 1.0,
                                                               "response_match_score": 0.8}
  config = tmp_path / "test_config.json"
  config.write_text('{"criteria": {"response_match_score": 0.5}}')
  assert list(get_evaluation_criteria_or_default(str(config)).criteria) == ["response_match_score"]


def test_scenario_cases_are_read_as_scenarios():
  scenario_case = EvalCase.model_validate({"eval_id": "s", "conversation_scenario": {
      "starting_prompt": "Book a flight", "conversation_plan": "Then a car."}})
  assert scenario_case.conversation_scenario == ConversationScenario(starting_prompt="Book a flight",
                                                                     conversation_plan="Then a car.")


def test_adks_config_and_result_helpers_at_their_paths(tmp_path):
  from adk_nb.evaluation._eval_set_results_manager_utils import (_sanitize_eval_set_result_name,
                                                                  create_eval_set_result, parse_eval_set_result_json)
  from adk_nb.evaluation.eval_config import DEFAULT_EVAL_CONFIG, EvalConfig, get_eval_metrics_from_config
  from adk_nb.evaluation.local_eval_set_results_manager import _ADK_EVAL_HISTORY_DIR, _EVAL_SET_RESULT_FILE_EXTENSION

  metrics = get_eval_metrics_from_config(EvalConfig(criteria={"tool_trajectory_avg_score": 1.0,
                                                              "response_match_score": 0.8}))
  assert [(m.metric_name, m.threshold, m.criterion.threshold) for m in metrics] == [
      ("tool_trajectory_avg_score", 1.0, 1.0), ("response_match_score", 0.8, 0.8)]
  assert get_eval_metrics_from_config(EvalConfig(criteria={})) == []
  assert get_evaluation_criteria_or_default("") == DEFAULT_EVAL_CONFIG  # an empty path means "none given"

  assert _sanitize_eval_set_result_name("app/sub_set_1.5") == "app_sub_set_1.5"
  result = create_eval_set_result("app/sub", "set", [])
  assert result.eval_set_result_name == result.eval_set_result_id.replace("/", "_")
  assert parse_eval_set_result_json(json.dumps(result.model_dump_json())) == result  # the double-encoded form
  LocalEvalSetResultsManager(str(tmp_path)).save_eval_set_result("app", "set", [])
  [written] = (tmp_path / "app" / _ADK_EVAL_HISTORY_DIR).iterdir()
  assert written.name.endswith(_EVAL_SET_RESULT_FILE_EXTENSION)
