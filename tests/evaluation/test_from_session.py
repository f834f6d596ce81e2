"""A notebook conversation becomes an eval case appended to an eval set file, and that case passes."""

import subprocess
import sys

import pytest
from google.genai import types

from adk_nb.evaluation import eval_case_from_session, evaluate, load_eval_set
from adk_nb.runners import InMemoryRunner


async def test_session_to_eval_case_roundtrip(make_weather_agent, tmp_path):
  agent = make_weather_agent()
  runner = InMemoryRunner(agent, app_name="weather")
  await runner.session_service.create_session(app_name="weather", user_id="ann", session_id="s1",
                                              state={"unit": "F"})
  for text in ("hi", "weather Lima"):
    async for _ in runner.run_async(user_id="ann", session_id="s1",
                                    new_message=types.Content(role="user", parts=[types.Part(text=text)])):
      pass
  session = await runner.session_service.get_session(app_name="weather", user_id="ann", session_id="s1")
  path = tmp_path / "recorded.evalset.json"
  case = eval_case_from_session(session, eval_set=path, eval_id="lima")
  assert case.session_input.state == {"unit": "F"} and case.session_input.user_id == "ann"
  saved = load_eval_set(path)
  assert saved.eval_set_id == "recorded" and [c.eval_id for c in saved.eval_cases] == ["lima"]
  assert saved.eval_cases[0].conversation[1].final_response.parts[0].text == "It is 21 degrees F in Lima."
  with pytest.raises(ValueError, match="already has a case 'lima'.*overwrite=True"):
    eval_case_from_session(session, eval_set=path, eval_id="lima")
  eval_case_from_session(session, eval_set=path, eval_id="lima_again")
  assert len(load_eval_set(path).eval_cases) == 2
  results = await evaluate(make_weather_agent(), path, {"criteria": {"tool_trajectory_avg_score": 1.0,
                                                                     "response_match_score": 1.0}}, progress=False)
  assert results.passed, results.failures()


def test_core_evaluation_imports_no_pandas_plotly_or_ipython():
  code = ("import sys, adk_nb.evaluation as e; from adk_nb.evaluation import _evaluate, agent_evaluator, metrics, "
          "results, formats, from_session, _run; "
          "print([m for m in ('pandas', 'plotly', 'IPython', 'ipywidgets') if m in sys.modules])")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
  assert out.stdout.strip() == "[]"
