"""What settling a notebook turn costs in a long session: LiveRun reading back the session after each step.

Run: `python bench/bench_long_session.py [--events 1000 10000] [--turns 20]`. Offline (ScriptedModel),
in-process. For each session length and store (memory, SQLite), the session is filled with that many
committed events (text turns and tool calls, the last invocation paused on an approval), then
`--turns` notebook turns run in it; printed: the CPU time of LiveRun's settle step per turn (what it
reads to list the pending approvals and the stored user events) and of the whole turn, what
`LiveRun.attach` (a kernel restart's `%agent resume`) costs once, and answering its pause (the resume). Report CPU beside the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time

from google.genai import types

from adk_nb import Agent
from adk_nb.events import Event
from adk_nb.models import ScriptedModel
from adk_nb.notebook import _run_driver
from adk_nb.notebook.live_run import LiveRun
from adk_nb.runners import Runner
from adk_nb.sessions import InMemorySessionService
from adk_nb.sessions.sqlite_session_service import SqliteSessionService


def _history(n: int) -> list[Event]:
  """n events of past turns: a user message, a tool call and its answer, the model's reply; then a pause."""
  events: list[Event] = []
  turn = 0
  while len(events) < n - 3:
    inv = f"past-{turn}"
    call = types.FunctionCall(id=f"c{turn}", name="lookup", args={"item": turn})
    events += [
        Event(invocation_id=inv, author="user", content=types.UserContent(f"question {turn}")),
        Event(invocation_id=inv, author="long", content=types.ModelContent([types.Part(function_call=call)])),
        Event(invocation_id=inv, author="long", content=types.Content(role="user", parts=[types.Part(
            function_response=types.FunctionResponse(id=f"c{turn}", name="lookup", response={"ok": True}))])),
        Event(invocation_id=inv, author="long", content=types.ModelContent(f"answer {turn}")),
    ]
    turn += 1
  # The newest invocation waits for an answer to a long-running call: attach shows it pending.
  waiting = types.FunctionCall(id="waiting", name="ask_boss", args={"amount": 5})
  events += [Event(invocation_id="paused", author="user", content=types.UserContent("pay 5")),
             Event(invocation_id="paused", author="long", content=types.ModelContent([types.Part(function_call=waiting)]),
                   long_running_tool_ids={"waiting"})]
  return events[-n:] if len(events) > n else events


async def measure(n: int, store: str, turns: int) -> dict:
  folder = tempfile.mkdtemp()
  service = InMemorySessionService() if store == "memory" else SqliteSessionService(os.path.join(folder, "s.db"))
  agent = Agent(name="long", model=ScriptedModel(["ok"] * (turns + 5)))
  runner = Runner(app_name="bench", agent=agent, session_service=service)
  session = await service.create_session(app_name="bench", user_id="u", session_id="s")
  for event in _history(n):
    await service.append_event(session, event)
  settle_cpu: list[float] = []
  original = _run_driver.settle

  async def timed(run, failed):
    start = time.process_time()
    await original(run, failed)
    settle_cpu.append(time.process_time() - start)

  _run_driver.settle = timed
  try:
    start = time.process_time()
    attached = await LiveRun.attach(runner, session_id="s", user_id="u", view=False)
    attach_cpu = time.process_time() - start
    assert [p.call_id for p in attached.pending] == ["waiting"], attached.pending
    start = time.process_time()
    await attached.respond({"approved": True})  # resumes the paused invocation
    resume_cpu = time.process_time() - start
    assert attached.status == "done", (attached.status, attached.error)
    turn_cpu = []
    for i in range(turns):
      run = LiveRun(runner, user_id="u", session_id="s", view=False)
      start = time.process_time()
      await run.start(types.UserContent(f"turn {i}"))
      turn_cpu.append(time.process_time() - start)
      assert run.status == "done", (run.status, run.error)
  finally:
    _run_driver.settle = original
    await service.close()
  warm = settle_cpu[2:] or settle_cpu  # the first turns fill the stores' caches
  return {"events": n, "store": store, "attach_ms": attach_cpu * 1000, "resume_ms": resume_cpu * 1000,
          "settle_ms": statistics.median(warm) * 1000, "turn_ms": statistics.median(turn_cpu[2:] or turn_cpu) * 1000}


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--events", type=int, nargs="+", default=[1_000, 10_000])
  parser.add_argument("--turns", type=int, default=20)
  parser.add_argument("--stores", nargs="+", default=["memory", "sqlite"])
  args = parser.parse_args()
  print(f"load average {os.getloadavg()[0]:.1f} (1 min); CPU time, medians over {args.turns} turns after 2")
  print(f"{'store':<7} {'events':>7} {'settle/turn':>12} {'whole turn':>11} {'attach once':>12} {'resume once':>12}")
  for store in args.stores:
    for n in args.events:
      r = asyncio.run(measure(n, store, args.turns))
      print(f"{store:<7} {n:>7,} {r['settle_ms']:>9.2f} ms {r['turn_ms']:>8.2f} ms {r['attach_ms']:>9.1f} ms {r['resume_ms']:>9.1f} ms")
  print(f"load average {os.getloadavg()[0]:.1f} (1 min)")


if __name__ == "__main__":
  main()
