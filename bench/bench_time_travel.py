"""Time travel cost: fork and rewind of a long SQLite session, diff_runs of two long runs.

Measures, each framework in a fresh subprocess on a fresh SQLite file holding one N-event session
(N = 10,000 by default; every 10th event writes state, invocations of 4 events):
  - fork (adk_nb only; google-adk has none): `fork_session` of the whole session, by the service
    that wrote it (warm: the Runner's case) and by a new service (cold: the original is loaded
    from disk first), five of each: least and median wall time and process CPU time (all threads:
    the SQLite writer thread too). On a shared machine the wall time is mostly the wait for a core:
    compare CPU, and report the load average printed beside the figures;
  - rewind: `rewind_async` before the invocation in the middle, by a new service each time (the
    session is loaded from disk, as google-adk always does), median of three, beside google-adk's;
  - diff_runs (adk_nb only) of two runs of 1,000 steps each (250 tool turns) that differ from
    step 500 on.
google-adk runs from bench/.venv-adk (or $ADK_NB_BENCH_ADK_PYTHON); it is never adk_nb's dependency.
Its SQLite store needs `google-adk[db]`; when that venv lacks sqlalchemy / aiosqlite, install them
elsewhere (`pip install --target DIR sqlalchemy aiosqlite`) and set $ADK_NB_BENCH_ADK_PYTHONPATH=DIR.

  python bench/bench_time_travel.py              # both frameworks, 10,000 events
  python bench/bench_time_travel.py --n 2000 --only adk_nb
  python bench/bench_time_travel.py --only adk_nb --fork-only    # fork figures only (no rewind, no diff)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
BUDGET_FORK_S = 0.1
BUDGET_DIFF_S = 0.5


def _events(framework: str, n: int) -> list:
  from google.genai import types

  prefix = "adk_nb" if framework == "adk_nb" else "google.adk"
  events_mod = __import__(prefix + ".events", fromlist=["Event", "EventActions"])
  Event, EventActions = events_mod.Event, events_mod.EventActions
  out = []
  for i in range(n):
    author = "user" if i % 4 == 0 else "agent"
    delta = {"turn": i, f"k{i % 50}": i} if i % 10 == 0 else {}
    out.append(Event(author=author, invocation_id=f"inv-{i // 4}",
                     content=types.Content(role="user" if author == "user" else "model",
                                           parts=[types.Part(text=f"message {i}: " + "lorem ipsum " * 8)]),
                     actions=EventActions(state_delta=delta)))
  return out


def _spread(values: list[float]) -> str:
  return f"{min(values) * 1000:.0f} / {statistics.median(values) * 1000:.0f} ms"


async def _measure(framework: str, n: int, db: str, fork_only: bool = False) -> dict[str, Any]:
  if framework == "adk_nb":
    sys.path.insert(0, REPO_ROOT)
    from adk_nb.agents import LlmAgent
    from adk_nb.runners import Runner
    from adk_nb.sessions import DatabaseSessionService
  else:
    from google.adk.agents import LlmAgent
    from google.adk.runners import Runner
    from google.adk.sessions import DatabaseSessionService
  url = f"sqlite+aiosqlite:///{db}"
  writer = DatabaseSessionService(url)
  session = await writer.create_session(app_name="bench", user_id="u", session_id="s")
  for event in _events(framework, n):
    await writer.append_event(session, event)
  out: dict[str, Any] = {"n": n}
  middle = f"inv-{n // 8}"

  if framework == "adk_nb":
    from adk_nb.sessions.fork import fork_session

    await writer.get_session(app_name="bench", user_id="u", session_id="s")  # the Runner's warm copy
    warm, cold, warm_cpu, cold_cpu = [], [], [], []
    for i in range(5):
      start, cpu = time.perf_counter(), time.process_time()
      fork = await fork_session(writer, app_name="bench", user_id="u", session_id="s", new_session_id=f"w{i}")
      warm.append(time.perf_counter() - start)
      warm_cpu.append(time.process_time() - cpu)
      assert len(fork.events) == n
      fresh = DatabaseSessionService(url)
      start, cpu = time.perf_counter(), time.process_time()
      await fork_session(fresh, app_name="bench", user_id="u", session_id="s", new_session_id=f"c{i}")
      cold.append(time.perf_counter() - start)
      cold_cpu.append(time.process_time() - cpu)
      await fresh.close()
    out["fork_warm_s"], out["fork_cold_s"] = statistics.median(warm), statistics.median(cold)
    out["fork_warm"], out["fork_cold"] = _spread(warm), _spread(cold)
    out["fork_warm_cpu"], out["fork_cold_cpu"] = _spread(warm_cpu), _spread(cold_cpu)
    out["load_average"] = os.getloadavg()[0]
  await writer.close()
  if fork_only:
    return out

  rewinds = []
  for i in range(3):
    service = DatabaseSessionService(url)
    if i:  # each rewind on a fresh copy of the N events (a rewind appends one)
      await service.delete_session(app_name="bench", user_id="u", session_id="s")
      session = await service.create_session(app_name="bench", user_id="u", session_id="s")
      for event in _events(framework, n):
        await service.append_event(session, event)
      await service.close()
      service = DatabaseSessionService(url)
    runner = Runner(agent=LlmAgent(name="agent", model="gemini-2.0-flash"), app_name="bench", session_service=service)
    start = time.perf_counter()
    await runner.rewind_async(user_id="u", session_id="s", rewind_before_invocation_id=middle)
    rewinds.append(time.perf_counter() - start)
    await service.close()
  out["rewind_s"] = statistics.median(rewinds)

  if framework == "adk_nb":
    out["diff_s"] = _diff_runs_time()
  return out


def _diff_runs_time() -> float:
  from google.genai import types

  from adk_nb.events import Event
  from adk_nb.inspect import diff_runs

  def run(diverge_at_turn: int) -> list:
    events = []
    for t in range(250):
      temp = 21 if t < diverge_at_turn else 35
      call = types.FunctionCall(id=f"c{t}", name="lookup", args={"city": f"city {t}"})
      events += [
          Event(invocation_id=f"i{t}", author="user", content=types.Content(role="user", parts=[types.Part(text=f"q{t}")])),
          Event(invocation_id=f"i{t}", author="agent", content=types.Content(role="model", parts=[types.Part(function_call=call)])),
          Event(invocation_id=f"i{t}", author="agent", content=types.Content(role="user", parts=[types.Part(
              function_response=types.FunctionResponse(id=f"c{t}", name="lookup", response={"temp": temp}))])),
          Event(invocation_id=f"i{t}", author="agent", content=types.Content(role="model", parts=[types.Part(text=f"{temp} degrees")])),
      ]
    return events

  a, b = run(250), run(125)
  diff_runs(a[:8], b[:8])  # imports pandas outside the timing
  times = []
  for _ in range(3):
    start = time.perf_counter()
    frame = diff_runs(a, b)
    times.append(time.perf_counter() - start)
  assert len(frame) == 1000 and not frame.same.all(), len(frame)
  return statistics.median(times)


def _child(args) -> None:
  import logging
  import warnings

  warnings.simplefilter("ignore")
  logging.disable(logging.WARNING)
  with tempfile.TemporaryDirectory() as tmp:
    print(json.dumps(asyncio.run(_measure(args.framework, args.n, os.path.join(tmp, "s.db"), args.fork_only))))


def _adk_python() -> str:
  return os.environ.get("ADK_NB_BENCH_ADK_PYTHON") or os.path.join(BENCH_DIR, ".venv-adk", "bin", "python")


def main() -> None:
  parser = argparse.ArgumentParser()
  parser.add_argument("--n", type=int, default=10_000)
  parser.add_argument("--only", choices=["adk_nb", "google-adk"])
  parser.add_argument("--fork-only", action="store_true", help="measure adk_nb's fork only")
  parser.add_argument("--framework", help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.fork_only:
    args.only = "adk_nb"
  if args.framework:
    _child(args)
    return
  results = {}
  for framework, python in (("adk_nb", sys.executable), ("google-adk", _adk_python())):
    if args.only and args.only != framework:
      continue
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    if framework == "google-adk" and os.environ.get("ADK_NB_BENCH_ADK_PYTHONPATH"):
      env["PYTHONPATH"] = os.environ["ADK_NB_BENCH_ADK_PYTHONPATH"]
    command = [python, __file__, "--framework", framework, "--n", str(args.n)] + ["--fork-only"] * args.fork_only
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
      print(f"{framework} failed:\n{done.stderr[-3000:]}")
      continue
    results[framework] = json.loads(done.stdout.strip().splitlines()[-1])
  ours, theirs = results.get("adk_nb"), results.get("google-adk")
  print(f"| time travel, {args.n:,}-event SQLite session | adk_nb | google-adk |")
  print("|---|---|---|")
  if ours:
    print(f"| fork, warm (the service holds it): least / median of 5, wall | {ours['fork_warm']} "
          f"(budget {BUDGET_FORK_S * 1000:.0f} ms) | none |")
    print(f"| ... process CPU | {ours['fork_warm_cpu']} | |")
    print(f"| fork, cold (loaded from disk first), wall | {ours['fork_cold']} | none |")
    print(f"| ... process CPU | {ours['fork_cold_cpu']} | |")
    print(f"(load average {ours['load_average']:.1f} during the forks, on {os.cpu_count()} cores)")
    if args.fork_only:
      return
  rewind_theirs = f"{theirs['rewind_s'] * 1000:.0f} ms" if theirs else "not run"
  if ours:
    print(f"| rewind_async (cold) | {ours['rewind_s'] * 1000:.0f} ms | {rewind_theirs} |")
    print(f"| diff_runs, two 1,000-step runs | {ours['diff_s'] * 1000:.0f} ms (budget {BUDGET_DIFF_S * 1000:.0f} ms) | none |")
  elif theirs:
    print(f"| rewind_async (cold) | - | {rewind_theirs} |")


if __name__ == "__main__":
  main()
