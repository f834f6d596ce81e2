"""Pauses inside `ctx.run_node` children, and FunctionNode(require_confirmation=...): both pause the
turn as `adk_request_input` and resume the same invocation without running finished work again."""

import asyncio

import pytest
from google.genai import types

from adk_nb import InMemoryRunner, Runner, Workflow
from adk_nb.events import RequestInput
from adk_nb.pending import pending_items
from adk_nb.testing import run_turn
from adk_nb.workflow import node


def answer(call_id, response, name="adk_request_input"):
  return types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
      id=call_id, name=name, response=response))])


def outputs(events):
  return [(e.node_info.path, e.output) for e in events if e.output is not None]


def requests(events):
  return [(e.node_info.path, c.id) for e in events for c in e.get_function_calls()]


async def pending(runner, session_id="session"):
  session = await runner.session_service.get_session(app_name=runner.app_name, user_id="user",
                                                     session_id=session_id)
  return pending_items(session.events)


def orchestrated(runs):
  def double(node_input):
    runs.append(("double", node_input))
    return node_input * 2

  async def ask(node_input):
    runs.append(("ask", node_input))
    yield RequestInput(interrupt_id="q1", message=f"Use {node_input}?")

  async def orch(ctx, node_input):
    runs.append(("orch", dict(ctx.resume_inputs)))
    a = await ctx.run_node(double, node_input=3)
    b = await ctx.run_node(ask, node_input=a)
    c = await ctx.run_node(double, node_input=10)
    return [a, b, c]

  def after(node_input):
    runs.append(("after", node_input))
    return "done"

  return Workflow(name="wf", edges=[("START", orch, after)])


async def test_a_child_that_asks_pauses_the_turn_and_the_answer_resumes_the_caller_without_rerunning_finished_children():
  runs = []
  runner = InMemoryRunner(orchestrated(runs), app_name="app")
  first = await run_turn(runner, "go")
  assert requests(first) == [("wf@1/orch@1/ask@1", "q1")]
  assert outputs(first) == [("wf@1/orch@1/double@1", 6)]
  assert runs == [("orch", {}), ("double", 3), ("ask", 6)]  # the caller stopped at the pause
  [item] = await pending(runner)
  assert item.call_id == "q1" and item.invocation_id == first[0].invocation_id

  runs.clear()
  second = await run_turn(runner, answer("q1", {"v": 7}))
  # The caller runs again; double@1 is replayed (not run, no event), ask@1 completes with the answer.
  assert runs == [("orch", {"q1": {"v": 7}}), ("double", 10), ("after", [6, {"v": 7}, 20])]
  assert outputs(second) == [("wf@1/orch@1/double@2", 20), ("wf@1/orch@1", [6, {"v": 7}, 20]),
                             ("wf@1/after@1", "done")]
  assert {e.invocation_id for e in second} == {first[0].invocation_id}
  assert await pending(runner) == []


async def test_two_children_gathered_both_ask_in_one_turn_and_each_answer_is_kept():
  runs = []

  async def ask(ctx, node_input):
    runs.append(node_input)
    yield RequestInput(interrupt_id=f"q-{node_input}", message=f"{node_input}?")

  async def orch(ctx, node_input):
    return list(await asyncio.gather(ctx.run_node(ask, node_input="a"), ctx.run_node(ask, node_input="b")))

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", orch)]), app_name="app")
  first = await run_turn(runner, "go")
  assert sorted(requests(first)) == [("wf@1/orch@1/ask@1", "q-a"), ("wf@1/orch@1/ask@2", "q-b")]
  assert sorted(i.call_id for i in await pending(runner)) == ["q-a", "q-b"]

  second = await run_turn(runner, answer("q-b", {"b": 2}))
  assert requests(second) == [] and outputs(second) == []  # still waiting for q-a: nothing asked again
  assert [i.call_id for i in await pending(runner)] == ["q-a"]

  third = await run_turn(runner, answer("q-a", {"a": 1}))
  assert outputs(third) == [("wf@1/orch@1", [{"a": 1}, {"b": 2}])]
  assert sorted(runs) == ["a", "b"]  # each child asked once and was never run again
  assert {e.invocation_id for e in third} == {first[0].invocation_id}


async def test_a_rerun_on_resume_child_runs_again_with_its_resume_inputs():
  seen = []

  @node(rerun_on_resume=True)
  async def ask(ctx, node_input):
    seen.append((ctx.node_path, dict(ctx.resume_inputs)))
    if "name" not in ctx.resume_inputs:
      yield RequestInput(interrupt_id="name", message="Name?")
      return
    yield "hello " + ctx.resume_inputs["name"]["name"]

  async def orch(ctx, node_input):
    return await ctx.run_node(ask, use_as_output=False)

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", orch)]), app_name="app")
  await run_turn(runner, "go")
  events = await run_turn(runner, answer("name", {"name": "Ada"}))
  assert seen == [("wf@1/orch@1/ask@1", {}), ("wf@1/orch@1/ask@1", {"name": {"name": "Ada"}})]
  assert outputs(events) == [("wf@1/orch@1/ask@1", "hello Ada"), ("wf@1/orch@1", "hello Ada")]


