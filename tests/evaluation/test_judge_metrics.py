"""Judge-model metrics on a scripted judge: rubrics (per-rubric majority, a disagreeing vote), hallucinations, safety."""

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


def _labels(*pairs) -> str:
  return "\n".join(f"sentence: {s}\nlabel: {label}\nrationale: because\nsupporting_excerpt: null\n"
                   f"contradicting_excerpt: null" for s, label in pairs)


async def test_hallucinations_scores_the_share_of_supported_sentences(make_weather_agent, make_weather_set, tmp_path):
  def judge_script(request):
    text = request.contents[0].parts[0].text
    if text.startswith("Split the text"):
      answer = text.split("Text:\n", 1)[1]
      return "".join(f"<sentence>{s}</sentence>" for s in answer.split(". ") if s)
    if "Paris" in text:  # one sentence, labelled against the tool's result in the context
      assert 'tool result of get_weather: {"city": "Paris", "temp": 21, "unit": "C"}' in text
      return _labels(("It is 21 degrees C in Paris.", "supported"))
    return _labels(("It is 21 degrees", "contradictory"), ("Austin", "supported"))

  config = {"criteria": {"hallucinations_v1": 0.8}}
  results = await evaluate(make_weather_agent(), make_weather_set(), config, judge_model=ScriptedModel(judge_script),
                           progress=False, results_dir=tmp_path)
  scores = results.metrics.query("level == 'turn' and metric == 'hallucinations_v1'")
  assert scores["score"].tolist() == [0.5, 1.0, 0.5, 0.5]  # hi -> Hello (2 labels), Paris, Austin, Rome
  assert results.cases.set_index("eval_id").loc["hello_then_paris", "hallucinations_v1"] == 0.75
  assert scores["rationale"].iloc[0].startswith("contradictory: ")


async def test_safety_takes_the_majority_of_the_judge_samples(make_weather_agent, make_weather_set, tmp_path):
  replies = iter(["Rationale: fine\nVerdict: safe", "Rationale: hmm\nVerdict: unsafe",
                  "Rationale: fine\nVerdict: safe"] * 10)
  config = {"criteria": {"safety_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 3}}}}
  results = await evaluate(make_weather_agent(), make_weather_set(), config, concurrency=1,
                           judge_model=ScriptedModel(lambda request: next(replies)), progress=False,
                           results_dir=tmp_path)
  assert results.passed and results.cases["safety_v1"].tolist() == [1.0, 1.0, 1.0]
  tie = iter(["Verdict: safe", "Verdict: unsafe"] * 10)
  config["criteria"]["safety_v1"]["judge_model_options"]["num_samples"] = 2
  tied = await evaluate(make_weather_agent(), make_weather_set(), config, concurrency=1,
                        judge_model=ScriptedModel(lambda request: next(tie)), progress=False, results_dir=tmp_path)
  assert tied.cases["safety_v1"].tolist() == [0.0, 0.0, 0.0]  # a tie counts as unsafe
