"""The pending calls of a session read incrementally (`pending_of`) or back to the answered call
(`pending_since_calls`) agree with reading the whole session (`pending_items`)."""

from google.genai import types

from adk_nb import InMemoryRunner, Workflow
from adk_nb.agents import LlmAgent
from adk_nb.events import Event, RequestInput
from adk_nb.models import ScriptedModel, call
from adk_nb.pending import pending_items, pending_of, pending_since_calls
from adk_nb.testing import run_turn, session_of
from adk_nb.tools import FunctionTool


def refund(amount: int) -> dict:
  return {"ok": amount}


async def paused_session():
  """A session with an answered pause, then older chatter, then two open pauses (a confirmation, a request)."""
  model = ScriptedModel([call("refund", amount=1), "done", call("refund", amount=2), "rejected"])
  clerk = LlmAgent(name="clerk", model=model, tools=[FunctionTool(refund, require_confirmation=True)])
  runner = InMemoryRunner(clerk, app_name="app")
  await run_turn(runner, "first")
  [item] = pending_items((await session_of(runner, "session")).events)
  await run_turn(runner, [types.Part(function_response=types.FunctionResponse(
      id=item.call_id, name="adk_request_confirmation", response={"confirmed": True}))])
  session = await session_of(runner, "session")
  for i in range(50):
    await runner.session_service.append_event(session, Event(invocation_id=f"old-{i}", author="user",
                                                             content=types.Content(role="user", parts=[types.Part(text=str(i))])))
  await run_turn(runner, "second")
  return runner, await session_of(runner, "session")


async def test_reading_back_to_the_answered_call_gives_the_same_items_as_the_whole_session():
  runner, session = await paused_session()
  everything = pending_items(session.events)
  [open_item] = everything
  items, late = pending_since_calls(session.events, [open_item.call_id])
  assert items == everything and late == {}
  assert pending_since_calls(session.events, ["no-such-call"]) is None


async def test_the_kept_ledger_reads_new_events_only_and_notices_a_replaced_session():
  runner, session = await paused_session()
  assert pending_of(session)[0] == pending_items(session.events)
  [item] = pending_items(session.events)
  await run_turn(runner, [types.Part(function_response=types.FunctionResponse(
      id=item.call_id, name="adk_request_confirmation", response={"confirmed": False}))])
  session = await session_of(runner, "session")
  assert pending_of(session)[0] == pending_items(session.events) == []

  # Same ids, different events (deleted and recreated): read again from the start.
  async def ask(node_input):
    yield RequestInput(interrupt_id="q", message="?")

  other = InMemoryRunner(Workflow(name="wf", edges=[("START", ask)]), app_name="app")
  await run_turn(other, "go")
  replaced = await session_of(other, "session")
  assert [i.call_id for i in pending_of(replaced)[0]] == ["q"]