async def test_a_pause_inside_a_workflow_run_as_a_child_resumes_inside_it():
  runs = []

  def before(node_input):
    runs.append("before")
    return "x"

  async def gate(node_input):
    runs.append("gate")
    yield RequestInput(interrupt_id="inner-q")

  def finish(node_input):
    runs.append("finish")
    return {"inner": node_input}

  inner = Workflow(name="inner", edges=[("START", before, gate, finish)])

  async def orch(ctx, node_input):
    runs.append("orch")
    return await ctx.run_node(inner, node_input="in")

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", orch)]), app_name="app")
  first = await run_turn(runner, "go")
  request = next(e for e in first if e.get_function_calls())
  assert (request.author, request.node_info.path) == ("inner", "wf@1/orch@1/inner@1/gate@1")
  events = await run_turn(runner, answer("inner-q", {"ok": 1}))
  assert runs == ["orch", "before", "gate", "orch", "finish"]
  assert outputs(events)[-1] == ("wf@1/orch@1", {"inner": {"ok": 1}})


async def test_a_tool_confirmation_inside_an_agent_run_as_a_child_runs_the_tool_once():
  from adk_nb.agents import LlmAgent
  from adk_nb.models import ScriptedModel
  from adk_nb.testing import call
  from adk_nb.tools import FunctionTool

  refunds = []

  def refund(amount: int) -> dict:
    refunds.append(amount)
    return {"refunded": amount}

  model = ScriptedModel([call("refund", amount=5), "Refunded 5."])
  clerk = LlmAgent(name="clerk", model=model, tools=[FunctionTool(refund, require_confirmation=True)])
  calls = []

  async def orch(ctx, node_input):
    calls.append("orch")
    reply = await ctx.run_node(clerk, node_input="refund 5")
    return f"clerk said: {reply}"

  def after(node_input):
    return node_input.upper()

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", orch, after)]), app_name="app")
  first = await run_turn(runner, "go")
  [item] = await pending(runner)
  assert (item.kind, item.tool, item.agent) == ("confirmation", "refund", "clerk")
  assert refunds == []
  events = await run_turn(runner, answer(item.call_id, {"confirmed": True}, name="adk_request_confirmation"))
  assert refunds == [5]
  assert outputs(events)[-2:] == [("wf@1/orch@1", "clerk said: Refunded 5."), ("wf@1/after@1", "CLERK SAID: REFUNDED 5.")]
  assert {e.invocation_id for e in events} == {first[0].invocation_id}
  assert len(model.requests) == 2  # the answered step was not sent to the model again
  model.assert_complete()


async def test_a_retried_caller_replays_the_children_its_failed_attempt_finished():
  from adk_nb.workflow import RetryConfig

  runs = []

  def child(node_input):
    runs.append(node_input)
    return node_input + 1

  @node(retry_config=RetryConfig(max_attempts=2, initial_delay=0, jitter=0))
  async def orch(ctx, node_input):
    first = await ctx.run_node(child, node_input=1)
    if ctx.attempt_count == 1:
      raise RuntimeError("flaky")
    return first

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", orch)]), app_name="app")
  events = await run_turn(runner, "go")
  assert runs == [1]
  assert outputs(events)[-1] == ("wf@1/orch@1", 2)


async def test_explicit_run_ids_name_the_child_and_numeric_ones_are_rejected():
  def child(node_input):
    return node_input

  async def orch(ctx, node_input):
    value = await ctx.run_node(child, node_input="v", run_id="first")
    await ctx.run_node(child, node_input="w", run_id="7")
    return value

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", orch)]), app_name="app")
  with pytest.raises(ValueError, match="Explicit run_id '7' for node .* must contain non-numeric characters"):
    await run_turn(runner, "go")
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert ("wf@1/orch@1/child@first", "v") in outputs(session.events)


async def test_a_dynamic_pause_survives_a_new_runner_on_a_database(tmp_path):
  from adk_nb.sessions import DatabaseSessionService

  url = f"sqlite:///{tmp_path / 'sessions.db'}"
  runs = []
  first_runner = Runner(agent=orchestrated(runs), app_name="app", session_service=DatabaseSessionService(url))
  await run_turn(first_runner, "go")
  await first_runner.close()
  runs_after = []
  second_runner = Runner(agent=orchestrated(runs_after), app_name="app", session_service=DatabaseSessionService(url))
  events = await run_turn(second_runner, answer("q1", {"v": 1}))
  assert ("double", 3) not in runs_after and ("ask", 6) not in runs_after
  assert outputs(events)[-1] == ("wf@1/after@1", "done")
  await second_runner.close()


async def test_a_child_that_waits_for_output_and_gave_none_runs_again_on_the_next_pass():
  calls = []

  def waiter(node_input):
    calls.append(node_input)
    return "ready" if len(calls) > 1 else None

  async def orch(ctx, node_input):
    from adk_nb.workflow import FunctionNode

    result = await ctx.run_node(FunctionNode(func=waiter, wait_for_output=True), node_input="x")
    if result is None:
      yield RequestInput(interrupt_id="retry", message="Try again?")
      return
    yield f"got {result}"

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", node(orch, rerun_on_resume=True))]), app_name="app")
  await run_turn(runner, "go")
  events = await run_turn(runner, answer("retry", {"ok": True}))
  assert calls == ["x", "x"]
  assert outputs(events)[-1] == ("wf@1/orch@1", "got ready")
