"""Runs cancelled while a tool runs: the model is told the outcome is unknown, nothing runs twice,
and no model ever receives a function call without its answer.

Each trial cancels the task driving the run at the moment the tool has started (the tool
signals it; no sleeps), then either retries the same answer or sends a new message. The
trials are seeded, so a failure names a reproducible trial.
"""

from __future__ import annotations

import asyncio
import random
from contextlib import suppress

from adk_nb import Agent, InMemoryRunner
from adk_nb.agents import ParallelAgent
from adk_nb.events.protocol import interrupted_ids
from adk_nb.pending import confirmation_response
from adk_nb.testing import ScriptedModel, answer, call, orphan_calls, pending, run_turn, session_of, summarize
from adk_nb.tools import AgentTool, FunctionTool

TRIALS = 24
SEED = 15


class Refunds:
  """A refund tool that can be held mid-run: it records each start, then waits until released."""

  def __init__(self) -> None:
    self.starts: list[str] = []
    self.started = asyncio.Event()
    self.release = asyncio.Event()

  def tool(self, require_confirmation: bool) -> FunctionTool:
    async def refund(order_id: str, amount: float) -> dict:
      """Refunds an order."""
      self.starts.append(order_id)
      self.started.set()
      await self.release.wait()
      return {"refunded": amount}
    return FunctionTool(refund, require_confirmation=require_confirmation)


def replies(first_call):
  """A model that makes `first_call` when asked to refund, and otherwise acknowledges what it got."""
  def reply(request):
    last = request.contents[-1].parts[-1]
    if last.text == "refund A":
      return first_call
    return "noted"
  return reply


def build(kind: str, refunds: Refunds):
  """(runner, models) for one shape: an approved tool, one inside AgentTool, one in a ParallelAgent
  branch, or a plain tool."""
  if kind == "agent_tool":
    inner_model = ScriptedModel(lambda request: call("refund", order_id="A", amount=500.0)
                                if request.contents[-1].parts[-1].text else "child done")
    child = Agent(name="refunder", description="Issues refunds.", model=inner_model,
                  tools=[refunds.tool(require_confirmation=True)])
    outer_model = ScriptedModel(replies(call("refunder", request="refund A")))
    root = Agent(name="desk", model=outer_model, tools=[AgentTool(child)])
    return InMemoryRunner(root, app_name="app"), [outer_model, inner_model]
  model = ScriptedModel(replies(call("refund", order_id="A", amount=500.0)))
  desk = Agent(name="desk", model=model, tools=[refunds.tool(require_confirmation=kind != "plain")])
  if kind == "parallel":  # the approved tool runs in one branch of a workflow agent
    other = Agent(name="other", model=ScriptedModel(lambda request: "other done"))
    return InMemoryRunner(ParallelAgent(name="fan", sub_agents=[desk, other]), app_name="app"), [model]
  return InMemoryRunner(desk, app_name="app"), [model]


async def cancelled_while_running(coro, refunds: Refunds) -> None:
  """Runs `coro` until the tool has started, then cancels it (a kernel interrupt, a closed client)."""
  task = asyncio.ensure_future(coro)
  started = asyncio.ensure_future(refunds.started.wait())
  await asyncio.wait({task, started}, return_when=asyncio.FIRST_COMPLETED)
  assert refunds.started.is_set(), "the run ended before its tool started"
  task.cancel()
  with suppress(asyncio.CancelledError):
    await task


async def trial(kind: str, then: str) -> dict:
  """One cancelled run; returns what it measured."""
  refunds = Refunds()
  runner, models = build(kind, refunds)
  if kind == "plain":
    await cancelled_while_running(run_turn(runner, "refund A"), refunds)
  else:
    await run_turn(runner, "refund A")
    [item] = await pending(runner)
    await cancelled_while_running(answer(runner, [confirmation_response(item, True)]), refunds)
    [again] = await pending(runner)
    assert again.call_id == item.call_id and again.may_have_run, kind
  refunds.release.set()  # from now on a tool that runs completes
  if then == "retry":
    events = await answer(runner, [confirmation_response(again, True)])
  else:
    events = await run_turn(runner, "what happened?")
  session = await session_of(runner)
  told = [r.response.get("error", "") for e in session.events for r in e.get_function_responses()
          if r.id in interrupted_ids(e)]
  return {
      "double_executions": max(0, len(refunds.starts) - 1),
      "orphans_sent": sum(len(orphan_calls(r)) for m in models for r in m.requests),
      "told_may_have_run": sum("may have run" in t for t in told),
      "pending_after": len(await pending(runner)),
      "desk_said": [step for step in summarize(events) if step[0] == "desk" and step[1] == "text"],
  }


