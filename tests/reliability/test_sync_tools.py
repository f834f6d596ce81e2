"""Synchronous tools run on worker threads: parallel branches overlap, a cancel returns while the tool
still blocks, and the tool's state writes land in its event in order. Every call of a sync tool runs on a
thread unless the tool is declared `FunctionTool(func, run_on_loop=True)`; nothing depends on how long
calls took, and no call is made twice.

The tools block on threading primitives with a bounded timeout (never on sleeps); a tool run on
the event loop would time out instead of meeting its sibling, and the test would fail.
"""

from __future__ import annotations

import asyncio
import threading
from contextlib import suppress

import pytest

from adk_nb import Agent, InMemoryRunner
from adk_nb.agents import ParallelAgent, RunConfig
from adk_nb.agents.run_config import ToolThreadPoolConfig
from adk_nb.testing import ScriptedModel, call, run_turn, session_of, summarize
from adk_nb.tools import FunctionTool, ToolContext

BOUND = 30.0  # seconds a blocked tool waits before giving up (only reached when the test fails)


async def test_sync_tools_of_parallel_branches_run_at_the_same_time():
  both_inside = threading.Barrier(2, timeout=BOUND)
  log: list[tuple[str, str]] = []

  def branch(name: str) -> Agent:
    def lookup(order_id: str) -> dict:
      """Looks an order up in a slow, blocking system."""
      log.append(("start", name))
      both_inside.wait()  # raises BrokenBarrierError unless the sibling's tool runs meanwhile
      log.append(("end", name))
      return {"order": order_id, "by": name}
    return Agent(name=name, model=ScriptedModel([call("lookup", order_id=name), f"{name} done"]), tools=[lookup])

  runner = InMemoryRunner(ParallelAgent(name="fan", sub_agents=[branch("a"), branch("b")]), app_name="app")
  events = await run_turn(runner, "look both up")
  assert [kind for kind, _ in log] == ["start", "start", "end", "end"]
  results = sorted(step for step in summarize(events) if step[1] == "result")
  assert results == [("a", "result", "lookup"), ("b", "result", "lookup")]
  assert sorted(e.text for e in events if e.text and e.author != "user") == ["a done", "b done"]


async def test_cancelling_a_run_returns_while_the_sync_tool_blocks_and_the_next_run_says_interrupted():
  started, release = threading.Event(), threading.Event()
  finished: list[str] = []

  def refund(order_id: str) -> dict:
    """Refunds an order through a blocking client."""
    started.set()
    release.wait(BOUND)
    finished.append(order_id)
    return {"refunded": order_id}

  model = ScriptedModel([call("refund", order_id="A"), "noted"])
  runner = InMemoryRunner(Agent(name="desk", model=model, tools=[refund]), app_name="app")
  task = asyncio.ensure_future(run_turn(runner, "refund A"))
  assert await asyncio.get_running_loop().run_in_executor(None, started.wait, BOUND)
  task.cancel()
  with suppress(asyncio.CancelledError):
    await task
  assert task.cancelled() and finished == []  # control came back while the tool still blocks
  release.set()
  events = await run_turn(runner, "what happened?")
  assert summarize(events) == [("desk", "interrupted", "refund"), ("user", "text", "what happened?"),
                               ("desk", "text", "noted")]
  [sent] = [p.function_response.response["error"] for c in model.requests[-1].contents for p in c.parts
            if p.function_response is not None]
  assert sent.startswith("Interrupted: `refund` did not return")
  session = await session_of(runner)
  assert not any(r.response.get("refunded") for e in session.events for r in e.get_function_responses())


async def test_state_writes_from_the_thread_land_in_the_event_in_order_and_in_the_session():
  seen_on: list[str] = []

  def tally(tool_context: ToolContext) -> dict:
    """Counts visits."""
    seen_on.append(threading.current_thread().name)
    tool_context.state["visits"] = tool_context.state.get("visits", 0) + 1
    tool_context.state["last"] = "first"
    tool_context.state["last"] = "second"
    tool_context.state["user:seen"] = True
    return {"visits": tool_context.state["visits"], "last": tool_context.state["last"]}

  model = ScriptedModel([call("tally"), "counted"])
  runner = InMemoryRunner(Agent(name="desk", model=model, tools=[tally]), app_name="app")
  events = await run_turn(runner, "count", run_config=RunConfig(tool_thread_pool_config=ToolThreadPoolConfig(max_workers=2)))
  [answered] = [e for e in events if e.get_function_responses()]
  assert list(answered.actions.state_delta.items()) == [("visits", 1), ("last", "second"), ("user:seen", True)]
  assert answered.get_function_responses()[0].response == {"visits": 1, "last": "second"}
  assert seen_on[0].startswith("adk_nb_tool") and seen_on[0] != threading.current_thread().name
  session = await session_of(runner)
  assert {k: session.state[k] for k in ("visits", "last", "user:seen")} == {"visits": 1, "last": "second",
                                                                             "user:seen": True}


def _run_calls(tool, n: int, run_config=None) -> list:
  """Runs one turn in which the model calls `tool` n times (item=0..n-1); returns the events."""
  name = getattr(tool, "name", None) or tool.__name__
  agent = Agent(name="a", model=ScriptedModel([call(name, item=i) for i in range(n)] + ["done"]), tools=[tool])

  async def go():
    return await run_turn(InMemoryRunner(agent, app_name="app"), "go", run_config=run_config)
  return asyncio.run(go())


def _thread_recorder():
  """A sync tool that records, per call, whether it ran on the event loop's thread.

  `_run_calls` runs the loop with asyncio.run, so the loop's thread is the test's own."""
  on_loop: list[bool] = []
  test_thread = threading.get_ident()

  def lookup(item: int) -> dict:
    """Looks an item up."""
    on_loop.append(threading.get_ident() == test_thread)
    return {"item": item}
  return lookup, on_loop


def test_every_call_of_a_quick_sync_tool_runs_on_a_worker_thread():
  # Before, a tool whose first three calls were quick moved onto the loop's thread from the fourth.
  lookup, on_loop = _thread_recorder()
  _run_calls(lookup, 8)
  assert on_loop == [False] * 8


def test_a_configured_tool_thread_pool_runs_every_call():
  lookup, on_loop = _thread_recorder()
  _run_calls(lookup, 6, RunConfig(tool_thread_pool_config=ToolThreadPoolConfig(max_workers=2)))
  assert on_loop == [False] * 6


def test_a_tool_declared_run_on_loop_runs_every_call_on_the_loops_thread():
  lookup, on_loop = _thread_recorder()
  _run_calls(FunctionTool(lookup, run_on_loop=True), 5)
  assert on_loop == [True] * 5
  with pytest.raises(TypeError, match="run_on_loop=...\\) takes True or False"):
    FunctionTool(lookup, run_on_loop="yes")


def test_a_sync_tool_that_runs_its_own_event_loop_runs_each_call_once():
  # Before, once the tool had proved quick it was called on the loop's thread, asyncio refused its
  # asyncio.run, and the call was made again on a thread: what it did before asyncio ran twice.
  async def fetch(item: int) -> int:
    return item * 2

  charged: list[int] = []

  def charge(item: int) -> dict:
    """Charges an item through an async client."""
    charged.append(item)  # the side effect, before the tool reaches asyncio
    return {"item": item, "doubled": asyncio.run(fetch(item))}

  events = _run_calls(charge, 6)
  assert charged == [0, 1, 2, 3, 4, 5]
  answers = [r.response for e in events for r in e.get_function_responses()]
  assert answers == [{"item": i, "doubled": 2 * i} for i in range(6)]
