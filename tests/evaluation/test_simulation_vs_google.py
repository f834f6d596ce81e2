"""per_turn_user_simulator_quality_v1 and the pre-built personas, side by side with google-adk's.

Both frameworks score the same conversations with the same judge verdicts (the judge is keyed on the message
under review, as each framework's prompt differs by design); the scores, statuses, verdict parsing and the
personas' make-up must agree. Skipped when google-adk is not installed (./dev test installs it).
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent('''
    import asyncio, json, sys
    pkg = sys.argv[1]
    ev = __import__(pkg + ".evaluation.eval_case", fromlist=["x"])
    sc = __import__(pkg + ".evaluation.conversation_scenarios", fromlist=["x"])
    em = __import__(pkg + ".evaluation.eval_metrics", fromlist=["x"])
    pt = __import__(pkg + ".evaluation.simulation.per_turn_user_simulator_quality_v1", fromlist=["x"])
    pb = __import__(pkg + ".evaluation.simulation.pre_built_personas", fromlist=["x"])
    lj = __import__(pkg + ".evaluation.llm_as_judge", fromlist=["x"])
    from google.genai import types

    def turn(u, m):
        return ev.Invocation(invocation_id="t", user_content=types.Content(role="user", parts=[types.Part(text=u)]),
                             final_response=types.Content(role="model", parts=[types.Part(text=m)]))

    async def score(case):
        criterion = em.LlmBackedUserSimulatorCriterion(
            threshold=case["threshold"], judge_model_options=em.JudgeModelOptions(num_samples=case["samples"]))
        evaluator = pt.PerTurnUserSimulatorQualityV1(em.EvalMetric(
            metric_name="per_turn_user_simulator_quality_v1", threshold=case["threshold"], criterion=criterion))
        evaluator._format_llm_prompt = lambda invocation, conversation_scenario, previous_invocations: (
            invocation.user_content.parts[0].text)
        asked = {}

        async def sample(request):
            key = request.contents[0].parts[0].text
            votes = case["votes"].get(key, [1])
            asked[key] = asked.get(key, 0) + 1
            return lj.AutoRaterScore(score=votes[(asked[key] - 1) % len(votes)])

        evaluator._sample_llm = sample
        scenario = sc.ConversationScenario(starting_prompt=case["start"], conversation_plan="plan")
        result = await evaluator.evaluate_invocations([turn(u, m) for u, m in case["turns"]], None, scenario)
        return [result.overall_score, result.overall_eval_status.name,
                [[r.score, r.eval_status.name] for r in result.per_invocation_results]]

    data = json.load(sys.stdin)
    personas = {p.id: sorted(b.name for b in pb.PreBuiltBehaviors if b.value in p.behaviors)
                for p in pb.get_default_persona_registry().get_registered_personas()}
    print(json.dumps({"scores": [asyncio.run(score(c)) for c in data["cases"]],
                      "labels": [pt._parse_llm_response(r).name for r in data["replies"]],
                      "personas": personas}))
''')

CASES = [
    {"threshold": 1.0, "samples": 3, "start": "hi", "turns": [["hi", "a"], ["b", "c"]], "votes": {}},
    {"threshold": 0.5, "samples": 3, "start": "hi", "turns": [["hi ", "a"], ["b", "c"], ["d", "e"]],
     "votes": {"b": [1, 0, 0], "d": [1, 1, 0], "</finished>": [0, 0, 1]}},
    {"threshold": 0.6, "samples": 3, "start": "hello", "turns": [["hi", "a"], ["b", "c"]],
     "votes": {"b": [1, 0, None], "</finished>": [None]}},
    {"threshold": 1.0, "samples": 1, "start": "hi", "turns": [["hi", "a"]], "votes": {"</finished>": [0]}},
    {"threshold": 0.3, "samples": 3, "start": "hi", "turns": [["hi", "a"], ["b", "c"], ["d", "e"], ["f", "g"]],
     "votes": {"b": [None, None, 1], "d": [0, None, None], "</finished>": [1, 0, 1]}},
    {"threshold": 0.5, "samples": 2, "start": "hi", "turns": [["hi", "a"], ["b", "c"]], "votes": {"b": [1, 0]}},
    {"threshold": 0.5, "samples": 4, "start": "hi", "turns": [["x", "a"], ["b", "c"], ["d", "e"]],
     "votes": {"b": [1, 1, 1, 0], "d": [None], "</finished>": [1, 1, 0, 0]}},
]
REPLIES = ['{"is_valid": true}', '{"is_valid": "valid"}', '{"is_valid": True\n}', '{"is_valid": ["valid"]}',
           '{"is_valid": false}', '{"is_valid": "invalid",}', '{"is_valid": "partially valid"}',
           '{"is_valid": "partially_valid"}', '{"is_valid": "almost"}', '{"is_valid": "unsure"}',
           '{"is_valid_x": true}', '"is_valid":\n  "true"\n}', "nothing", '{"criteria": [], "is_valid": "TRUE"}']


def run(python: str, package: str, env: dict) -> dict:
  done = subprocess.run([python, "-c", PROGRAM, package], input=json.dumps({"cases": CASES, "replies": REPLIES}),
                        capture_output=True, text=True, timeout=300, env=env)
  assert done.returncode == 0, done.stderr[-3000:]
  return json.loads(done.stdout.strip().splitlines()[-1])


def test_quality_scores_verdicts_and_personas_match_google_adk():
  from tests.support import adk_python

  python = adk_python()
  if python is None:
    pytest.skip("google-adk is not installed (./dev test installs it into bench/.venv-adk)")
  env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
  theirs = run(python, "google.adk", env)
  ours = run(sys.executable, "adk_nb", os.environ.copy())
  assert ours["scores"] == theirs["scores"]
  assert ours["labels"] == theirs["labels"]
  assert ours["personas"] == theirs["personas"]
