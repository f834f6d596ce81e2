"""Regression tests from the core review: pause scoping, invocation limits, resume edge cases."""

import asyncio
import functools

import pytest
from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.agents import LoopAgent, ParallelAgent, SequentialAgent
from adk_nb.agents.run_config import RunConfig
from adk_nb.pending import answer_message, confirmation_response, pending_items, tool_response
from adk_nb.testing import ScriptedModel, call, run_turn
from adk_nb.tools import FunctionTool, LongRunningFunctionTool


async def session_of(runner, sid="session"):
  return await runner.session_service.get_session(app_name=runner.app_name, user_id="user", session_id=sid)


async def pending(runner, sid="session"):
  return pending_items((await session_of(runner, sid)).events)


def confirm_tool(log, name="refund"):
  def refund(order_id: str) -> dict:
    """Refunds an order."""
    log.append(order_id)
    return {"refunded": order_id}
  refund.__name__ = name
  return FunctionTool(refund, require_confirmation=True)


async def test_loop_without_max_iterations_stops_when_llm_call_limit_is_hit():
  """RunConfig(max_llm_calls) is the safety net for a runaway LoopAgent; it must end the run."""
  def reply(req):
    return "again"
  worker = Agent(name="worker", model=ScriptedModel(reply))
  loop = LoopAgent(name="loop", sub_agents=[worker])
  runner = InMemoryRunner(loop, app_name="app", auto_create_session=True)

  events = []
  async for event in runner.run_async(user_id="user", session_id="s1", new_message=types.Content(
      role="user", parts=[types.Part(text="go")]), run_config=RunConfig(max_llm_calls=3)):
    events.append(event)
    if len(events) > 50:
      break  # the loop never ends by itself
  assert len(events) <= 50, "LoopAgent kept iterating after the llm-call limit"
  assert sum(1 for e in events if e.error_code == "LLM_CALLS_LIMIT_EXCEEDED") == 1


async def test_parallel_sibling_is_not_cut_short_when_another_branch_pauses():
  """'If a branch pauses, the others run to completion' (ParallelAgent docstring)."""
  log = []
  slow_done = []

  async def lookup(q: str) -> dict:
    """Looks something up."""
    await asyncio.sleep(0.05)
    slow_done.append(q)
    return {"answer": 42}

  a = Agent(name="a", model=ScriptedModel([call("refund", order_id="A1"), "A done"]), tools=[confirm_tool(log)])
  b_model = ScriptedModel([call("lookup", q="x"), "B final answer"])
  b = Agent(name="b", model=b_model, tools=[lookup], output_key="b_out")
  par = ParallelAgent(name="par", sub_agents=[a, b])
  runner = InMemoryRunner(par, app_name="app")
  events = await run_turn(runner, "go")
  assert slow_done == ["x"]
  # b must finish its own turn (second model call) in the first run, or be resumed later.
  texts = [e.content.parts[0].text for e in events if e.author == "b" and e.content and e.content.parts[0].text]
  [item] = await pending(runner)
  resumed = await run_turn(runner, answer_message([confirmation_response(item, True)]))
  texts += [e.content.parts[0].text for e in resumed if e.author == "b" and e.content and e.content.parts[0].text]
  assert texts == ["B final answer"]
  assert (await session_of(runner)).state.get("b_out") == "B final answer"


async def test_parallel_sequence_branch_is_not_cut_short_when_another_branch_pauses():
  log = []

  async def slow(q: str) -> dict:
    """Slow step."""
    await asyncio.sleep(0.05)
    return {"ok": True}

  a = Agent(name="a", model=ScriptedModel([call("refund", order_id="A1"), "A done"]), tools=[confirm_tool(log)])
  b1 = Agent(name="b1", model=ScriptedModel([call("slow", q="x"), "b1 done"]), tools=[slow])
  b2 = Agent(name="b2", model=ScriptedModel(["b2 done"]))
  par = ParallelAgent(name="par", sub_agents=[a, SequentialAgent(name="bseq", sub_agents=[b1, b2])])
  runner = InMemoryRunner(par, app_name="app")
  events = await run_turn(runner, "go")
  [item] = await pending(runner)
  resumed = await run_turn(runner, answer_message([confirmation_response(item, True)]))
  authors = [e.author for e in events + resumed if e.content and e.content.parts and e.content.parts[0].text]
  assert "b2" in authors, authors


async def test_answers_to_two_parallel_branches_in_two_messages():
  log = []
  a = Agent(name="a", model=ScriptedModel([call("refund", order_id="1"), "a done"]), tools=[confirm_tool(log)])
  b = Agent(name="b", model=ScriptedModel([call("refund", order_id="2"), "b done"]), tools=[confirm_tool(log)])
  after = Agent(name="after", model=ScriptedModel(["after done"]))
  runner = InMemoryRunner(SequentialAgent(name="seq", sub_agents=[ParallelAgent(name="par", sub_agents=[a, b]), after]),
                          app_name="app")
  await run_turn(runner, "go")
  ia, ib = await pending(runner)
  r1 = await run_turn(runner, answer_message([confirmation_response(ia, True)]))
  assert len(await pending(runner)) == 1
  r2 = await run_turn(runner, answer_message([confirmation_response(ib, True)]))
  texts = [e.content.parts[0].text for e in r1 + r2 if e.author != "user" and e.content and e.content.parts[0].text]
  assert sorted(texts) == ["a done", "after done", "b done"], texts
  assert sorted(log) == ["1", "2"]
