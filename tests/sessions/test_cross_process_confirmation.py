"""A tool confirmation paused by one process is approved by another; the tool runs once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# One "kernel": pauses on a refund needing approval, approves it, or replays an approval.
SCRIPT = textwrap.dedent("""
    import asyncio, json, sys
    from google.genai import types
    from adk_nb import Agent, Runner
    from adk_nb.pending import answer_message, confirmation_response, pending_items
    from adk_nb.sessions import DatabaseSessionService
    from adk_nb.testing import ScriptedModel, call, run_turn
    from adk_nb.tools import FunctionTool

    db, log, mode, answer_file = sys.argv[1:5]

    def refund(order_id: str, amount: float) -> dict:
      \"\"\"Refunds an order.\"\"\"
      with open(log, "a") as f:
        f.write(order_id + "\\n")
      return {"refunded": amount}

    async def main():
      service = DatabaseSessionService(f"sqlite:///{db}")
      script = [call("refund", order_id="A1", amount=120.0)] if mode == "pause" else ["Refunded 120."]
      agent = Agent(name="support", model=ScriptedModel(script),
                    tools=[FunctionTool(refund, require_confirmation=True)])
      runner = Runner(app_name="app", agent=agent, session_service=service)
      out = {}
      try:
        if mode == "pause":
          await run_turn(runner, "refund A1")
        else:
          if mode == "approve":
            session = await service.get_session(app_name="app", user_id="user", session_id="session")
            [item] = pending_items(session.events)
            message = answer_message([confirmation_response(item, True)])
            with open(answer_file, "w") as f:
              f.write(message.model_dump_json())
          else:
            with open(answer_file) as f:
              message = types.Content.model_validate_json(f.read())
          events = await run_turn(runner, message)
          out["texts"] = [e.text for e in events if e.text]
      except ValueError as exc:
        out["error"] = str(exc)
      session = await service.get_session(app_name="app", user_id="user", session_id="session")
      out["pending"] = len(pending_items(session.events))
      out["events"] = len(session.events)
      await service.close()
      print(json.dumps(out))

    asyncio.run(main())
""")


def kernel(tmp_path, mode):
  done = subprocess.run(
      [sys.executable, "-c", SCRIPT, str(tmp_path / "sessions.db"), str(tmp_path / "ran.log"),
       mode, str(tmp_path / "answer.json")],
      capture_output=True, text=True, cwd=REPO_ROOT, timeout=120,
  )
  assert done.returncode == 0, done.stderr[-3000:]
  return json.loads(done.stdout.strip().splitlines()[-1])


def runs(tmp_path):
  path = tmp_path / "ran.log"
  return path.read_text().split() if path.exists() else []


def test_approval_from_a_second_process_runs_the_tool_exactly_once(tmp_path):
  paused = kernel(tmp_path, "pause")
  assert paused["pending"] == 1 and runs(tmp_path) == []

  approved = kernel(tmp_path, "approve")
  assert approved["texts"][-1] == "Refunded 120."
  assert approved["pending"] == 0 and runs(tmp_path) == ["A1"]

  # The same approval delivered again (a retried request, from a third process).
  replayed = kernel(tmp_path, "replay")
  assert "error" in replayed, replayed
  assert runs(tmp_path) == ["A1"]
  assert replayed["events"] == approved["events"]


# One process approves and is held inside the tool (until the parent says go); meanwhile a second
# process approves the same call.
HELD = textwrap.dedent("""
    import asyncio, json, sys
    from adk_nb import Agent, Runner
    from adk_nb.pending import answer_message, confirmation_response, pending_items
    from adk_nb.sessions import DatabaseSessionService
    from adk_nb.testing import ScriptedModel, run_turn
    from adk_nb.tools import FunctionTool

    db, log = sys.argv[1:3]

    def refund(order_id: str, amount: float) -> dict:
      \"\"\"Refunds an order.\"\"\"
      with open(log, "a") as f:
        f.write(order_id + "\\n")
      print("started", flush=True)
      sys.stdin.readline()  # held here until the parent has tried the second approval
      return {"refunded": amount}

    async def main():
      service = DatabaseSessionService(f"sqlite:///{db}")
      agent = Agent(name="support", model=ScriptedModel(["Refunded 120."]),
                    tools=[FunctionTool(refund, require_confirmation=True)])
      runner = Runner(app_name="app", agent=agent, session_service=service)
      session = await service.get_session(app_name="app", user_id="user", session_id="session")
      [item] = pending_items(session.events)
      events = await run_turn(runner, answer_message([confirmation_response(item, True)]))
      await service.close()
      print(json.dumps({"texts": [e.text for e in events if e.text]}), flush=True)

    asyncio.run(main())
""")


async def test_two_processes_approving_one_call_the_loser_is_refused_and_changes_nothing(tmp_path):
  from adk_nb import Agent, Runner
  from adk_nb.errors import StaleSessionError
  from adk_nb.events.protocol import interrupted_ids
  from adk_nb.pending import answer_message, confirmation_response, pending_items
  from adk_nb.sessions import DatabaseSessionService
  from adk_nb.testing import ScriptedModel, run_turn
  from adk_nb.tools import FunctionTool

  assert kernel(tmp_path, "pause")["pending"] == 1
  first = subprocess.Popen([sys.executable, "-c", HELD, str(tmp_path / "sessions.db"), str(tmp_path / "ran.log")],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": REPO_ROOT})
  try:
    assert first.stdout.readline().strip() == "started", first.stderr.read()
    ran_here = []

    def refund(order_id: str, amount: float) -> dict:
      """Refunds an order."""
      ran_here.append(order_id)
      return {"refunded": amount}

    async with DatabaseSessionService(f"sqlite:///{tmp_path / 'sessions.db'}") as service:
      runner = Runner(app_name="app", session_service=service,
                      agent=Agent(name="support", model=ScriptedModel([]),
                                  tools=[FunctionTool(refund, require_confirmation=True)]))
      before = await service.get_session(app_name="app", user_id="user", session_id="session")
      [item] = pending_items(before.events)  # the first approval is running: still open here
      with pytest.raises(StaleSessionError, match="another turn.*nothing was written"):
        await run_turn(runner, answer_message([confirmation_response(item, True)]))
      after = await service.get_session(app_name="app", user_id="user", session_id="session")
      assert len(after.events) == len(before.events) and ran_here == []  # the loser changed nothing

      first.stdin.write("go\n")
      first.stdin.flush()
      out, err = first.communicate(timeout=120)
      assert first.returncode == 0, err
      assert json.loads(out.strip().splitlines()[-1])["texts"][-1] == "Refunded 120."

      final = await service.get_session(app_name="app", user_id="user", session_id="session")
  finally:
    if first.poll() is None:
      first.kill()
  assert runs(tmp_path) == ["A1"]
  answers = [r.response for e in final.events if e.author != "user" for r in e.get_function_responses()
             if r.name == "refund"]
  assert answers[-1] == {"refunded": 120.0}  # the known result, not "may have run"
  assert not any(interrupted_ids(e) for e in final.events)
  approvals = [e for e in final.events if e.author == "user" and e.get_function_responses()]
  assert len(approvals) == 1 and pending_items(final.events) == []
