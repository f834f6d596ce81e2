"""A process SIGKILLed while a tool runs: the next process tells the model the outcome is unknown,
never runs the tool twice, and never sends a model a call without its answer (SQLite store)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap

import pytest

from adk_nb import Agent, Runner
from adk_nb.events.protocol import interrupted_ids
from adk_nb.pending import confirmation_response
from adk_nb.sessions import DatabaseSessionService
from adk_nb.testing import ScriptedModel, answer, call, orphan_calls, pending, run_turn, session_of
from adk_nb.tools import FunctionTool

SEED = 15

# The process to kill: runs one turn whose tool records its start, says so, and never returns.
CHILD = textwrap.dedent("""
    import asyncio, sys, time
    from adk_nb import Agent, Runner
    from adk_nb.pending import confirmation_response
    from adk_nb.sessions import DatabaseSessionService
    from adk_nb.testing import ScriptedModel, answer, call, pending, run_turn
    from adk_nb.tools import FunctionTool

    db, log, kind = sys.argv[1:4]

    def refund(order_id: str, amount: float) -> dict:
      \"\"\"Refunds an order.\"\"\"
      with open(log, "a") as f:
        f.write(order_id + "\\n")
      print("started", flush=True)
      time.sleep(120)  # blocks the loop until the parent kills this process
      return {"refunded": amount}

    async def main():
      runner = Runner(app_name="app", session_service=DatabaseSessionService(f"sqlite:///{db}"),
                      agent=Agent(name="desk", model=ScriptedModel([call("refund", order_id="A", amount=5.0)]),
                                  tools=[FunctionTool(refund, require_confirmation=kind == "approved")]))
      if kind == "approved":
        [item] = await pending(runner)
        await answer(runner, [confirmation_response(item, True)])
      else:
        await run_turn(runner, "refund A")

    asyncio.run(main())
""")


def runner_on(db: str, model: ScriptedModel, log: list) -> Runner:
  def refund(order_id: str, amount: float) -> dict:
    """Refunds an order."""
    log.append(order_id)
    return {"refunded": amount}
  return Runner(app_name="app", session_service=DatabaseSessionService(f"sqlite:///{db}"),
                agent=Agent(name="desk", model=model, tools=[FunctionTool(refund, require_confirmation=True)]))


def kill_mid_tool(db: str, log: str, kind: str) -> None:
  """Starts the child, waits until its tool has started, and SIGKILLs it."""
  env = {**os.environ, "PYTHONPATH": os.getcwd()}
  child = subprocess.Popen([sys.executable, "-c", CHILD, db, log, kind], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=env)
  try:
    line = child.stdout.readline()  # blocks until the tool says it started (or the child died)
    assert line.strip() == "started", child.stderr.read()
    os.kill(child.pid, signal.SIGKILL)
  finally:
    child.wait(timeout=30)
    child.stdout.close()
    child.stderr.close()
  assert child.returncode == -signal.SIGKILL


@pytest.mark.parametrize("number", range(3))
async def test_sigkill_mid_tool_then_the_next_process_goes_on_safely(tmp_path, number):
  kind, then = [("approved", "retry"), ("approved", "new_message"), ("plain", "new_message")][number]
  rng = random.Random(SEED + number)
  db, log_file = str(tmp_path / "sessions.db"), str(tmp_path / "tool.log")
  ran: list[str] = []
  if kind == "approved":
    first = ScriptedModel([call("refund", order_id="A", amount=5.0)])
    runner = runner_on(db, first, ran)
    await run_turn(runner, "refund A")
    await runner.close()
  else:
    runner = runner_on(db, ScriptedModel([]), ran)
    await runner.session_service.create_session(app_name="app", user_id="user", session_id="session")
    await runner.close()
  kill_mid_tool(db, log_file, kind)

  model = ScriptedModel(["noted"])
  runner = runner_on(db, model, ran)
  if then == "retry":
    [item] = await pending(runner)
    assert item.may_have_run
    await answer(runner, [confirmation_response(item, rng.choice([True, False]))])
  else:
    await run_turn(runner, "what happened?")
  session = await session_of(runner)
  told = [r.response["error"] for e in session.events for r in e.get_function_responses()
          if r.id in interrupted_ids(e)]
  await runner.close()
  with open(log_file) as f:
    starts = f.read().split()
  executions = len(starts) + len(ran)
  orphans = sum(len(orphan_calls(r)) for r in model.requests)
  assert (executions, orphans, len(told)) == (1, 0, 1), (number, kind, then, told)
  assert "may have run" in told[0]
  assert await pending(runner_on(db, ScriptedModel([]), ran)) == []
