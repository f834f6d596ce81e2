"""Session store speed on SQLite: adk_nb's DatabaseSessionService beside google-adk's.

Measures, for each framework, in a fresh subprocess on a fresh SQLite file:
  - append throughput: N events appended one by one to one session (events built beforehand);
  - load time: get_session of that N-event session by a new service (no warm caches),
    the median of three loads;
  - reload time: get_session again after one more append, by the service that loaded it
    (what a Runner pays each turn), the median of three;
  - per-turn overhead of workload (a) of bench/workloads.py (the model calls a tool, then
    answers) on SQLite: time per Runner turn on SQLite minus on memory, early and late.

google-adk runs from its own virtual environment, never adk_nb's: $ADK_NB_BENCH_ADK_PYTHON
if set, else bench/.venv-adk (created with python -m venv + pip install google-adk when missing).

  python bench/bench_sessions.py                  # both frameworks, 10,000 events
  python bench/bench_sessions.py --n 2000 --only adk_nb
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
from typing import Any, Optional

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
ADK_VENV = os.path.join(BENCH_DIR, ".venv-adk")
BUDGET_APPENDS_PER_S = 2000
BUDGET_LOAD_S = 0.3
BUDGET_TURN_OVERHEAD_MS = 3.0


# -- child: one framework, one measurement run -----------------------------------


def _imports(framework: str):
  if framework == "adk_nb":
    sys.path.insert(0, REPO_ROOT)
    from adk_nb.events import Event, EventActions
    from adk_nb.sessions import DatabaseSessionService
  else:
    from google.adk.events import Event, EventActions
    from google.adk.sessions import DatabaseSessionService
  return Event, EventActions, DatabaseSessionService


async def _measure(framework: str, n: int, db_path: str) -> dict[str, Any]:
  from google.genai import types

  Event, EventActions, DatabaseSessionService = _imports(framework)
  url = f"sqlite+aiosqlite:///{db_path}"

  def event(i: int):
    delta = {"turn": i, "user:last_seen": i} if i % 10 == 0 else {}
    return Event(
        author="user" if i % 2 == 0 else "assistant", invocation_id=f"inv-{i // 2}",
        content=types.Content(role="user" if i % 2 == 0 else "model",
                              parts=[types.Part(text=f"message {i}: " + "lorem ipsum " * 8)]),
        actions=EventActions(state_delta=delta),
    )

  events = [event(i) for i in range(n)]
  writer = DatabaseSessionService(url)
  session = await writer.create_session(app_name="bench", user_id="u", session_id="s")
  start, cpu_start = time.perf_counter(), time.process_time()
  for e in events:
    await writer.append_event(session, e)
  append_s = time.perf_counter() - start
  append_cpu_s = time.process_time() - cpu_start
  await writer.close()

  loads, load_cpu = [], []
  for _ in range(3):
    reader = DatabaseSessionService(url)
    await reader.list_sessions(app_name="bench", user_id="u")  # connect and check tables first
    start, cpu_start = time.perf_counter(), time.process_time()
    loaded = await reader.get_session(app_name="bench", user_id="u", session_id="s")
    loads.append(time.perf_counter() - start)
    load_cpu.append(time.process_time() - cpu_start)
    assert len(loaded.events) == n, (len(loaded.events), n)
    await reader.close()

  # What a Runner pays each turn: reload the session after one more event was appended.
  runner_like = DatabaseSessionService(url)
  loaded = await runner_like.get_session(app_name="bench", user_id="u", session_id="s")
  reloads = []
  for i in range(3):
    await runner_like.append_event(loaded, event(n + i))
    start = time.perf_counter()
    loaded = await runner_like.get_session(app_name="bench", user_id="u", session_id="s")
    reloads.append(time.perf_counter() - start)
  assert len(loaded.events) == n + 3
  await runner_like.close()
  return {
      "framework": framework, "events": n,
      "appends_per_s": n / append_s, "append_ms_each": 1000 * append_s / n,
      "appends_per_cpu_s": n / append_cpu_s,
      "load_s": statistics.median(loads), "load_s_all": loads, "load_cpu_s": statistics.median(load_cpu),
      "reload_s": statistics.median(reloads),
  }


async def _measure_turns(framework: str, turns: int, db_path: str) -> dict[str, Any]:
  """Workload (a) of bench/workloads.py (a tool call, then an answer) on memory, then on SQLite."""
  import importlib

  sys.path.insert(0, BENCH_DIR)
  import workloads

  fw = workloads.Framework(framework)
  Runner = importlib.import_module(workloads.FRAMEWORKS[framework] + ".runners").Runner
  sessions = importlib.import_module(workloads.FRAMEWORKS[framework] + ".sessions")

  def answer(llm_request):
    last = llm_request.contents[-1].parts[-1] if llm_request.contents else None
    if last is not None and last.function_response is not None:
      return "It is sunny in " + str(last.function_response.response.get("city"))
    return ("get_weather", {"city": "Paris"})

  out: dict[str, Any] = {}
  for store in ("memory", "sqlite"):
    service = (sessions.InMemorySessionService() if store == "memory"
               else sessions.DatabaseSessionService(f"sqlite+aiosqlite:///{db_path}"))
    agent = fw.LlmAgent(name="weather", model=fw.model(answer),
                        instruction="Answer about the weather.", tools=[workloads.get_weather])
    runner = Runner(app_name="bench", agent=agent, session_service=service)
    await workloads._warm_up(fw, runner)
    session = await service.create_session(app_name="bench", user_id="u")
    times, cpu = [], []
    for i in range(turns):
      start, cpu_start = time.perf_counter(), time.process_time()
      await workloads._drain(runner, session.id, fw.user(f"weather {i}?"))
      times.append(1000 * (time.perf_counter() - start))
      cpu.append(1000 * (time.process_time() - cpu_start))
    window = max(1, min(25, turns // 4))
    out[store] = {"first_ms": statistics.median(times[:window]), "last_ms": statistics.median(times[-window:]),
                  "first_cpu_ms": statistics.median(cpu[:window]), "last_cpu_ms": statistics.median(cpu[-window:])}
    if hasattr(service, "close"):
      await service.close()
  for kind in ("", "_cpu"):
    for when in ("first", "last"):
      out[f"overhead_{when}{kind}_ms"] = out["sqlite"][f"{when}{kind}_ms"] - out["memory"][f"{when}{kind}_ms"]
  return out


# -- parent: run both, print figures and ratios ----------------------------------------


def _has_google_adk(python: str) -> bool:
  try:
    done = subprocess.run([python, "-c", "import google.adk, sqlalchemy, aiosqlite"],
                          capture_output=True, timeout=120)
  except (OSError, subprocess.TimeoutExpired):
    return False
  return done.returncode == 0


def adk_python() -> str:
  """An interpreter with google-adk: $ADK_NB_BENCH_ADK_PYTHON, else bench/.venv-adk (built if missing)."""
  explicit = os.environ.get("ADK_NB_BENCH_ADK_PYTHON")
  if explicit:
    if not _has_google_adk(explicit):
      sys.exit(f"{explicit} cannot import google.adk with its database extra; run "
               f"{explicit} -m pip install 'google-adk[db]' aiosqlite, or unset "
               "ADK_NB_BENCH_ADK_PYTHON to let this script build bench/.venv-adk.")
    return explicit
  python = os.path.join(ADK_VENV, "Scripts" if os.name == "nt" else "bin", "python")
  if not (os.path.exists(python) and _has_google_adk(python)):
    print(f"Installing google-adk into {ADK_VENV} (once; a few minutes) ...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", ADK_VENV], check=True)
    subprocess.run([python, "-m", "pip", "install", "--quiet", "google-adk[db]", "aiosqlite"], check=True)
  return python


def _run_child(python: str, framework: str, n: int, turns: int) -> dict[str, Any]:
  with tempfile.TemporaryDirectory(prefix="bench_sessions_") as tmp:
    done = subprocess.run(
        [python, os.path.abspath(__file__), "--child", framework, "--n", str(n),
         "--turns", str(turns), "--db", os.path.join(tmp, "sessions.db")],
        capture_output=True, text=True, cwd=REPO_ROOT,
    )
  if done.returncode != 0:
    sys.exit(f"{framework} run failed:\n{done.stderr[-4000:]}")
  return json.loads(done.stdout.strip().splitlines()[-1])


def _version(python: str, framework: str) -> str:
  code = ("import google.adk as m" if framework == "google-adk" else
          f"import sys; sys.path.insert(0, {REPO_ROOT!r}); import adk_nb as m") + "; print(m.__version__)"
  return subprocess.run([python, "-c", code], capture_output=True, text=True).stdout.strip() or "?"


def main(argv: Optional[list[str]] = None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--n", type=int, default=10_000, help="events per session (default 10,000)")
  parser.add_argument("--turns", type=int, default=100,
                      help="runner turns of workload (a) on memory and on SQLite (default 100; 0 skips)")
  parser.add_argument("--only", choices=["adk_nb", "google-adk"], help="run one framework")
  parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
  parser.add_argument("--child", choices=["adk_nb", "google-adk"], help=argparse.SUPPRESS)
  parser.add_argument("--db", help=argparse.SUPPRESS)
  args = parser.parse_args(argv)

  if args.child:
    figures = asyncio.run(_measure(args.child, args.n, args.db))
    if args.turns:
      figures["turns"] = asyncio.run(_measure_turns(args.child, args.turns, args.db + ".turns"))
    print(json.dumps(figures))
    return

  results: dict[str, dict[str, Any]] = {}
  for framework in ("adk_nb", "google-adk"):
    if args.only and framework != args.only:
      continue
    python = sys.executable if framework == "adk_nb" else adk_python()
    results[framework] = _run_child(python, framework, args.n, args.turns)
    results[framework]["version"] = _version(python, framework)
  if args.json:
    print(json.dumps(results, indent=2))
    return

  print(f"SQLite session store, {args.n:,} events, one session (median of 3 cold loads)\n")
  print(f"{'':20}{'appends/s':>10}{'ms/append':>11}{'load (s)':>10}{'reload (ms)':>13}"
        f"{'appends/CPU-s':>15}{'load CPU (s)':>14}")
  for framework, r in results.items():
    print(f"{framework + ' ' + r['version']:20}{r['appends_per_s']:10,.0f}{r['append_ms_each']:11.3f}"
          f"{r['load_s']:10.3f}{1000 * r['reload_s']:13.1f}{r['appends_per_cpu_s']:15,.0f}"
          f"{r['load_cpu_s']:14.3f}")
  print("(reload: get_session after one more append, by the service that loaded it: a Runner's turn;\n"
        " CPU columns: process CPU time, all threads, which other processes on the machine barely move)")
  if args.turns:
    print(f"\nWorkload (a), {args.turns} turns: per-turn time on SQLite minus on memory "
          f"(median of the first / last {max(1, min(25, args.turns // 4))} turns)")
    for framework, r in results.items():
      t = r["turns"]
      print(f"{framework + ' ' + r['version']:20} SQLite overhead {t['overhead_first_ms']:6.2f} ms -> "
            f"{t['overhead_last_ms']:6.2f} ms wall, {t['overhead_first_cpu_ms']:6.2f} -> "
            f"{t['overhead_last_cpu_ms']:6.2f} ms CPU   (per turn at the end: memory "
            f"{t['memory']['last_ms']:.2f} ms, SQLite {t['sqlite']['last_ms']:.2f} ms)")
  ours = results.get("adk_nb")
  theirs = results.get("google-adk")
  if ours and theirs:
    print(f"\nadk_nb vs google-adk: appends {ours['appends_per_s'] / theirs['appends_per_s']:.1f}x, "
          f"cold load {theirs['load_s'] / ours['load_s']:.1f}x, "
          f"reload {theirs['reload_s'] / ours['reload_s']:.0f}x faster")
  if ours:
    def verdict(ok: bool) -> str:
      return "met" if ok else "MISSED"
    lines = [
        f"{BUDGET_APPENDS_PER_S:,}+ appends/s: {verdict(ours['appends_per_s'] >= BUDGET_APPENDS_PER_S)} "
        f"(wall), {verdict(ours['appends_per_cpu_s'] >= BUDGET_APPENDS_PER_S)} (CPU)",
        f"load under {BUDGET_LOAD_S} s: {verdict(ours['load_s'] <= BUDGET_LOAD_S)} (wall), "
        f"{verdict(ours['load_cpu_s'] <= BUDGET_LOAD_S)} (CPU)",
    ]
    if "turns" in ours:
      t = ours["turns"]
      wall = max(t["overhead_first_ms"], t["overhead_last_ms"])
      cpu = max(t["overhead_first_cpu_ms"], t["overhead_last_cpu_ms"])
      lines.append(f"SQLite per-turn overhead under {BUDGET_TURN_OVERHEAD_MS} ms: "
                   f"{verdict(wall < BUDGET_TURN_OVERHEAD_MS)} (wall), {verdict(cpu < BUDGET_TURN_OVERHEAD_MS)} (CPU)")
    print("\nbudget: " + "; ".join(lines))
    print("(on a busy machine wall time includes waiting for a CPU; the CPU verdicts do not)")

if __name__ == "__main__":
  main()
