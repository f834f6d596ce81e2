"""Rubric metrics on a scripted judge: per-rubric majority over samples (with a disagreeing vote), rationale in frames."""

import pytest

from adk_nb.evaluation import evaluate
from adk_nb.evaluation.rubric_metrics import parse_rubric_reply
from adk_nb.models import ScriptedModel

RUBRICS = [{"rubric_id": "unit", "rubric_content": {"text_property": "The answer states the unit."}},
           {"rubric_id": "polite", "rubric_content": {"text_property": "The answer thanks the user."}}]


def verdicts(unit: str, polite: str) -> str:
  return (f"ID: unit\nProperty: The answer states the unit.\nRationale: unit {unit}\nVerdict: {unit}\n"
          f"ID: polite\nProperty: The answer thanks the user.\nRationale: no thanks given\nVerdict: {polite}\n")


async def test_final_response_rubrics_take_each_rubrics_majority_over_the_samples(make_weather_agent,
                                                                                 make_weather_set, tmp_path):
  replies = iter([verdicts("yes", "no"), verdicts("no", "no"), verdicts("yes", "yes")] * 20)
  judge = ScriptedModel(lambda request: next(replies))
  config = {"criteria": {"rubric_based_final_response_quality_v1": {
      "threshold": 0.5, "judge_model_options": {"num_samples": 3}, "rubrics": RUBRICS}}}
  results = await evaluate(make_weather_agent(), make_weather_set(), config, judge_model=judge, progress=False,
                           concurrency=1, results_dir=tmp_path)
  # each turn: 'unit' yes twice out of three (one disagreeing vote), 'polite' no twice -> 1 of 2 rubrics met
  assert results.cases["rubric_based_final_response_quality_v1"].tolist() == [0.5, 0.5, 0.5]
  assert results.passed
  sent = judge.requests[0].contents[0].parts[0].text
  assert "Hello! Ask me about the weather." in sent and "The answer thanks the user." in sent
  turns = results.metrics.query("level == 'turn'")
  assert turns["rationale"].iloc[0] == "unit: unit yes; polite: no thanks given"
  stored = results.case_results[0].eval_metric_result_per_invocation[0].eval_metric_results[0]
  assert [s["rubric_id"] for s in stored.details.rubric_scores] == ["unit", "polite"]


async def test_tool_use_rubrics_show_the_judge_the_tool_calls(make_weather_agent, make_weather_set, tmp_path):
  judge = ScriptedModel(lambda request: "ID: city\nProperty: The agent looks up the city the user named.\n"
                                        "Rationale: it did\nVerdict: yes")
  config = {"criteria": {"rubric_based_tool_use_quality_v1": {
      "threshold": 1.0, "judge_model_options": {"num_samples": 1},
      "rubrics": [{"rubric_id": "city", "rubric_content": {
          "text_property": "The agent looks up the city the user named."}}]}}}
  results = await evaluate(make_weather_agent(), make_weather_set(), config, judge_model=judge, progress=False,
                           results_dir=tmp_path)
  assert results.passed
  assert any("get_weather({'city': 'Paris'})" in r.contents[0].parts[0].text for r in judge.requests)


def test_replies_missing_a_verdict_are_not_counted():
  assert parse_rubric_reply("Property: a\nRationale: r\nVerdict: yes\nProperty: b\nRationale: r2") == []
  assert parse_rubric_reply("Property: a\nRationale: r\nVerdict: no") == [(None, "a", "r", 0.0)]


async def test_rubric_metrics_without_rubrics_are_not_evaluated_and_say_why(make_weather_agent, make_weather_set,
                                                                           tmp_path):
  config = {"criteria": {"rubric_based_final_response_quality_v1": {"threshold": 0.5}}}
  results = await evaluate(make_weather_agent(), make_weather_set(), config, judge_model=ScriptedModel([]),
                           progress=False, results_dir=tmp_path)
  first = results.case_results[0].overall_eval_metric_results[0]
  assert first.eval_status.name == "NOT_EVALUATED" and "need rubrics" in first.details.model_extra["error"]
