"""Eval-runner benchmark: 500 cases x 2 turns, scripted model with 50 ms latency, concurrency 32.

  python bench/bench_eval.py                 # adk_nb figures + google-adk side by side
  python bench/bench_eval.py --skip-adk      # adk_nb only
  python bench/bench_eval.py --cases 100     # smaller

Reports adk_nb's wall time against the ideal (cases x turns x latency / concurrency), peak
memory at 500 / 2,000 / 10,000 cases (each size in a fresh subprocess; results stream to the
run's result store, so the heap a run holds should not grow with the number of cases), and google-adk's
AgentEvaluator on the same eval set (its inference parallelism is fixed at 4) plus google-adk's
LocalEvalService at parallelism 32, each in a subprocess of google-adk's own interpreter
(/work/scratch/adk-venv/bin/python, bench/.venv-adk/bin/python or ADK_NB_BENCH_ADK_PYTHON).
google-adk's eval needs its [eval] extra: ADK_NB_BENCH_ADK_PYTHONPATH adds a folder holding
rouge-score, nltk, pandas and tabulate (pip install --target DIR ...); the Vertex AI SDKs it
imports but does not use for these two metrics are replaced by empty stand-ins. Nothing here
calls a real model.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
ANSWER = "It is sunny and 21 degrees in Paris today."
TURNS = 2
LATENCY = 0.05
CRITERIA = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}


def eval_set_dict(cases: int) -> dict:
  """The eval set: `cases` cases of two turns, each answered by one model call with no tools."""
  turn = lambda i, t: {"user_content": {"role": "user", "parts": [{"text": f"case {i} turn {t}: weather?"}]},
                       "final_response": {"role": "model", "parts": [{"text": ANSWER}]},
                       "intermediate_data": {"tool_uses": [], "tool_responses": [], "intermediate_responses": []}}
  return {"eval_set_id": "bench", "eval_cases": [
      {"eval_id": f"case_{i}", "conversation": [turn(i, t) for t in range(TURNS)],
       "session_input": {"app_name": "bench", "user_id": "u", "state": {}}} for i in range(cases)]}


# ---- adk_nb worker (runs in a fresh subprocess) -------------------------------------------------

def adk_nb_worker(cases: int, concurrency: int, mode: str) -> dict:
  import asyncio
  import resource

  sys.path.insert(0, REPO)
  from adk_nb import Agent
  from adk_nb.evaluation import EvalConfig, evaluate
  from adk_nb.evaluation.formats import eval_set_from_dict
  from adk_nb.models import ScriptedModel

  eval_set = eval_set_from_dict(eval_set_dict(cases))
  agent = Agent(name="bench", model=ScriptedModel(lambda request: ANSWER, latency=LATENCY, record=False))
  config = EvalConfig(criteria=CRITERIA)
  if mode == "memory":
    import tracemalloc

    tracemalloc.start()
  base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
  t0 = time.perf_counter()
  if mode == "agent_evaluator":
    from adk_nb.evaluation.agent_evaluator import AgentEvaluator

    mod_dir = tempfile.mkdtemp()
    with open(os.path.join(mod_dir, "bench_agent_nb.py"), "w") as f:
      f.write("from adk_nb import Agent\nfrom adk_nb.models import ScriptedModel\n"
              f"root_agent = Agent(name='bench', model=ScriptedModel(lambda r: {ANSWER!r}, latency={LATENCY}, record=False))\n")
    sys.path.insert(0, mod_dir)
    results = asyncio.run(AgentEvaluator.evaluate_eval_set("bench_agent_nb", eval_set, eval_config=config, num_runs=1,
                                                           print_detailed_results=False))
  elif mode.startswith("ray="):
    from adk_nb.evaluation import RayExecutor

    folder = os.path.join(tempfile.mkdtemp(), "bench_agent_ray")
    os.makedirs(folder)
    open(os.path.join(folder, "__init__.py"), "w").write("from . import agent\n")
    open(os.path.join(folder, "agent.py"), "w").write(
        "from adk_nb import Agent\nfrom adk_nb.models import ScriptedModel\n"
        f"root_agent = Agent(name='bench', model=ScriptedModel(lambda r: {ANSWER!r}, latency={LATENCY}, record=False))\n")
    executor = RayExecutor(address=mode[4:], workers=2, concurrency_per_worker=concurrency // 2)
    results = asyncio.run(evaluate(folder, eval_set, config, executor=executor, progress=False))
    phases = executor.timings
  else:
    results = asyncio.run(evaluate(agent, eval_set, config, concurrency=concurrency, progress=False))
  wall = time.perf_counter() - t0
  peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
  out = {"wall_s": wall, "rss_base_mb": base_rss / 1024, "rss_peak_mb": peak / 1024, "cases": cases}
  if mode.startswith("ray="):
    out["phases"] = phases
  if mode == "memory":
    import tracemalloc

    # Python heap the run allocated and still held at its peak, not counting the eval set built before it.
    out["traced_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
  assert results.passed, results.failures()[:3]
  out["passed"] = results.counts()["passed"]
  return out


# ---- google-adk worker (runs under google-adk's interpreter) ------------------------------------

ADK_WORKER = textwrap.dedent('''
    import asyncio, json, os, resource, sys, tempfile, time
    from typing import AsyncGenerator
    from google.genai import types
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse

    ANSWER, LATENCY = {answer!r}, {latency!r}
    cases, mode, parallelism = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])

    class ScriptedSlow(BaseLlm):
      """Offline stand-in: waits LATENCY seconds and answers the same text."""
      model: str = "scripted-slow"
      async def generate_content_async(self, llm_request, stream=False) -> AsyncGenerator[LlmResponse, None]:
        await asyncio.sleep(LATENCY)
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=ANSWER)]))

    mod_dir = tempfile.mkdtemp()
    os.makedirs(os.path.join(mod_dir, "bench_agent"))
    open(os.path.join(mod_dir, "bench_agent", "__init__.py"), "w").write("from . import agent\\n")
    open(os.path.join(mod_dir, "bench_agent", "agent.py"), "w").write(
        "from google.adk.agents import Agent\\nimport __main__\\n"
        "root_agent = Agent(name='bench', model=__main__.ScriptedSlow())\\n")
    sys.path.insert(0, mod_dir)

    from google.adk.evaluation.eval_set import EvalSet
    from google.adk.evaluation.eval_config import EvalConfig
    from google.adk.evaluation.agent_evaluator import AgentEvaluator
    eval_set = EvalSet.model_validate(json.loads(sys.stdin.read()))
    config = EvalConfig(criteria={criteria!r})
    # Imported before the clock starts (AgentEvaluator imports them lazily on first use).
    import google.adk.evaluation.metric_evaluator_registry, google.adk.evaluation.local_eval_service
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    if mode == "agent_evaluator":
      asyncio.run(AgentEvaluator.evaluate_eval_set("bench_agent", eval_set, eval_config=config, num_runs=1,
                                                   print_detailed_results=False))
    else:
      from google.adk.evaluation.base_eval_service import (EvaluateConfig, EvaluateRequest, InferenceConfig,
                                                           InferenceRequest)
      from google.adk.evaluation.eval_config import get_eval_metrics_from_config
      from google.adk.evaluation.in_memory_eval_sets_manager import InMemoryEvalSetsManager
      from google.adk.evaluation.local_eval_service import LocalEvalService
      import bench_agent.agent as agent_module
      manager = InMemoryEvalSetsManager()
      manager.create_eval_set(app_name="bench", eval_set_id=eval_set.eval_set_id)
      for case in eval_set.eval_cases:
        manager.add_eval_case(app_name="bench", eval_set_id=eval_set.eval_set_id, eval_case=case)
      service = LocalEvalService(root_agent=agent_module.root_agent, eval_sets_manager=manager)
      async def go():
        inferences = []
        async for r in service.perform_inference(InferenceRequest(app_name="bench", eval_set_id=eval_set.eval_set_id,
            inference_config=InferenceConfig(parallelism=parallelism))):
          inferences.append(r)
        metrics = [m for m in get_eval_metrics_from_config(config) if m.metric_name in config.criteria]
        results = [r async for r in service.evaluate(EvaluateRequest(inference_results=inferences,
            evaluate_config=EvaluateConfig(eval_metrics=metrics, parallelism=parallelism)))]
        assert all(r.final_eval_status.name == "PASSED" for r in results), results[0].final_eval_status
      asyncio.run(go())
    wall = time.perf_counter() - t0
    print(json.dumps({{"wall_s": wall, "rss_base_mb": base / 1024,
                      "rss_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "cases": cases}}))
''').format(answer=ANSWER, latency=LATENCY, criteria=CRITERIA)


def adk_python() -> str | None:
  for candidate in (os.environ.get("ADK_NB_BENCH_ADK_PYTHON"), os.path.join(BENCH_DIR, ".venv-adk", "bin", "python"),
                    "/work/scratch/adk-venv/bin/python"):
    if candidate and os.path.exists(candidate):
      return candidate
  return None


def run_adk(python: str, cases: int, mode: str, parallelism: int) -> dict:
  env = dict(os.environ)
  extra = os.environ.get("ADK_NB_BENCH_ADK_PYTHONPATH", "/work/scratch/rouge-ref")
  # google-adk's metric registry imports the Vertex AI SDKs (agentplatform, vertexai) at module
  # level although neither metric benchmarked here uses them; empty stand-ins let it import
  # without google-cloud-aiplatform installed.
  stubs = tempfile.mkdtemp(prefix="adk_stubs_")
  for name in ("agentplatform", "vertexai"):
    os.makedirs(os.path.join(stubs, name))
    open(os.path.join(stubs, name, "__init__.py"), "w").close()
  env["PYTHONPATH"] = os.pathsep.join(p for p in (extra if os.path.isdir(extra) else "", stubs) if p)
  done = subprocess.run([python, "-c", ADK_WORKER, str(cases), mode, str(parallelism)],
                        input=json.dumps(eval_set_dict(cases)), capture_output=True, text=True, env=env, timeout=1800)
  if done.returncode != 0:
    return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
  return json.loads(done.stdout.strip().splitlines()[-1])


def run_nb(cases: int, concurrency: int, mode: str = "evaluate") -> dict:
  done = subprocess.run([sys.executable, __file__, "--worker", str(cases), str(concurrency), mode],
                        capture_output=True, text=True, timeout=1800)
  if done.returncode != 0:
    raise RuntimeError(done.stderr)
  return json.loads(done.stdout.strip().splitlines()[-1])


def ray_figures(address: str, c: int) -> dict:
  """(c): 2,000 cases in one process, then on the Ray cluster at `address` with 2 workers at the same total
  concurrency, and with 2 workers each at the process's concurrency."""
  single = run_nb(2000, c)
  load_single = os.getloadavg()[0]
  on_ray = run_nb(2000, c, f"ray={address}")
  load_ray = os.getloadavg()[0]
  speedup = single["wall_s"] / on_ray["wall_s"]
  print(f"(c) 2,000 cases: one process {single['wall_s']:.2f} s (load average after {load_single:.1f}), Ray 2 workers "
        f"{on_ray['wall_s']:.2f} s (load average after {load_ray:.1f}) (total concurrency {c}) -> {speedup:.2f}x "
        f"({speedup / 2:.0%} of 2x; the Ray figure includes connecting and starting the workers)")
  phases = on_ray["phases"]
  print(f"    Ray phases: connect {phases['connect_s']:.1f} s, workers importing the agent {phases['start_workers_s']:.1f} s, "
        f"running the 2,000 case runs {phases['run_s']:.1f} s -> {2000 / phases['run_s']:.0f} case runs/s against "
        f"{2000 / single['wall_s']:.0f}/s in one process (whole run)")
  # Scaling out: each worker as busy as the one process (total concurrency 2c), as a bigger eval would run.
  doubled = run_nb(2000, 2 * c, f"ray={address}")
  load_doubled = os.getloadavg()[0]
  run_s = doubled["phases"]["run_s"]
  print(f"    Ray 2 workers at {c} each (total {2 * c}): running the 2,000 case runs {run_s:.1f} s -> "
        f"{2000 / run_s:.0f} case runs/s, {single['wall_s'] / run_s:.2f}x one process at {c} (floor "
        f"{2000 * TURNS * LATENCY / (2 * c):.2f} s; load average after {load_doubled:.1f})")
  return {"single_process": single, "ray_2_workers": on_ray, "ray_2_workers_doubled": doubled,
          "load_average_after": [load_single, load_ray, load_doubled]}


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--cases", type=int, default=500)
  parser.add_argument("--concurrency", type=int, default=32)
  parser.add_argument("--skip-adk", action="store_true")
  parser.add_argument("--ray-address", default=None,
                      help="also run (c): 2,000 cases on this Ray cluster with 2 workers (start one with "
                           "`ray start --head --num-cpus=2`) against one process at the same total concurrency")
  parser.add_argument("--ray-only", action="store_true",
                      help="with --ray-address: run only (c), the single-process and Ray runs of 2,000 cases")
  parser.add_argument("--memory-sizes", type=int, nargs="*", default=[500, 2000, 10000],
                      help="case counts of the memory runs (default 500 2000 10000)")
  parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    print(json.dumps(adk_nb_worker(int(args.worker[0]), int(args.worker[1]), args.worker[2])))
    return
  n, c = args.cases, args.concurrency
  if args.ray_only:
    if not args.ray_address:
      parser.error("--ray-only needs --ray-address host:port")
    print(f"(c) only: 2,000 cases x {TURNS} turns, scripted model {LATENCY * 1000:.0f} ms, total concurrency {c}; "
          f"load average before: {os.getloadavg()[0]:.1f}")
    ray_figures(args.ray_address, c)
    return
  ideal = n * TURNS * LATENCY / c
  print(f"eval bench: {n} cases x {TURNS} turns, scripted model {LATENCY * 1000:.0f} ms, concurrency {c}")
  main_run = run_nb(n, c)
  print(f"adk_nb evaluate: wall {main_run['wall_s']:.2f} s, ideal {ideal:.2f} s -> {main_run['wall_s'] / ideal:.2f}x ideal "
        f"({(main_run['wall_s'] / ideal - 1) * 100:+.0f}%)")
  print("memory vs cases (fresh process each, results streamed to the run's result store; peak Python heap the "
        "run allocated (tracemalloc), and peak RSS minus RSS before the run):")
  rows = []
  for size in args.memory_sizes:
    r = run_nb(size, c, "memory")
    rows.append((size, r["traced_peak_mb"], r["rss_peak_mb"] - r["rss_base_mb"], r["wall_s"]))
    print(f"  {size:>6} cases: heap peak {r['traced_peak_mb']:6.2f} MB, RSS +{rows[-1][2]:6.1f} MB "
          f"(wall {r['wall_s']:.1f} s under tracemalloc)")
  if len(rows) > 1:
    print(f"  heap peak at {rows[-1][0]} cases / at {rows[0][0]} cases: {rows[-1][1] / rows[0][1]:.2f}x")
  report = {"cases": n, "concurrency": c, "ideal_s": ideal, "adk_nb": main_run, "memory": rows}
  if args.ray_address:
    report["ray"] = ray_figures(args.ray_address, c)
  if not args.skip_adk:
    python = adk_python()
    if python is None:
      print("google-adk: no interpreter found (set ADK_NB_BENCH_ADK_PYTHON); skipped")
    else:
      nb4 = run_nb(n, 4)
      nb_ae = run_nb(n, 8, "agent_evaluator")
      adk_ae = run_adk(python, n, "agent_evaluator", 4)
      adk32 = run_adk(python, n, "service", c)
      report.update({"adk_nb_concurrency4": nb4, "adk_nb_agent_evaluator": nb_ae, "adk_agent_evaluator": adk_ae,
                     "adk_service_32": adk32})
      print("google-adk side by side (same eval set, same 50 ms scripted latency):")
      for label, ours, theirs in (("AgentEvaluator.evaluate_eval_set (adk_nb: 8 at once; ADK: 4)", nb_ae, adk_ae),
                                  ("adk_nb evaluate(concurrency=4) vs ADK AgentEvaluator (parallelism 4)", nb4, adk_ae),
                                  (f"adk_nb evaluate(concurrency={c}) vs ADK LocalEvalService(parallelism={c})",
                                   main_run, adk32)):
        if "error" in theirs:
          print(f"  {label}: google-adk failed: {theirs['error']}")
          continue
        print(f"  {label}: adk_nb {ours['wall_s']:.2f} s, google-adk {theirs['wall_s']:.2f} s -> google-adk / adk_nb = "
              f"{theirs['wall_s'] / ours['wall_s']:.1f}x; peak RSS delta adk_nb {ours['rss_peak_mb'] - ours['rss_base_mb']:.0f} MB, "
              f"google-adk {theirs['rss_peak_mb'] - theirs['rss_base_mb']:.0f} MB")
  out = os.path.join(BENCH_DIR, "results", "eval_latest.json")
  os.makedirs(os.path.dirname(out), exist_ok=True)
  with open(out, "w") as f:
    json.dump(report, f, indent=2)
  print(f"written {out}")


if __name__ == "__main__":
  main()
