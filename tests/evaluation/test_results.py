"""Result frames, JSON save/load in ADK's EvalSetResult shape, compare, plotly figures, the view."""

import json

import plotly.graph_objects as go
import pytest

from adk_nb.evaluation import EvalResults, EvalSetResult, evaluate

CRITERIA = {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}


@pytest.fixture
async def results(make_weather_agent, make_weather_set):
  return await evaluate(make_weather_agent(), make_weather_set(), CRITERIA, num_runs=2, progress=False)


@pytest.fixture
async def worse(make_weather_agent, make_weather_set):
  return await evaluate(make_weather_agent(wrong_city=True), make_weather_set(), CRITERIA, num_runs=2, progress=False)


def test_frames(results):
  cases = results.cases
  assert len(cases) == 6 and {"status", "passed", "tool_trajectory_avg_score_passed", "expected_tools",
                              "actual_tools", "final_response", "latency_s", "tokens", "error"} <= set(cases.columns)
  row = cases[(cases.eval_id == "rome_expected_roma") & (cases.run == 1)].iloc[0]
  assert row["expected_tools"] == [['get_weather(city="Roma")']] and row["actual_tools"] == [['get_weather(city="Rome")']]
  assert bool(row["tool_trajectory_avg_score_passed"]) is False and bool(row["response_match_score_passed"]) is True
  turns = results.turns
  assert len(turns) == 8 and turns[turns.eval_id == "hello_then_paris"]["user"].tolist() == ["hi", "weather Paris"] * 2
  calls = results.tool_calls
  actual = calls[(calls.side == "actual") & (calls.eval_id == "fahrenheit")]
  assert actual["name"].tolist() == ["get_weather"] * 2
  assert json.loads(actual["response"].iloc[0]) == {"city": "Austin", "temp": 21, "unit": "F"}
  m = results.metrics
  assert set(m["level"]) == {"case", "turn"}
  assert len(m[m.level == "case"]) == 6 * 2 and len(m[m.level == "turn"]) == 8 * 2
  assert results.runs[["run", "cases", "passed", "failed"]].values.tolist() == [[0, 3, 2, 1], [1, 3, 2, 1]]


def test_save_load_roundtrip_in_adk_shape(results, tmp_path):
  path = results.save(tmp_path / "r.evalset_result.json")
  raw = json.loads(path.read_text())
  assert {"eval_set_result_id", "eval_set_id", "eval_case_results"} <= set(raw)
  first = raw["eval_case_results"][0]
  assert first["final_eval_status"] == 1 and "eval_metric_result_per_invocation" in first
  EvalSetResult.model_validate(raw)
  loaded = EvalResults.load(path)
  assert loaded.cases.drop(columns=["latency_s"]).equals(results.cases.drop(columns=["latency_s"]))
  # a file without adk_nb's `run` field (as ADK writes it) gets runs numbered in order
  for case in raw["eval_case_results"]:
    del case["run"]
  path.write_text(json.dumps(raw))
  assert EvalResults.load(path).cases["run"].tolist() == [0, 0, 0, 1, 1, 1]


def test_compare_labels_and_deltas(results, worse):
  table = worse.compare(results).set_index("eval_id")
  assert table.loc["hello_then_paris", "change"] == "regressed"  # its Paris turn now calls Roma
  assert table.loc["fahrenheit", "change"] == "regressed"
  assert table.loc["fahrenheit", "tool_trajectory_avg_score_delta"] == -1.0
  assert table.loc["rome_expected_roma", "change"] == "fixed"
  assert table.loc["rome_expected_roma", "tool_trajectory_avg_score_delta"] == 1.0
  assert table.loc["hello_then_paris", "tool_trajectory_avg_score_delta"] == -0.5


async def test_compare_new_and_removed(make_weather_agent, make_weather_set, results):
  es = make_weather_set()
  es.eval_cases = es.eval_cases[:1]
  es.eval_cases[0] = es.eval_cases[0].model_copy(update={"eval_id": "brand_new"})
  other = await evaluate(make_weather_agent(), es, CRITERIA, progress=False)
  table = other.compare(results).set_index("eval_id")["change"].to_dict()
  assert table["brand_new"] == "new" and table["fahrenheit"] == "removed"


def test_plot_figures_data(results, worse):
  fig = results.plot()
  assert isinstance(fig, go.Figure)
  bar = fig.data[0]
  assert list(bar.x) == ["all metrics", "tool_trajectory_avg_score", "response_match_score"]
  assert list(bar.y) == [pytest.approx(2 / 3), pytest.approx(2 / 3), 1.0]
  scores = results.plot("scores")
  assert [t.name for t in scores.data] == ["tool_trajectory_avg_score", "response_match_score"]
  assert sorted(scores.data[0].y) == [0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
  deltas = worse.plot("deltas", baseline=results)
  traj = deltas.data[0]
  assert dict(zip(traj.x, traj.y)) == {"hello_then_paris": -0.5, "fahrenheit": -1.0, "rome_expected_roma": 1.0}
  assert isinstance(results.plot("latency"), go.Figure)
  with pytest.raises(ValueError, match="baseline="):
    results.plot("deltas")


def test_view_escapes_model_text(results):
  from adk_nb.evaluation.view import case_html, static_html

  edited = results.eval_set_result  # an in-memory copy: stored results are read afresh on every access
  edited.eval_case_results[0].error_message = "<img src=x onerror=alert(1)>"
  page = static_html(EvalResults(edited))
  assert "<img" not in page and "&lt;img src=x" in page
  assert "expected" in case_html(results, "hello_then_paris", 0)
  bundle = results.view(baseline=results)._repr_mimebundle_()
  assert "text/html" in bundle and "application/vnd.jupyter.widget-view+json" in bundle


def test_compare_with_itself_is_stable(results):
  table = results.compare(results).set_index("eval_id")
  assert table["change"].to_dict() == {"hello_then_paris": "still passing", "fahrenheit": "still passing",
                                       "rome_expected_roma": "still failing"}
  assert (table["response_match_score_delta"] == 0).all()


def test_loads_results_written_by_google_adk():
  # Written by google-adk 2.13's AgentEvaluator (LocalEvalSetResultsManager), num_runs=2, with its
  # informational efficiency metrics; the scripted agent called get_weather(city="Paris").
  from pathlib import Path

  loaded = EvalResults.load(Path(__file__).parent / "data" / "adk_2_13.evalset_result.json")
  assert loaded.cases["run"].tolist() == [0, 1] and loaded.passed
  assert loaded.cases["actual_tools"].tolist() == [[['get_weather(city="Paris")']]] * 2
  assert loaded.thresholds["tool_trajectory_avg_score"] == 1.0 and loaded.thresholds["tool_call_count_v1"] is None
