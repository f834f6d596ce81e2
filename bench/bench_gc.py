"""What adk_nb's GC policy (adk_nb.gc_policy) saves: each place it acts, with it on and with ADK_NB_GC_TUNING=0.

Each measurement runs in a fresh subprocess (so every variant starts from the same heap), the
variants interleaved, `--repeat` times; the least CPU is shown, with every run's figure:

- `sqlite load`: get_session of an N-event session by a new DatabaseSessionService on SQLite
  (the decode runs with automatic collection paused);
- `notebook run`: `adk_nb.notebook.run` of an agent that calls a sync tool `--calls` times and then
  streams `--chunks` one-character chunks, in a process that imported google.genai and the notebook
  layer first, as a kernel has (the heap from before the run is frozen while it streams).

GC time is the collector's own CPU time during the measured span (gc.callbacks). Report the load
average beside the figures: the machine is shared.

  python bench/bench_gc.py [--events 10000] [--calls 1500] [--chunks 7000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import gc
import json
import os
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)


class _GcClock:
  """The collector's CPU time while installed (gc.callbacks)."""

  def __init__(self) -> None:
    self.cpu = 0.0
    self.collections = 0
    self._start = 0.0

  def __call__(self, phase: str, info: dict) -> None:
    if phase == "start":
      self._start = time.process_time()
    else:
      self.cpu += time.process_time() - self._start
      self.collections += 1

  def __enter__(self) -> "_GcClock":
    gc.callbacks.append(self)
    return self

  def __exit__(self, *exc) -> None:
    gc.callbacks.remove(self)


def _child_fill(path: str, events: int) -> dict:
  from google.genai import types

  from adk_nb.events.event import Event
  from adk_nb.sessions import DatabaseSessionService

  async def fill() -> str:
    store = DatabaseSessionService(f"sqlite:///{path}")
    session = await store.create_session(app_name="bench", user_id="u")
    for i in range(events):
      part = types.Part(text=f"message {i} " + "x" * 80)
      await store.append_event(session, Event(author="user" if i % 2 else "agent",
                                              content=types.Content(role="user", parts=[part])))
    return session.id
  return {"session_id": asyncio.run(fill())}


def _child_load(path: str, session_id: str) -> dict:
  from adk_nb.sessions import DatabaseSessionService

  async def load() -> int:
    store = DatabaseSessionService(f"sqlite:///{path}")
    session = await store.get_session(app_name="bench", user_id="u", session_id=session_id)
    return len(session.events)

  asyncio.run(load())  # warm: imports, the engine, the first query
  with _GcClock() as clock:
    wall, cpu = time.perf_counter(), time.process_time()
    count = asyncio.run(load())
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
  return {"events": count, "wall": wall, "cpu": cpu, "gc": clock.cpu, "collections": clock.collections}


def _child_run(calls: int, chunks: int) -> dict:
  import google.genai.types  # noqa: F401  (a kernel's heap: google-genai's schemas, the notebook layer)

  import adk_nb.notebook as nb
  from adk_nb import Agent
  from adk_nb.agents.run_config import RunConfig, StreamingMode
  from adk_nb.models import ScriptedModel, call

  def lookup(item: int) -> dict:
    """Looks an item up."""
    return {"item": item, "ok": True}

  def agent(n_calls: int, n_chunks: int) -> Agent:
    script = [call("lookup", item=i) for i in range(n_calls)] + ["x" * n_chunks]
    return Agent(name="worker", model=ScriptedModel(script, chunk_size=1, record=False), tools=[lookup])

  config = RunConfig(streaming_mode=StreamingMode.SSE, max_llm_calls=0)
  nb.run(agent(5, 50), "warm up", store="memory://", run_config=config)
  with _GcClock() as clock:
    wall, cpu = time.perf_counter(), time.process_time()
    run = nb.run(agent(calls, chunks), "go", store="memory://", run_config=config)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
  assert run.status == "done", run.error
  return {"events": len(run.events), "wall": wall, "cpu": cpu, "gc": clock.cpu, "collections": clock.collections}


def _in_child(tuning: bool, *args: str) -> dict:
  env = {**os.environ, "ADK_NB_GC_TUNING": "1" if tuning else "0",
         "PYTHONPATH": os.pathsep.join(p for p in (REPO_ROOT, os.environ.get("PYTHONPATH")) if p)}
  done = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True, env=env,
                        timeout=1800)
  if done.returncode != 0:
    raise RuntimeError(done.stderr[-4000:])
  return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--events", type=int, default=10_000, help="events in the SQLite session to load")
  parser.add_argument("--calls", type=int, default=1_500, help="tool calls in the notebook run")
  parser.add_argument("--chunks", type=int, default=7_000, help="streamed chunks in the notebook run")
  parser.add_argument("--repeat", type=int, default=3)
  parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.child:
    kind, *rest = args.child
    result = {"fill": lambda: _child_fill(rest[0], int(rest[1])), "load": lambda: _child_load(*rest),
              "run": lambda: _child_run(int(rest[0]), int(rest[1]))}[kind]()
    print(json.dumps(result))
    return

  load_before = os.getloadavg()[0]
  with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "sessions.db")
    session_id = _in_child(True, "fill", path, str(args.events))["session_id"]
    measured: dict[tuple[str, bool], list[dict]] = {}
    for _ in range(args.repeat):  # interleaved: a change in the machine's load touches every variant
      for tuning in (True, False):
        measured.setdefault(("sqlite load", tuning), []).append(_in_child(tuning, "load", path, session_id))
        measured.setdefault(("notebook run", tuning), []).append(
            _in_child(tuning, "run", str(args.calls), str(args.chunks)))
  load_after = os.getloadavg()[0]
  print(f"{datetime.datetime.now():%Y-%m-%d %H:%M}; load average {load_before:.1f} before, {load_after:.1f} after "
        f"(1 min); {os.cpu_count()} cores; least CPU of {args.repeat}")
  print(f"{'place':<13} {'ADK_NB_GC_TUNING':>16} {'events':>7} {'CPU s':>6} {'wall s':>6} {'GC s':>5} "
        f"{'collections':>11}  CPU s of every run")
  for (place, tuning), runs in measured.items():
    best = min(runs, key=lambda r: r["cpu"])
    print(f"{place:<13} {'1 (on)' if tuning else '0 (off)':>16} {best['events']:>7} {best['cpu']:>6.3f} "
          f"{best['wall']:>6.3f} {best['gc']:>5.3f} {best['collections']:>11}  "
          + ", ".join(f"{r['cpu']:.3f}" for r in runs))


if __name__ == "__main__":
  main()
