"""Checkpoints of custom resumable agents: google-adk's BaseAgentState API on adk_nb."""

import pytest
from google.genai import types

from adk_nb.agents.base_agent import BaseAgent, BaseAgentState
from adk_nb.agents.invocation_context import InvocationContext
from adk_nb.agents.loop_agent import LoopAgentState
from adk_nb.agents.sequential_agent import SequentialAgentState
from adk_nb.events import Event, EventActions
from adk_nb.runners import InMemoryRunner
from adk_nb.sessions import InMemorySessionService
from adk_nb.testing import run_turn


class StepState(BaseAgentState):
  step: int = 0


class Stepper(BaseAgent):
  """Does two steps, checkpointing after each, and marks itself finished."""

  async def _run_async_impl(self, ctx):
    saved = self._load_agent_state(ctx, StepState)
    for step in range((saved.step if saved else 0) + 1, 3):
      yield self._new_event(ctx, content=types.Content(role="model", parts=[types.Part(text=f"step {step}")]))
      ctx.set_agent_state(self.name, agent_state=StepState(step=step))
      yield self._create_agent_state_event(ctx)
    ctx.set_agent_state(self.name, end_of_agent=True)
    yield self._create_agent_state_event(ctx)


def _context(agent, session, *, resumable=True, invocation_id="inv-1"):
  return InvocationContext(session_service=InMemorySessionService(), invocation_id=invocation_id, agent=agent, session=session,
                           is_resumable=resumable)


def test_state_classes_have_adks_fields_and_reject_unknown_ones():
  assert LoopAgentState(current_sub_agent="b", times_looped=2).model_dump() == {
      "current_sub_agent": "b", "times_looped": 2}
  assert SequentialAgentState().model_dump() == {"current_sub_agent": ""}
  with pytest.raises(ValueError):
    SequentialAgentState(index=1)


async def test_custom_agent_checkpoints_are_committed_with_the_session():
  runner = InMemoryRunner(Stepper(name="stepper"), app_name="app")
  events = await run_turn(runner, "go")
  states = [(e.actions.agent_state, e.actions.end_of_agent) for e in events[1:] if not e.content]
  assert states == [({"step": 1}, None), ({"step": 2}, None), (None, True)]
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert [e.actions.agent_state for e in session.events if e.actions.agent_state] == [{"step": 1}, {"step": 2}]


async def test_populate_rebuilds_checkpoints_of_the_current_invocation_only():
  runner = InMemoryRunner(Stepper(name="stepper"), app_name="app")
  session = await runner.session_service.create_session(app_name="app", user_id="u")
  agent = runner.agent
  session.events.extend([
      Event(invocation_id="old", author="stepper", actions=EventActions(agent_state={"step": 9})),
      Event(invocation_id="inv-1", author="user", content=types.Content(role="user", parts=[types.Part(text="hi")])),
      Event(invocation_id="inv-1", author="stepper", actions=EventActions(agent_state={"step": 1})),
      Event(invocation_id="inv-1", author="helper", content=types.Content(role="model", parts=[types.Part(text="x")])),
      Event(invocation_id="inv-1", author="done", actions=EventActions(end_of_agent=True)),
  ])
  ctx = _context(agent, session)
  ctx.populate_invocation_agent_states()
  assert ctx.agent_states == {"stepper": {"step": 1}, "helper": {}}
  assert ctx.end_of_agents == {"stepper": False, "helper": False, "done": True}
  assert agent._load_agent_state(ctx, StepState) == StepState(step=1)

  not_resumable = _context(agent, session, resumable=False)
  not_resumable.populate_invocation_agent_states()
  assert not_resumable.agent_states == {}


