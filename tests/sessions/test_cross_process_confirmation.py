"""A tool confirmation paused by one process is approved by another; the tool runs once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

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
