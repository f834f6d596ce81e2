"""ADK 2.x Runner surface: Runner(node=...), InMemoryRunner(node=...), yield_user_message, abort_signal,
run_config.custom_metadata on the user's event."""

from __future__ import annotations

import asyncio

import pytest
from google.genai import types

import adk_nb
from adk_nb.agents.llm_agent import LlmAgent
from adk_nb.apps import App
from adk_nb.agents.run_config import RunConfig
from adk_nb.events.event import Event
from adk_nb.models import ScriptedModel, call
from adk_nb.runners import InMemoryRunner, Runner
from adk_nb.sessions import InMemorySessionService
from adk_nb.testing import orphan_calls, summarize
from adk_nb.tools import FunctionTool
from adk_nb.workflow import BaseNode, Workflow


class Echo(BaseNode):

  async def _run_impl(self, *, ctx, node_input):
    yield f"Echo: {node_input.parts[0].text}"


def msg(text: str) -> types.Content:
  return types.Content(role="user", parts=[types.Part(text=text)])


async def run(runner: Runner, text: str, session_id: str = "s", **kwargs) -> list[Event]:
  if await runner.session_service.get_session(app_name=runner.app_name, user_id="u", session_id=session_id) is None:
    await runner.session_service.create_session(app_name=runner.app_name, user_id="u", session_id=session_id)
  return [e async for e in runner.run_async(user_id="u", session_id=session_id, new_message=msg(text), **kwargs)]


def test_event_is_exported_at_the_top_like_google_adk():
  from adk_nb import Event as TopEvent

  assert TopEvent is Event
  assert "Event" in adk_nb.__all__


async def test_runner_runs_a_bare_node_named_after_it():
  runner = Runner(node=Echo(name="echo"), session_service=InMemorySessionService())
  assert runner.app_name == "echo"
  events = await run(runner, "hi")
  outputs = [(e.author, e.output) for e in events if e.output is not None]
  assert outputs == [("echo", "Echo: hi")]


async def test_a_bare_node_runs_again_with_the_answer_when_resumed_as_in_google_adk():
  from adk_nb.events import RequestInput

  class Ask(BaseNode):  # rerun_on_resume is False: as the Runner's root it reruns all the same

    async def _run_impl(self, *, ctx, node_input):
      if "q" in ctx.resume_inputs:
        yield f"answered {ctx.resume_inputs['q']['value']}"
        return
      yield RequestInput(interrupt_id="q", message="Value?")

  runner = Runner(node=Ask(name="ask"), session_service=InMemorySessionService())
  await run(runner, "go")
  answer = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
      id="q", name="adk_request_input", response={"value": 42}))])
  events = [e async for e in runner.run_async(user_id="u", session_id="s", new_message=answer)]
  assert [e.output for e in events if e.output is not None][0] == "answered 42"


async def test_a_resumed_node_sees_the_invocations_first_message_as_its_user_content():
  from adk_nb.events import RequestInput

  seen = []

  class Ask(BaseNode):

    async def _run_impl(self, *, ctx, node_input):
      seen.append(ctx.get_invocation_context().user_content.parts[0].text)
      if "q" not in ctx.resume_inputs:
        yield RequestInput(interrupt_id="q", message="Value?")
        return
      yield "done"

  runner = Runner(node=Ask(name="ask"), session_service=InMemorySessionService())
  await run(runner, "remember me")
  answer = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
      id="q", name="adk_request_input", response={"value": 1}))])
  [e async for e in runner.run_async(user_id="u", session_id="s", new_message=answer)]
  assert seen == ["remember me", "remember me"]


async def test_runner_runs_a_workflow_and_an_agent_given_as_node():
  def upper(node_input: str) -> str:
    return node_input.upper()

  runner = Runner(app_name="t", node=Workflow(name="wf", edges=[("START", upper)]),
                  session_service=InMemorySessionService())
  events = await run(runner, "hi")
  assert [(e.output, e.node_info.path) for e in events if e.output == "HI"] == [("HI", "wf@1/upper@1")]

  agent = LlmAgent(name="helper", model=ScriptedModel(["Hello there."]))
  runner = InMemoryRunner(node=agent)
  assert runner.agent is agent
  assert summarize(await run(runner, "hi")) == [("helper", "text", "Hello there.")]


@pytest.mark.parametrize("given", [{"agent": "agent", "node": "node"}, {"app": "app", "node": "node"}, {}])
def test_runner_takes_exactly_one_root(given):
  agent = LlmAgent(name="a", model=ScriptedModel([]))
  values = {"agent": agent, "node": Echo(name="echo"), "app": App(name="a", root_agent=agent)}
  with pytest.raises(ValueError, match="Pass exactly one to Runner"):
    Runner(app_name="t", session_service=InMemorySessionService(), **{k: values[v] for k, v in given.items()})