async def test_set_agent_state_end_and_reset():
  runner = InMemoryRunner(Stepper(name="stepper"), app_name="app")
  session = await runner.session_service.create_session(app_name="app", user_id="u")
  ctx = _context(runner.agent, session)
  ctx.set_agent_state("stepper", agent_state=StepState(step=2))
  assert (ctx.agent_states, ctx.end_of_agents) == ({"stepper": {"step": 2}}, {"stepper": False})
  ctx.set_agent_state("stepper", end_of_agent=True)
  assert (ctx.agent_states, ctx.end_of_agents) == ({}, {"stepper": True})
  ctx.set_agent_state("stepper")
  assert (ctx.agent_states, ctx.end_of_agents) == ({}, {})
  assert runner.agent._load_agent_state(ctx, StepState) is None


async def test_should_pause_invocation_on_long_running_calls_and_input_requests():
  runner = InMemoryRunner(Stepper(name="stepper"), app_name="app")
  session = await runner.session_service.create_session(app_name="app", user_id="u")
  ctx = _context(runner.agent, session)

  def calls(*names_ids, long_running=None):
    parts = [types.Part(function_call=types.FunctionCall(name=n, id=i, args={})) for n, i in names_ids]
    return Event(invocation_id="inv-1", author="stepper", content=types.Content(role="model", parts=parts),
                 long_running_tool_ids=long_running)

  assert ctx.should_pause_invocation(calls(("lookup", "c1"))) is False
  assert ctx.should_pause_invocation(calls(("lookup", "c1"), ("ticket", "c2"), long_running={"c2"})) is True
  assert ctx.should_pause_invocation(calls(("adk_request_input", "c3"))) is True
  assert ctx.should_pause_invocation(Event(invocation_id="inv-1", author="stepper")) is False


def test_a_context_built_with_the_apps_resumability_config_is_resumable_and_filters_its_events():
  from adk_nb.apps import ResumabilityConfig
  from adk_nb.sessions import Session

  def event(inv, branch, author="a"):
    return Event(invocation_id=inv, author=author, branch=branch)

  mine, sibling, older = event("inv-1", "root.a"), event("inv-1", "root.b"), event("inv-0", "root.a")
  session = Session(id="s", app_name="app", user_id="u", events=[mine, sibling, older])
  ctx = InvocationContext(session_service=InMemorySessionService(), invocation_id="inv-1", agent=Stepper(name="a"),
                          session=session, branch="root.a",
                          resumability_config=ResumabilityConfig(is_resumable=True))
  assert ctx.is_resumable
  assert ctx._get_events(current_invocation=True, current_branch=True) == [mine]
  assert ctx._get_events(current_branch=True) == [mine, older]
  plain = ctx.model_copy(update={"resumability_config": ResumabilityConfig(is_resumable=False)})
  assert InvocationContext(session_service=InMemorySessionService(), invocation_id="i", agent=Stepper(name="a"),
                           session=session, resumability_config=plain.resumability_config).is_resumable is False


async def test_workflow_agents_continue_from_a_state_given_through_adks_api():
  from adk_nb.agents import LoopAgent, SequentialAgent
  from adk_nb.apps import ResumabilityConfig

  class Hello(BaseAgent):
    async def _run_async_impl(self, ctx):
      yield self._new_event(ctx, content=types.Content(role="model", parts=[types.Part(text=self.name)]))

  async def run(agent, state):
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u")
    ctx = InvocationContext(session_service=service, invocation_id="inv", agent=agent, session=session,
                            resumability_config=ResumabilityConfig(is_resumable=True))
    ctx.agent_states[agent.name] = state.model_dump(mode="json")
    return [(e.author, e.content.parts[0].text if e.content else "end" if e.actions.end_of_agent else "state")
            async for e in agent.run_async(ctx)]

  seq = SequentialAgent(name="seq", sub_agents=[Hello(name="one"), Hello(name="two")])
  assert await run(seq, SequentialAgentState(current_sub_agent="two")) == [("two", "two"), ("seq", "end")]
  loop = LoopAgent(name="loop", max_iterations=2, sub_agents=[Hello(name="a"), Hello(name="b")])
  assert await run(loop, LoopAgentState(current_sub_agent="b", times_looped=1)) == [("b", "b"), ("loop", "end")]
