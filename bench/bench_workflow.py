"""Graph Workflow speed: adk_nb beside google-adk 2.13 on the same four scenarios.

  (a) a 20-node linear chain of function nodes: ms per run at run 25 and run N, one session;
  (b) fan-out from one node to 64 function nodes and a JoinNode: ms per run (median), one session;
  (c) a loop of 2 nodes taken 10 times (a routed back edge): ms per run (median), one session;
  (d) resume of a 20-node workflow paused at its 10th node by a RequestInput, in a session that
      already holds H events (H = 0, 10, 100, 1,000 and 10,000; --histories): ms for the resuming
      run_async (median, wall and CPU).

Each framework runs in a fresh subprocess; the same code drives both (imports go through the
package prefix). google-adk runs from its own interpreter: $ADK_NB_BENCH_ADK_PYTHON, else
bench/.venv-adk (see bench/run.py). Framework time per node run is the run time divided by the
node runs it made (no model, no I/O: everything measured is framework). CPU time is reported beside
wall time, and each side records the load average before and after it ran: on a shared machine
wall time moves with the load, CPU time much less.

  python bench/bench_workflow.py                 # both frameworks, N = 500
  python bench/bench_workflow.py --n 100 --only adk_nb
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import logging
import os
import statistics
import subprocess
import sys
import time
import warnings
from typing import Any, Optional

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
BUDGET_NODE_MS = 0.1
WINDOW = 25


class _Fw:
  def __init__(self, name: str):
    prefix = "adk_nb" if name == "adk_nb" else "google.adk"
    if name == "adk_nb":
      sys.path.insert(0, REPO_ROOT)
    wf = importlib.import_module(prefix + ".workflow")
    self.Workflow, self.JoinNode = wf.Workflow, wf.JoinNode
    self.RequestInput = importlib.import_module(prefix + ".events").RequestInput
    self.Event = importlib.import_module(prefix + ".events").Event
    self.InMemoryRunner = importlib.import_module(prefix + ".runners").InMemoryRunner
    self.types = importlib.import_module("google.genai.types")

  def user(self, text: str):
    return self.types.Content(role="user", parts=[self.types.Part(text=text)])

  def answer(self, call_id: str):
    t = self.types
    return t.Content(role="user", parts=[t.Part(function_response=t.FunctionResponse(
        id=call_id, name="adk_request_input", response={"ok": True}))])


def _fn(name: str, body):
  body.__name__ = name
  return body


def _chain(k: int, prefix: str = "n"):
  return tuple(_fn(f"{prefix}{i}", lambda node_input, i=i: i) for i in range(k))


async def _drain(runner, session_id: str, message) -> int:
  count = 0
  async for _ in runner.run_async(user_id="u", session_id=session_id, new_message=message):
    count += 1
  return count


async def _runs(fw: _Fw, workflow, n: int) -> tuple[list[float], list[float], int]:
  runner = fw.InMemoryRunner(agent=workflow, app_name="bench")
  warm = await runner.session_service.create_session(app_name="bench", user_id="u")
  await _drain(runner, warm.id, fw.user("warm up"))
  session = await runner.session_service.create_session(app_name="bench", user_id="u")
  times, cpu, events = [], [], 0
  for i in range(n):
    cpu_start = time.process_time()  # read first: the clock read (a system call) stays outside the wall window
    start = time.perf_counter()
    events = await _drain(runner, session.id, fw.user(f"run {i}"))
    times.append((time.perf_counter() - start) * 1000)
    cpu.append((time.process_time() - cpu_start) * 1000)
  return times, cpu, events


async def chain(fw: _Fw, n: int) -> dict[str, Any]:
  times, cpu, events = await _runs(fw, fw.Workflow(name="chain", edges=[("START",) + _chain(20)]), n)
  at = {str(k): statistics.median(times[k - WINDOW:k]) for k in (WINDOW, n) if k <= n}
  cpu_at = {str(k): statistics.median(cpu[k - WINDOW:k]) for k in (WINDOW, n) if k <= n}
  return {"ms_at": at, "cpu_ms_at": cpu_at, "node_runs": 20, "events_per_run": events}


async def fan_out(fw: _Fw, n: int) -> dict[str, Any]:
  split = _fn("split", lambda node_input: 1)
  merge = _fn("merge", lambda node_input: len(node_input))
  wf = fw.Workflow(name="fan", edges=[("START", split, _chain(64, "w"), fw.JoinNode(name="join"), merge)])
  times, cpu, events = await _runs(fw, wf, n)
  return {"median_ms": statistics.median(times), "cpu_median_ms": statistics.median(cpu), "node_runs": 67,
          "events_per_run": events}


async def loop(fw: _Fw, n: int) -> dict[str, Any]:
  def step(node_input):
    return node_input + 1 if isinstance(node_input, int) else 1

  def check(ctx, node_input):
    ctx.route = "again" if node_input < 10 else "done"
    return node_input

  done = _fn("done", lambda node_input: f"looped {node_input}")
  wf = fw.Workflow(name="loop", edges=[("START", step, check), (check, {"again": step, "done": done})])
  times, cpu, events = await _runs(fw, wf, n)
  return {"median_ms": statistics.median(times), "cpu_median_ms": statistics.median(cpu), "node_runs": 21,
          "events_per_run": events}


async def resume(fw: _Fw, reps: int, histories: tuple[int, ...]) -> dict[str, Any]:
  async def ask(ctx, node_input):
    yield fw.RequestInput(interrupt_id=f"q-{ctx.session.id}", message="continue?")

  nodes = _chain(10, "a") + (ask,) + _chain(9, "b")
  wf = fw.Workflow(name="paused", edges=[("START",) + nodes])
  runner = fw.InMemoryRunner(agent=wf, app_name="bench")
  out: dict[str, Any] = {}
  cpu_out: dict[str, Any] = {}
  for history in histories:
    times, cpu = [], []
    for rep in range(reps + 1):
      session = await runner.session_service.create_session(app_name="bench", user_id="u")
      for i in range(history):
        await runner.session_service.append_event(session, fw.Event(
            invocation_id=f"old-{i // 10}", author="user", content=fw.user(f"earlier message {i}")))
      await _drain(runner, session.id, fw.user("go"))
      cpu_start = time.process_time()  # read first: the clock read (a system call) stays outside the wall window
      start = time.perf_counter()
      await _drain(runner, session.id, fw.answer(f"q-{session.id}"))
      if rep:  # the first one warms caches
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - cpu_start) * 1000)
    out[str(history)] = statistics.median(times)
    cpu_out[str(history)] = statistics.median(cpu)
  return {"resume_ms_after": out, "resume_cpu_ms_after": cpu_out}


def child(framework: str, n: int, reps: int, histories: tuple[int, ...]) -> dict[str, Any]:
  logging.disable(logging.WARNING)
  warnings.simplefilter("ignore")
  fw = _Fw(framework)
  figures: dict[str, Any] = {"load_average_before": round(os.getloadavg()[0], 2)}
  for name, scenario, args in (("chain", chain, (n,)), ("fan_out", fan_out, (max(WINDOW, n // 10),)),
                               ("loop", loop, (max(WINDOW, n // 5),)), ("resume", resume, (reps, histories))):
    print(f"  {framework}: {name} ...", file=sys.stderr, flush=True)
    figures[name] = asyncio.run(scenario(fw, *args))
  figures["load_average_after"] = round(os.getloadavg()[0], 2)
  return figures


def _adk_python() -> Optional[str]:
  explicit = os.environ.get("ADK_NB_BENCH_ADK_PYTHON")
  if explicit:
    return explicit
  python = os.path.join(BENCH_DIR, ".venv-adk", "bin", "python")
  return python if os.path.exists(python) else None


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--n", type=int, default=500, help="runs of (a) in one session (default 500)")
  parser.add_argument("--reps", type=int, default=5, help="timed resumes per history length (default 5)")
  parser.add_argument("--histories", default="0,10,100,1000,10000",
                      help="session lengths before the resume of (d), comma-separated (default 0,10,100,1000,10000)")
  parser.add_argument("--only", choices=["adk_nb", "google-adk"])
  parser.add_argument("--json", action="store_true", help="print the figures as JSON")
  parser.add_argument("--from-json", nargs="+", metavar="FILE",
                      help="print the table from saved --json outputs (merged), without running anything")
  parser.add_argument("--child", choices=["adk_nb", "google-adk"], help=argparse.SUPPRESS)
  args = parser.parse_args(argv)
  histories = tuple(int(h) for h in args.histories.split(","))
  if args.child:
    print(json.dumps(child(args.child, args.n, args.reps, histories)))
    return
  if args.from_json:
    merged: dict[str, Any] = {}
    for path in args.from_json:
      with open(path) as f:
        merged.update(json.load(f))
    print(table(merged, args.n))
    return
  results = {}
  for framework in ("adk_nb", "google-adk"):
    if args.only and args.only != framework:
      continue
    python = sys.executable if framework == "adk_nb" else _adk_python()
    if python is None:
      print("google-adk: no interpreter (set ADK_NB_BENCH_ADK_PYTHON or run bench/run.py once)", file=sys.stderr)
      continue
    done = subprocess.run([python, os.path.abspath(__file__), "--child", framework, "--n", str(args.n),
                           "--reps", str(args.reps), "--histories", args.histories],
                          stdout=subprocess.PIPE, text=True, cwd=REPO_ROOT)
    if done.returncode:
      raise SystemExit(f"{framework} failed (exit {done.returncode}); its error is above.")
    results[framework] = json.loads(done.stdout.strip().splitlines()[-1])
  if args.json:
    print(json.dumps(results, indent=2))
    return
  print(table(results, args.n))


def table(results: dict[str, Any], n: int) -> str:
  """A Markdown table: wall / CPU ms of each side, the CPU ratio, adk_nb's CPU per node run."""
  ours, theirs = results.get("adk_nb"), results.get("google-adk")

  def figure(r, get):
    try:
      return get(r) if r is not None else None
    except (KeyError, TypeError):
      return None

  def pair(r, wall, cpu):
    w, c = figure(r, wall), figure(r, cpu)
    if w is None:
      return "n/a"
    return f"{w:,.2f}" if c is None else f"{w:,.2f} / {c:,.2f}"

  def row(label, wall, cpu, nodes=0):
    ratio = ""
    a, o = figure(theirs, cpu), figure(ours, cpu)
    if a and o:
      ratio = f"{a / o:.0f}x"
    per_node = f"{o / nodes:.3f} ms" if o and nodes else ""
    return f"| {label} | {pair(theirs, wall, cpu)} | {pair(ours, wall, cpu)} | {ratio} | {per_node} |"

  lines = ["| workflow scenario | google-adk wall / CPU ms | adk_nb wall / CPU ms | CPU ratio | adk_nb CPU per node run |",
           "|---|---:|---:|---:|---:|"]
  for at in ("25", str(n)):
    lines.append(row(f"(a) 20-node chain, run {at}", lambda r, k=at: r["chain"]["ms_at"][k],
                     lambda r, k=at: r["chain"]["cpu_ms_at"][k], 20))
  lines.append(row("(b) fan-out to 64 function nodes and a JoinNode", lambda r: r["fan_out"]["median_ms"],
                   lambda r: r["fan_out"]["cpu_median_ms"], 67))
  lines.append(row("(c) a loop of 2 nodes taken 10 times", lambda r: r["loop"]["median_ms"],
                   lambda r: r["loop"]["cpu_median_ms"], 21))
  histories = sorted({int(h) for r in (ours, theirs) if r for h in r["resume"]["resume_ms_after"]})
  for history in histories:
    label = "empty session" if history == 0 else f"after {history:,} earlier events"
    lines.append(row(f"(d) resume of a paused 20-node workflow, {label}",
                     lambda r, h=str(history): r["resume"]["resume_ms_after"][h],
                     lambda r, h=str(history): r["resume"]["resume_cpu_ms_after"][h]))
  for name, r in (("google-adk", theirs), ("adk_nb", ours)):
    if r is not None and "load_average_before" in r:
      lines.append(f"\n{name}: load average {r['load_average_before']} before, {r['load_average_after']} after.")
  return "\n".join(lines)


if __name__ == "__main__":
  main()