def test_runner_refuses_a_value_that_is_not_a_node():
  with pytest.raises(TypeError, match="takes a node"):
    Runner(node=42, app_name="t", session_service=InMemorySessionService())


async def test_yield_user_message_yields_the_committed_user_event_first():
  runner = Runner(node=Echo(name="echo"), session_service=InMemorySessionService())
  default = await run(runner, "one")
  assert [e.author for e in default if e.author == "user"] == []
  events = await run(runner, "two", yield_user_message=True)
  assert events[0].author == "user" and events[0].content.parts[0].text == "two"
  session = await runner.session_service.get_session(app_name="echo", user_id="u", session_id="s")
  assert events[0].id in [e.id for e in session.events]


async def test_run_config_custom_metadata_stamps_the_user_event():
  runner = Runner(node=Echo(name="echo"), session_service=InMemorySessionService())
  await run(runner, "hi", run_config=RunConfig(custom_metadata={"turn_id": "t-1"}))
  session = await runner.session_service.get_session(app_name="echo", user_id="u", session_id="s")
  user = next(e for e in session.events if e.author == "user")
  assert user.custom_metadata == {"turn_id": "t-1"}


async def test_abort_signal_stops_a_waiting_tool_and_seals_its_call():
  started, signal = asyncio.Event(), asyncio.Event()
  ran = []

  async def slow_lookup(q: str) -> str:
    """Looks something up slowly."""
    ran.append(q)
    started.set()
    await asyncio.Event().wait()  # never returns by itself
    return "never"

  model = ScriptedModel([call("slow_lookup", q="x"), "not reached"])
  runner = InMemoryRunner(LlmAgent(name="root", model=model, tools=[FunctionTool(slow_lookup)]), app_name="t")
  await runner.session_service.create_session(app_name="t", user_id="u", session_id="s")

  async def consume():
    return [e async for e in runner.run_async(user_id="u", session_id="s", new_message=msg("go"),
                                              abort_signal=signal)]

  task = asyncio.ensure_future(consume())
  await started.wait()
  signal.set()
  events = await task
  assert ran == ["x"]  # the tool ran once and was not run again
  last = events[-1]
  assert last.error_code == "INVOCATION_ABORTED"
  assert [r.name for r in last.get_function_responses()] == ["slow_lookup"]
  session = await runner.session_service.get_session(app_name="t", user_id="u", session_id="s")
  assert session.events[-1].id == last.id
  assert orphan_calls([e.content for e in session.events if e.content]) == []


async def test_abort_signal_without_open_calls_records_one_abort_event():
  signal = asyncio.Event()

  class Stops(BaseNode):

    async def _run_impl(self, *, ctx, node_input):
      yield Event(state={"step": 1})
      signal.set()
      yield "not reached"

  runner = Runner(node=Stops(name="stops"), session_service=InMemorySessionService())
  events = await run(runner, "go", abort_signal=signal)
  assert "not reached" not in [e.output for e in events]
  assert events[-1].error_code == "INVOCATION_ABORTED" and events[-1].author == "stops"
  session = await runner.session_service.get_session(app_name="stops", user_id="u", session_id="s")
  assert session.state["step"] == 1


async def test_abort_signal_never_set_changes_nothing():
  runner = Runner(node=Echo(name="echo"), session_service=InMemorySessionService())
  events = await run(runner, "hi", abort_signal=asyncio.Event())
  assert [e.output for e in events if e.output is not None] == ["Echo: hi"]
  assert not any(e.error_code for e in events)


async def test_abort_seals_calls_never_answered_but_never_a_pending_approval():
  from adk_nb._abort import seal_aborted
  from adk_nb.testing import pending, run_turn, session_of

  def refund(order_id: str) -> dict:
    """Refunds an order."""
    return {"ok": order_id}

  model = ScriptedModel([call("refund", order_id="A")])
  runner = InMemoryRunner(LlmAgent(name="root", model=model,
                                   tools=[FunctionTool(refund, require_confirmation=True)]), app_name="t")
  await run_turn(runner, "refund A")
  [item] = await pending(runner)
  session = await session_of(runner)
  sealed = seal_aborted(session, item.invocation_id, "root", None)
  # nothing of that invocation is left unanswered but the approval, which stays pending: one marker
  assert [(e.error_code, e.content) for e in sealed] == [("INVOCATION_ABORTED", None)]
  assert [i.call_id for i in await pending(runner)] == [item.call_id]
