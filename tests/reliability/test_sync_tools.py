"""Synchronous tools run on worker threads: parallel branches overlap, a cancel returns while the tool
still blocks, and the tool's state writes land in its event in order. A tool that proves quick runs on
the loop's thread instead, until one call there is slow.

The tools block on threading primitives with a bounded timeout (never on sleeps); a tool run on
the event loop would time out instead of meeting its sibling, and the test would fail.
"""

from __future__ import annotations

import asyncio
import threading
import time
from contextlib import suppress

import pytest
from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.agents import ParallelAgent, RunConfig
from adk_nb.agents.run_config import ToolThreadPoolConfig
from adk_nb.testing import ScriptedModel, call, run_turn, session_of, summarize
from adk_nb.tools import ToolContext

BOUND = 10.0  # seconds a blocked tool waits before giving up (only reached when the test fails)


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


def _where_calls_run(delays: list[float], run_config=None) -> list[bool]:
  """Runs a sync tool once per delay (it sleeps that long); for each call, whether it ran on the loop's thread."""
  on_loop: list[bool] = []
  loop_thread: list[int] = []

  def lookup(item: int) -> dict:
    """Looks an item up."""
    on_loop.append(threading.get_ident() == loop_thread[0])
    if delays[item]:
      time.sleep(delays[item])
    return {"item": item}

  agent = Agent(name="a", model=ScriptedModel([call("lookup", item=i) for i in range(len(delays))] + ["done"]),
                tools=[lookup])

  async def go():
    loop_thread.append(threading.get_ident())
    runner = InMemoryRunner(agent, app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    message = types.Content(role="user", parts=[types.Part(text="go")])
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message, run_config=run_config):
      pass
  asyncio.run(go())
  return on_loop


@pytest.fixture
def roomy_thresholds(monkeypatch):
  """Quick is under 50 ms and slow over 100 ms here, so a busy CI machine cannot blur the two."""
  from adk_nb.tools import _threads
  monkeypatch.setattr(_threads, "QUICK_SECONDS", 0.05)
  monkeypatch.setattr(_threads, "SLOW_SECONDS", 0.1)


def test_a_sync_tool_that_proves_quick_runs_on_the_loops_thread_and_a_slow_call_sends_it_back_for_good(
    roomy_thresholds):
  # Three quick calls on threads, then on the loop; a slow call there (0.3 s) ends that for good.
  assert _where_calls_run([0, 0, 0, 0, 0.3, 0, 0, 0, 0]) == [False, False, False, True, True, False, False, False,
                                                             False]


def test_a_sync_tool_that_blocks_now_and_then_stays_on_threads(roomy_thresholds):
  assert _where_calls_run([0, 0, 0.3, 0, 0, 0.3, 0]) == [False] * 7


def test_a_configured_tool_thread_pool_keeps_every_call_on_it(roomy_thresholds):
  config = RunConfig(tool_thread_pool_config=ToolThreadPoolConfig(max_workers=2))
  assert _where_calls_run([0] * 6, config) == [False] * 6


def test_a_quick_tool_that_runs_its_own_event_loop_keeps_working_on_threads(roomy_thresholds):
  async def fetch(item: int) -> int:
    return item * 2

  results = []

  def lookup(item: int) -> dict:
    """Looks an item up through an async client."""
    results.append(asyncio.run(fetch(item)))  # asyncio refuses this on a thread whose loop runs
    return {"item": item}

  agent = Agent(name="a", model=ScriptedModel([call("lookup", item=i) for i in range(6)] + ["done"]), tools=[lookup])

  async def go():
    runner = InMemoryRunner(agent, app_name="app")
    return await run_turn(runner, "go")
  events = asyncio.run(go())
  assert results == [0, 2, 4, 6, 8, 10]  # each call ran once, none failed
  answers = [r.response for e in events for r in e.get_function_responses()]
  assert answers == [{"item": i} for i in range(6)]
