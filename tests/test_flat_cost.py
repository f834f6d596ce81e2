"""A turn costs the same work in a long session as in a short one.

Counted in Python function calls made on the event loop's thread (sys.setprofile), not in time:
the count does not depend on the machine or its load, and a reader that goes over the whole
history on every turn (as a rewind check once did) multiplies it.
"""

from __future__ import annotations

import sys

from google.genai import types

from adk_nb import Agent
from adk_nb.events import Event
from adk_nb.models import ScriptedModel
from adk_nb.pending import answer_message, confirmation_response, pending_items
from adk_nb.runners import InMemoryRunner
from adk_nb.testing import call, user_message
from adk_nb.tools import FunctionTool


def refund(order_id: str) -> dict:
  """Refunds an order."""
  return {"refunded": order_id}


def lookup(order_id: str) -> dict:
  """Looks an order up."""
  return {"order": order_id, "status": "shipped"}


def _model(request) -> object:
  """Calls a tool for a user message, answers after a tool's result."""
  last = request.contents[-1].parts[-1]
  if last.function_response is not None:
    return "Done."
  text = last.text or ""
  return call("refund", order_id="A1") if "refund" in text else call("lookup", order_id="A1")


async def _calls_in(coro_factory) -> int:
  calls = 0

  def count(frame, event, arg):
    nonlocal calls
    if event == "call":
      calls += 1

  sys.setprofile(count)
  try:
    await coro_factory()
  finally:
    sys.setprofile(None)
  return calls


async def _session_with_history(n_events: int):
  agent = Agent(name="desk", model=ScriptedModel(_model),
                tools=[FunctionTool(lookup), FunctionTool(refund, require_confirmation=True)])
  runner = InMemoryRunner(agent, app_name="desk")
  session = await runner.session_service.create_session(app_name="desk", user_id="u")
  for i in range(n_events // 2):
    for author, role, text in (("user", "user", f"question {i}"), ("desk", "model", f"answer {i}")):
      await runner.session_service.append_event(session, Event(
          invocation_id=f"old-{i}", author=author, content=types.Content(role=role, parts=[types.Part(text=text)])))
  return runner, session.id


async def _drain(runner, session_id, message):
  async for _ in runner.run_async(user_id="u", session_id=session_id, new_message=message):
    pass


async def _approval(runner, sid) -> types.Content:
  await _drain(runner, sid, user_message("refund A1"))
  session = await runner.session_service.get_session(app_name="desk", user_id="u", session_id=sid)
  [item] = pending_items(session.events)
  return answer_message([confirmation_response(item, True)])


async def _work_of_a_tool_turn_and_an_approval(n_events: int) -> tuple[int, int]:
  runner, sid = await _session_with_history(n_events)
  # The first turn and the first resume in a process read the history once (as loading it does).
  await _drain(runner, sid, user_message("where is A1?"))
  await _drain(runner, sid, await _approval(runner, sid))
  turn = await _calls_in(lambda: _drain(runner, sid, user_message("and now, where is A1?")))
  approve = await _approval(runner, sid)
  resume = await _calls_in(lambda: _drain(runner, sid, approve))
  return turn, resume


async def test_a_tool_turn_and_a_resumed_approval_cost_the_same_after_100_or_4000_events():
  short_turn, short_resume = await _work_of_a_tool_turn_and_an_approval(100)
  long_turn, long_resume = await _work_of_a_tool_turn_and_an_approval(4000)
  # A reader of the whole history adds thousands of calls (one or more per event) to the long run.
  assert long_turn < short_turn * 1.2 + 200, (short_turn, long_turn)
  assert long_resume < short_resume * 1.2 + 200, (short_resume, long_resume)
