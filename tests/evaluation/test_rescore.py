"""results.rescore: stored runs scored again with other metrics or thresholds; the agent does not run again."""

import pytest

from adk_nb.evaluation import evaluate


async def test_rescore_applies_new_criteria_and_metrics_without_running_the_agent(make_weather_agent,
                                                                                  make_weather_set):
  agent = make_weather_agent()
  results = await evaluate(agent, make_weather_set(), {"criteria": {"tool_trajectory_avg_score": 1.0}}, progress=False)
  status = dict(zip(results.cases.eval_id, results.cases.passed))
  assert status == {"hello_then_paris": True, "fahrenheit": True, "rome_expected_roma": False}
  calls = len(agent.model.requests)

  def mentions_degrees(actual, expected=None):
    """Per turn: 1.0 when the answer says 'degrees' (a user metric, no criterion: informational)."""
    return float("degrees" in actual.final_response.parts[0].text)

  again = await results.rescore([mentions_degrees], config={"criteria": {"response_match_score": 0.8}})

  assert len(agent.model.requests) == calls  # scored from the stored runs, the agent never ran
  assert dict(zip(again.cases.eval_id, again.cases.passed)) == {
      "hello_then_paris": True, "fahrenheit": True, "rome_expected_roma": True}
  assert set(again.metric_names) == {"response_match_score", "mentions_degrees"}
  scores = again.metrics
  case_scores = scores[(scores.level == "case") & (scores.metric == "mentions_degrees")]
  assert case_scores.set_index("eval_id").score.to_dict() == {
      "hello_then_paris": 0.5, "fahrenheit": 1.0, "rome_expected_roma": 1.0}
  assert dict(zip(results.cases.eval_id, results.cases.passed))["rome_expected_roma"] == False  # noqa: E712


async def test_rescore_with_nothing_to_score_says_what_to_pass(make_weather_agent, make_weather_set):
  results = await evaluate(make_weather_agent(), make_weather_set(), {"criteria": {"tool_trajectory_avg_score": 1.0}},
                           progress=False)
  with pytest.raises(ValueError, match="metrics="):
    await results.rescore()


async def test_a_case_row_opens_its_run_in_the_event_tree(make_weather_agent, make_weather_set):
  import adk_nb.notebook  # noqa: F401 - the notebook layer registers the event tree as the run viewer
  from adk_nb.evaluation.view import ResultsView

  results = await evaluate(make_weather_agent(), make_weather_set(), {"criteria": {"tool_trajectory_avg_score": 1.0}},
                           progress=False, keep_sessions=True)
  view = ResultsView(results)
  view.show("rome_expected_roma", 0)
  titles = [(n["kind"], n["title"]) for n in view.tree.nodes]
  assert ("tool_call", 'get_weather(city="Rome")') in titles and view.tree in view.widget.children
  assert results.case_events("rome_expected_roma", 0)[0].author == "user"

  unkept = await evaluate(make_weather_agent(), make_weather_set(), {"criteria": {"tool_trajectory_avg_score": 1.0}},
                          progress=False)
  plain = ResultsView(unkept)
  plain.show("rome_expected_roma", 0)
  assert plain.tree is None and unkept.case_events("rome_expected_roma", 0) is None


def test_the_results_view_never_imports_the_notebook_layer(tmp_path):
  """evaluation/ sits below notebook/: the view asks adk_nb.inspect.opener for a viewer the notebook registered."""
  import ast
  import subprocess
  import sys
  from pathlib import Path

  import adk_nb.evaluation

  folder = Path(adk_nb.evaluation.__file__).parent
  reach_ups = []
  for path in sorted(folder.rglob("*.py")):
    for node in ast.walk(ast.parse(path.read_text())):
      names = ([node.module or ""] if isinstance(node, ast.ImportFrom) else
               [a.name for a in node.names] if isinstance(node, ast.Import) else [])
      if isinstance(node, ast.ImportFrom) and node.level:
        names = [("." * node.level) + (node.module or "")]
      reach_ups += [f"{path.name}:{node.lineno} {n}" for n in names
                    if n.startswith(("adk_nb.notebook", "..notebook", "...notebook"))]
  assert reach_ups == []
  # Without the notebook layer a kept run is not drawn, and the view says how to draw it.
  code = (
      "import sys\n"
      "from adk_nb.inspect.opener import open_run\n"
      "assert open_run([], 't') is None and 'adk_nb.notebook' not in sys.modules\n"
      "import adk_nb.notebook\n"
      "print(type(open_run([], 't')).__name__)\n")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
  assert out.stdout.strip() == "EventTree", out.stderr


async def test_a_kept_run_without_the_notebook_layer_says_how_to_open_it(make_weather_agent, make_weather_set):
  from adk_nb.evaluation.view import ResultsView
  from adk_nb.inspect.opener import set_run_opener

  results = await evaluate(make_weather_agent(), make_weather_set(), {"criteria": {"tool_trajectory_avg_score": 1.0}},
                           progress=False, keep_sessions=True)
  previous = set_run_opener(None)
  try:
    view = ResultsView(results)
    view.show("rome_expected_roma", 0)
  finally:
    set_run_opener(previous)
  assert view.tree is None and "import adk_nb.notebook" in view.detail.value
