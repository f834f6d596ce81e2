"""Case results stream to a result store on disk; frames read it back; a killed run resumes without double counts."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

from adk_nb import Agent
from adk_nb.evaluation import EvalResults, evaluate
from adk_nb.evaluation.formats import eval_set_from_dict
from adk_nb.evaluation.result_store import list_runs
from adk_nb.models import ScriptedModel

CRITERIA = {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER"},
                         "response_match_score": 0.8}}
SIX_CASES = {"eval_set_id": "six", "eval_cases": [
    {"eval_id": f"case_{i}", "conversation": [{"user_content": {"role": "user", "parts": [{"text": f"case {i}"}]},
                                               "final_response": {"role": "model", "parts": [{"text": "ok"}]}}]}
    for i in range(6)]}


async def test_results_stream_to_the_run_folder_and_read_back(make_weather_agent, make_weather_set, tmp_path):
  results = await evaluate(make_weather_agent(), make_weather_set(), CRITERIA, num_runs=2, progress=False,
                           run_id="nightly", results_dir=tmp_path)
  assert results.run_dir == tmp_path / "nightly" and (tmp_path / "nightly" / "results.sqlite").is_file()
  [run] = list_runs(tmp_path)
  assert run["run_id"] == "nightly" and run["case_runs"] == run["planned"] == 6 and run["finished"] is not None

  again = EvalResults.open("nightly", root=tmp_path)  # e.g. after a kernel restart
  assert again.summary().splitlines()[0].startswith("Eval set 'weather': 4/6 case runs passed")
  assert again.cases.drop(columns=["latency_s"]).equals(results.cases.drop(columns=["latency_s"]))
  assert again.compare(results)["change"].tolist() == ["still passing", "still passing", "still failing"]
  # the stored run keeps each metric's configured criterion (its type and options), one object per metric
  first = again.case_results[0]
  criterion = first.overall_eval_metric_results[0].criterion
  assert type(criterion).__name__ == "ToolTrajectoryCriterion" and criterion.match_type.name == "IN_ORDER"
  assert all(m.criterion is criterion for t in first.eval_metric_result_per_invocation for m in t.eval_metric_results
             if m.metric_name == "tool_trajectory_avg_score")
  assert [r.eval_id for r in again.case_results][:3] == ["hello_then_paris", "fahrenheit", "rome_expected_roma"]
  assert again.case_results[-1].run == 1 and len(again.case_results[1:4]) == 3

  saved = json.loads(again.save(tmp_path / "out.evalset_result.json").read_text())
  assert saved["eval_set_id"] == "weather" and len(saved["eval_case_results"]) == 6
  assert EvalResults.load(tmp_path / "out.evalset_result.json").counts() == again.counts()
  with pytest.raises(FileNotFoundError, match="list_runs"):
    EvalResults.open("nope", root=tmp_path)


async def test_resume_of_a_run_with_other_cases_is_refused(make_weather_agent, make_weather_set, tmp_path):
  await evaluate(make_weather_agent(), make_weather_set(), CRITERIA, progress=False, run_id="r", results_dir=tmp_path)
  with pytest.raises(ValueError, match="same eval set, cases, num_runs and criteria"):
    await evaluate(make_weather_agent(), make_weather_set(), CRITERIA, num_runs=2, progress=False, run_id="r",
                   resume=True, results_dir=tmp_path)
  with pytest.raises(FileExistsError, match="resume=True"):
    await evaluate(make_weather_agent(), make_weather_set(), CRITERIA, progress=False, run_id="r",
                   results_dir=tmp_path)
  # resume=True with no stopped run of this eval set starts a new one
  fresh = await evaluate(make_weather_agent(), make_weather_set(), CRITERIA, progress=False, resume=True,
                         results_dir=tmp_path)
  assert fresh.run_dir.name != "r" and len(list_runs(tmp_path)) == 2


CHILD = textwrap.dedent('''
    import asyncio, json, sys, threading
    from adk_nb import Agent
    from adk_nb.evaluation import evaluate
    from adk_nb.evaluation.formats import eval_set_from_dict
    from adk_nb.models import ScriptedModel

    eval_set = eval_set_from_dict(json.loads(open(sys.argv[1]).read()))

    def answer(request):
      text = request.contents[-1].parts[0].text
      if text == "case 3":  # cases 0-2 are finished (and committed) by now: say so, then hang until killed
        print("ready", flush=True)
        threading.Event().wait()
      return "ok"

    agent = Agent(name="a", model=ScriptedModel(answer))
    asyncio.run(evaluate(agent, eval_set, json.loads(sys.argv[2]), concurrency=1, progress=False,
                         results_dir=sys.argv[3]))
''')


def test_a_killed_run_resumes_with_finished_cases_skipped_and_nothing_counted_twice(tmp_path, capsys):
  set_file = tmp_path / "six.evalset.json"
  set_file.write_text(json.dumps(SIX_CASES))
  runs = tmp_path / "runs"
  child = subprocess.Popen([sys.executable, "-c", CHILD, str(set_file), json.dumps(CRITERIA), str(runs)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
  guard = threading.Timer(120, child.kill)  # a hung child fails the test instead of hanging it
  guard.start()
  try:
    assert child.stdout.readline().strip() == "ready", child.stderr.read()
    [run] = list_runs(runs)
    partial = EvalResults.open(run["path"])  # readable while the run is going on
    assert partial.counts()["passed"] == 3 and "3 of 6 not run yet" in partial.summary()
    os.kill(child.pid, signal.SIGKILL)
    assert child.wait(timeout=60) == -signal.SIGKILL
  finally:
    guard.cancel()
    child.kill()

  seen = []
  model = ScriptedModel(lambda request: seen.append(request.contents[-1].parts[0].text) or "ok")
  resumed = await_(evaluate(Agent(name="a", model=model), eval_set_from_dict(SIX_CASES), CRITERIA, progress="text",
                            resume=True, results_dir=runs))
  assert seen == ["case 3", "case 4", "case 5"]  # only the cases the killed run had not finished
  # the progress lines go on from the 3 finished case runs
  assert [line.split()[2] for line in capsys.readouterr().err.splitlines()] == ["4/6", "5/6", "6/6"]
  assert resumed.run_dir.name == run["run_id"] and len(list_runs(runs)) == 1
  assert resumed.counts() == {"passed": 6, "failed": 0, "error": 0, "timeout": 0, "not_evaluated": 0}
  assert sorted(resumed.cases["eval_id"]) == [f"case_{i}" for i in range(6)]
  assert resumed.metrics.query("level == 'case'").groupby("metric").size().to_dict() == {
      "response_match_score": 6, "tool_trajectory_avg_score": 6}
  assert list_runs(runs)[0]["finished"] is not None
  # resuming a finished run (by id) runs nothing and changes nothing
  again = await_(evaluate(Agent(name="a", model=ScriptedModel([])), eval_set_from_dict(SIX_CASES), CRITERIA,
                          progress=False, resume=True, run_id=run["run_id"], results_dir=runs))
  assert len(again.case_results) == 6 and again.passed


def await_(coro):
  import asyncio

  return asyncio.run(coro)
