"""`user:` and `app:` state under racing writers: lost updates are counted, and must be zero.

A visit reads a shared counter, lets the others run, and writes it + 1. Without protection
ten racing visits leave the counter at 1. With it, a visit whose copy went stale is refused
(StaleSessionError) and the client retries it on a fresh copy, so the counter ends equal to
the number of visits that were committed. Seeded and bounded: a few seconds per store.

1. In one process, through the Runner and a tool (memory, SQLite, PostgreSQL).
2. Two real processes writing to one database (SQLite file, PostgreSQL).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import textwrap

import pytest

from adk_nb.agents import LlmAgent
from adk_nb.errors.stale_session_error import StaleSessionError
from adk_nb.runners import Runner
from adk_nb.sessions import DatabaseSessionService
from adk_nb.testing import ScriptedModel, call, run_turn
from adk_nb.tools.tool_context import ToolContext

SEED = 15
APP, USER = "shop", "ada"


def visit_model() -> ScriptedModel:
  """Calls `visit` once per turn, then says done."""
  def reply(request):
    last = request.contents[-1].parts[-1] if request.contents else None
    return "done" if last is not None and last.function_response else call("visit")
  return ScriptedModel(reply)


async def test_racing_tool_turns_lose_no_user_or_app_update(service):
  sizes, jitter = random.Random(SEED), random.Random(SEED + 1)
  trials, lost, refused, committed_total = 6, 0, 0, 0
  for trial in range(trials):
    visitors = sizes.randint(4, 8)
    everyone_read = asyncio.Barrier(visitors)
    first_try = set()

    async def visit(tool_context: ToolContext) -> dict:
      """Counts a visit."""
      seen = tool_context.state.get("user:visits", 0), tool_context.state.get("app:visits", 0)
      if tool_context.session.id not in first_try:
        first_try.add(tool_context.session.id)
        await everyone_read.wait()  # the worst case: every visitor has read before anyone writes
      for _ in range(jitter.randint(0, 3)):
        await asyncio.sleep(0)
      tool_context.state["user:visits"] = seen[0] + 1
      tool_context.state["app:visits"] = seen[1] + 1
      return {"visits": seen[0] + 1}

    app = f"{APP}{trial}"
    runner = Runner(agent=LlmAgent(name="desk", model=visit_model(), tools=[visit]),
                    app_name=app, session_service=service)

    async def visitor(n: int) -> int:
      """Runs the visit turn until it commits; returns how often it was refused."""
      nonlocal refused
      tries = 0
      while True:
        try:  # the Runner reports a stale write as an error event (and may raise it)
          events = await run_turn(runner, "visit", user_id=USER, session_id=f"s{n}")
          stale = any(e.error_code == "StaleSessionError" for e in events)
        except StaleSessionError:
          stale = True
        if not stale:
          return tries
        tries += 1
        refused += 1
        assert tries < 50, "a visitor kept being refused"

    await asyncio.gather(*(visitor(n) for n in range(visitors)))
    committed = 0
    for n in range(visitors):
      session = await service.get_session(app_name=app, user_id=USER, session_id=f"s{n}")
      committed += sum(1 for e in session.events if "user:visits" in e.actions.state_delta)
    final = await service.get_session(app_name=app, user_id=USER, session_id="s0")
    lost += (committed - final.state["user:visits"]) + (committed - final.state["app:visits"])
    committed_total += committed
    assert committed == visitors
  print(f"\n{type(service).__name__}: {trials} trials, {committed_total} visits committed, "
        f"{refused} stale writes refused and retried, {lost} updates lost")
  assert lost == 0
  assert refused > 0  # the races did happen


# -- two processes ----------------------------------------------------------------

CHILD = textwrap.dedent("""
    import asyncio, json, random, sys
    from adk_nb.errors.stale_session_error import StaleSessionError
    from adk_nb.events import Event, EventActions
    from adk_nb.sessions import DatabaseSessionService

    url, name, seed, sessions, visits = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    rng = random.Random(seed)

    async def main():
      service = DatabaseSessionService(url)
      ids = [f"{name}-{i}" for i in range(sessions)]
      for sid in ids:
        await service.create_session(app_name="shop", user_id="ada", session_id=sid)
      print("ready", flush=True)
      sys.stdin.readline()  # the parent starts both processes' writes together
      committed = refused = 0

      async def writer(sid):
        nonlocal committed, refused
        for _ in range(visits):
          while True:
            copy = await service.get_session(app_name="shop", user_id="ada", session_id=sid)
            seen = copy.state.get("user:visits", 0), copy.state.get("app:visits", 0)
            for _ in range(rng.randint(0, 2)):
              await asyncio.sleep(rng.random() / 500)  # jitter between read and write
            delta = {"user:visits": seen[0] + 1, "app:visits": seen[1] + 1}
            try:
              await service.append_event(copy, Event(author="agent", actions=EventActions(state_delta=delta)))
              committed += 1
              break
            except StaleSessionError:
              refused += 1

      await asyncio.gather(*(writer(sid) for sid in ids))
      await service.close()
      print(json.dumps({"committed": committed, "refused": refused}), flush=True)

    asyncio.run(main())
""")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
  if request.param == "sqlite":
    return f"sqlite:///{tmp_path / 'shared.db'}"
  return request.getfixturevalue("pg_url")


async def test_two_processes_racing_on_one_database_lose_no_update(db_url):
  # Tables first, so the children do not race to create them.
  async with DatabaseSessionService(db_url) as service:
    await service.prepare_tables()
  sessions, visits = 3, 8
  env = {**os.environ, "PYTHONPATH": os.getcwd()}
  children = [subprocess.Popen([sys.executable, "-c", CHILD, db_url, name, str(SEED + i), str(sessions),
                                str(visits)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)
              for i, name in enumerate(("p1", "p2"))]
  try:
    for child in children:
      assert child.stdout.readline().strip() == "ready", child.stderr.read()
    for child in children:
      child.stdin.write("go\n")
      child.stdin.flush()
    results = []
    for child in children:
      out, err = child.communicate(timeout=120)
      assert child.returncode == 0, err
      results.append(json.loads(out.strip().splitlines()[-1]))
  finally:
    for child in children:
      if child.poll() is None:
        child.kill()
  committed = sum(r["committed"] for r in results)
  refused = sum(r["refused"] for r in results)
  async with DatabaseSessionService(db_url) as service:
    state = (await service.get_session(app_name=APP, user_id=USER, session_id="p1-0")).state
  lost = (committed - state["user:visits"]) + (committed - state["app:visits"])
  print(f"\n{db_url.split(':')[0]}, 2 processes x {sessions} sessions x {visits} visits: "
        f"{committed} committed, {refused} stale writes refused and retried, {lost} updates lost")
  assert committed == 2 * sessions * visits
  assert lost == 0