async def test_cancelled_tool_runs_at_most_once_and_no_orphan_call_reaches_a_model():
  rng = random.Random(SEED)
  shapes = [("approved", "retry"), ("approved", "new_message"), ("agent_tool", "retry"),
            ("agent_tool", "new_message"), ("parallel", "retry"), ("parallel", "new_message"),
            ("plain", "new_message")]
  totals = {"double_executions": 0, "orphans_sent": 0}
  for number in range(TRIALS):
    kind, then = shapes[number % len(shapes)] if number < len(shapes) else rng.choice(shapes)
    result = await trial(kind, then)
    where = f"trial {number} ({kind}, {then}, seed {SEED}): {result}"
    totals["double_executions"] += result["double_executions"]
    totals["orphans_sent"] += result["orphans_sent"]
    assert result["told_may_have_run"] == 1, where
    assert result["pending_after"] == 0, where
    assert result["desk_said"] == [("desk", "text", "noted")], where
  assert totals == {"double_executions": 0, "orphans_sent": 0}


async def test_a_retry_records_the_outcome_as_unknown_and_flags_a_repeated_request():
  """After "may have run", the model asks for the same refund again: the person sees it may have run."""
  refunds = Refunds()
  script = [call("refund", order_id="A", amount=500.0), call("refund", order_id="A", amount=500.0)]
  model = ScriptedModel(script)
  runner = InMemoryRunner(Agent(name="desk", model=model, tools=[refunds.tool(require_confirmation=True)]),
                          app_name="app")
  await run_turn(runner, "refund A")
  [item] = await pending(runner)
  await cancelled_while_running(answer(runner, [confirmation_response(item, True)]), refunds)
  events = await answer(runner, [confirmation_response(item, True)])
  assert summarize(events) == [
      ("user", "result", "adk_request_confirmation"),
      ("desk", "interrupted", "refund"),
      ("desk", "call", "refund"),
      ("desk", "confirm", "refund"),
      ("desk", "needs_approval", "refund"),
  ]
  [repeat] = await pending(runner)
  assert repeat.call_id != item.call_id and repeat.may_have_run
  assert refunds.starts == ["A"]


async def test_a_call_still_waiting_for_approval_is_answered_in_a_new_turns_request():
  """A person sends a new message instead of answering: the model is told the call waits, not left hanging."""
  model = ScriptedModel([call("refund", order_id="A", amount=500.0), "ok, waiting"])
  runner = InMemoryRunner(Agent(name="desk", model=model, tools=[Refunds().tool(require_confirmation=True)]),
                          app_name="app")
  await run_turn(runner, "refund A")
  await run_turn(runner, "anything else?")
  assert orphan_calls(model.requests[1]) == []
  [waiting] = [p.function_response.response["error"] for c in model.requests[1].contents for p in c.parts
               if p.function_response is not None]
  assert "waiting for a person's approval" in waiting
  assert len(await pending(runner)) == 1  # still answerable


async def test_the_next_turn_first_records_the_interrupted_call_then_the_model_reads_it():
  refunds = Refunds()
  runner, [model] = build("plain", refunds)
  await cancelled_while_running(run_turn(runner, "refund A"), refunds)
  events = await run_turn(runner, "what happened?")
  assert summarize(events) == [("desk", "interrupted", "refund"), ("user", "text", "what happened?"),
                               ("desk", "text", "noted")]
  [sent] = [p.function_response.response["error"] for c in model.requests[-1].contents for p in c.parts
            if p.function_response is not None]
  assert sent.startswith("Interrupted: `refund` did not return") and "may have run" in sent
  assert refunds.starts == ["A"]
