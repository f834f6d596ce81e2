"""`adk-nb eval` exit codes (in a subprocess) and AgentEvaluator.evaluate on an agent folder written here."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from adk_nb.evaluation import AgentEvaluator

REPO = Path(__file__).resolve().parents[2]

AGENT_PY = textwrap.dedent('''
    """A scripted weather agent (offline; nothing here is a real model)."""
    from adk_nb import Agent
    from adk_nb.models import ScriptedModel, call

    def get_weather(city: str) -> dict:
      """Weather for a city."""
      return {"city": city, "temp": 21}

    def script(request):
      part = request.contents[-1].parts[0]
      if part.function_response:
        r = part.function_response.response
        return f"It is {r['temp']} degrees in {r['city']}."
      if part.text.startswith("weather"):
        return call("get_weather", city=part.text.split()[-1])
      return "Hello!"

    root_agent = Agent(name="weather", model=ScriptedModel(script), tools=[get_weather])
''')


def eval_set(expected_city: str, set_id: str) -> dict:
  return {"eval_set_id": set_id, "eval_cases": [{"eval_id": "paris", "conversation": [
      {"user_content": {"parts": [{"text": "hi"}]}, "final_response": {"parts": [{"text": "Hello!"}]}},
      {"user_content": {"parts": [{"text": "weather Paris"}]},
       "final_response": {"parts": [{"text": "It is 21 degrees in Paris."}]},
       "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": expected_city}}]}}]}]}


@pytest.fixture
def agent_dir(tmp_path):
  pkg = tmp_path / "agents" / "weather_agent"
  pkg.mkdir(parents=True)
  (pkg / "__init__.py").write_text("from . import agent\n")
  (pkg / "agent.py").write_text(AGENT_PY)
  (tmp_path / "good.evalset.json").write_text(json.dumps(eval_set("Paris", "good")))
  (tmp_path / "bad.evalset.json").write_text(json.dumps(eval_set("Roma", "bad")))
  return pkg


def cli(*args, cwd):
  env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
         "ADK_NB_BLOCK_REAL_MODELS": "1"}
  return subprocess.run([sys.executable, "-m", "adk_nb.cli", *args], cwd=cwd, env=env, capture_output=True,
                        text=True, timeout=120)


def test_cli_exit_codes(agent_dir, tmp_path):
  ok = cli("eval", str(agent_dir), "good.evalset.json", "--no-progress", cwd=tmp_path)
  assert ok.returncode == 0, ok.stderr
  assert "1/1 case runs passed" in ok.stdout
  bad = cli("eval", str(agent_dir), "good.evalset.json", "bad.evalset.json", "--detailed", "--save", "out",
            "--no-progress", cwd=tmp_path)
  assert bad.returncode == 1
  assert "FAIL paris (run 0): tool_trajectory_avg_score = 0.500 < threshold 1.0" in bad.stdout
  assert "get_weather(city=\"Roma\")" in bad.stdout
  assert len(list((tmp_path / "out").glob("*.evalset_result.json"))) == 2
  missing = cli("eval", str(agent_dir), "nope.evalset.json", cwd=tmp_path)
  assert missing.returncode == 2 and "file not found" in missing.stderr
  no_agent = cli("eval", str(tmp_path / "nowhere"), "good.evalset.json", cwd=tmp_path)
  assert no_agent.returncode == 2
  only = cli("eval", str(agent_dir), "bad.evalset.json:paris", "--config", "cfg.json", cwd=tmp_path)
  assert only.returncode == 2 and "cfg.json" in only.stderr
  (tmp_path / "cfg.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": {
      "threshold": 1.0, "ignore_args": True}}}))
  relaxed = cli("eval", str(agent_dir), "bad.evalset.json:paris", "--config", "cfg.json", cwd=tmp_path)
  assert relaxed.returncode == 0, relaxed.stdout + relaxed.stderr
  assert cli(cwd=tmp_path).returncode == 2  # no subcommand: help, usage error


async def test_agent_evaluator_evaluate_passes_and_fails_like_adk(agent_dir, tmp_path, monkeypatch, capsys):
  monkeypatch.syspath_prepend(str(agent_dir.parent))
  tests = tmp_path / "tests"
  tests.mkdir()
  (tests / "good.test.json").write_text(json.dumps(eval_set("Paris", "good")))
  await AgentEvaluator.evaluate("weather_agent", str(tests / "good.test.json"), num_runs=2)
  assert "Summary: `EvalStatus.PASSED` for Metric: `tool_trajectory_avg_score`" in capsys.readouterr().out
  (tests / "bad.test.json").write_text(json.dumps(eval_set("Roma", "bad")))
  with pytest.raises(AssertionError, match="tool_trajectory_avg_score for weather_agent Failed. Expected 1.0"):
    await AgentEvaluator.evaluate("weather_agent", str(tests), print_detailed_results=False)
  # a test_config.json beside the files relaxes the trajectory check
  (tests / "test_config.json").write_text(json.dumps({"criteria": {
      "tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "ANY_ORDER", "ignore_args": True},
      "response_match_score": 0.8}}))
  await AgentEvaluator.evaluate("weather_agent", str(tests), num_runs=1, print_detailed_results=False)


async def test_agent_evaluator_legacy_format_and_initial_session(agent_dir, tmp_path, monkeypatch):
  monkeypatch.syspath_prepend(str(agent_dir.parent))
  (tmp_path / "legacy.test.json").write_text(json.dumps([
      {"query": "hi", "expected_tool_use": [], "reference": "Hello!"},
      {"query": "weather Oslo", "expected_tool_use": [{"tool_name": "get_weather", "tool_input": {"city": "Oslo"}}],
       "reference": "It is 21 degrees in Oslo."}]))
  (tmp_path / "initial.session.json").write_text(json.dumps({"state": {"k": "v"}, "app_name": "w", "user_id": "u"}))
  await AgentEvaluator.evaluate("weather_agent.agent", str(tmp_path / "legacy.test.json"), num_runs=1,
                                initial_session_file=str(tmp_path / "initial.session.json"),
                                output_file=str(tmp_path / "rows.csv"))
  assert "response_match_score" in (tmp_path / "rows.csv").read_text()


async def test_agent_evaluator_reports_a_case_that_raises(agent_dir, tmp_path, monkeypatch):
  monkeypatch.syspath_prepend(str(agent_dir.parent))
  (agent_dir / "agent.py").write_text(AGENT_PY.replace('return "Hello!"', 'raise RuntimeError("kaput")'))
  (tmp_path / "x.test.json").write_text(json.dumps(eval_set("Paris", "x")))
  with pytest.raises(AssertionError, match="could not finish.*kaput"):
    await AgentEvaluator.evaluate(str(agent_dir), str(tmp_path / "x.test.json"), num_runs=1)
