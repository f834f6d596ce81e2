"""NodeRunner on its own: one node run under an existing Context, its result on the returned Context."""

import pytest

from adk_nb.agents.context import Context
from adk_nb.agents.invocation_context import InvocationContext
from adk_nb.sessions import InMemorySessionService
from adk_nb.workflow import BaseNode, RetryConfig, Workflow
from adk_nb.workflow._node_runner import NodeRunner


class Shout(BaseNode):
  async def _run_impl(self, *, ctx, node_input):
    ctx.state["shouted"] = True
    yield str(node_input).upper()


class Broken(BaseNode):
  async def _run_impl(self, *, ctx, node_input):
    raise RuntimeError(f"attempt {ctx.attempt_count} failed")
    yield


async def parent_context(branch=None, node_path=""):
  service = InMemorySessionService()
  session = await service.create_session(app_name="app", user_id="user")
  ic = InvocationContext(session_service=service, invocation_id="inv-1", agent=Workflow(name="wf"),
                         session=session, branch=branch)
  return Context(ic, node_path=node_path), service, session


async def test_a_node_run_on_its_own_commits_its_events_and_returns_its_output():
  parent, service, session = await parent_context(branch="main", node_path="outer@1")
  ctx = await NodeRunner(node=Shout(name="shout"), parent_ctx=parent, run_id="7", use_sub_branch=True).run("hi")
  assert (ctx.output, ctx.interrupt_ids, ctx.error) == ("HI", set(), None)
  stored = (await service.get_session(app_name="app", user_id="user", session_id=session.id)).events
  [event] = stored
  assert (event.author, event.branch, event.node_info.path, event.output) == ("shout", "main.shout@7",
                                                                               "outer@1/shout@7", "HI")
  assert event.actions.state_delta == {"shouted": True}


async def test_a_failing_node_run_on_its_own_returns_the_error_after_its_retries():
  parent, service, session = await parent_context()
  parent.event_author = "wf"
  node = Broken(name="broken", retry_config=RetryConfig(max_attempts=2, initial_delay=0, jitter=0))
  ctx = await NodeRunner(node=node, parent_ctx=parent).run()
  assert isinstance(ctx.error, RuntimeError) and str(ctx.error) == "attempt 2 failed"
  stored = (await service.get_session(app_name="app", user_id="user", session_id=session.id)).events
  assert [(e.author, e.error_code, e.error_message) for e in stored] == [
      ("wf", "RuntimeError", "attempt 1 failed"), ("wf", "RuntimeError", "attempt 2 failed")]


async def test_a_node_runner_needs_a_parent_context():
  with pytest.raises(ValueError, match="needs the Context of the run it runs under"):
    NodeRunner(Shout(name="shout"))


class Quiet(BaseNode):
  async def _run_impl(self, *, ctx, node_input):
    ctx.state["scope"] = ctx.isolation_scope
    return
    yield


async def test_a_standalone_run_carries_an_earlier_runs_result_forward_as_google_adks():
  parent, _, _ = await parent_context(node_path="outer@1")
  ctx = await NodeRunner(node=Quiet(name="quiet"), parent_ctx=parent, prior_output="cached",
                         prior_interrupt_ids={"fc-old"}).run()
  assert (ctx.output, ctx.interrupt_ids) == ("cached", {"fc-old"})
  ctx = await NodeRunner(node=Shout(name="shout"), parent_ctx=parent, prior_output="cached").run("new")
  assert ctx.output == "NEW"  # the node's own output wins


async def test_a_standalone_run_in_an_isolation_scope_sees_it_and_stamps_its_events():
  parent, service, session = await parent_context(node_path="outer@1")
  ctx = await NodeRunner(node=Quiet(name="quiet"), parent_ctx=parent, override_isolation_scope="task:fc-9").run()
  assert ctx.isolation_scope == "task:fc-9"
  [event] = (await service.get_session(app_name="app", user_id="user", session_id=session.id)).events
  assert (event.isolation_scope, event.actions.state_delta) == ("task:fc-9", {"scope": "task:fc-9"})


async def test_a_standalone_run_used_as_output_names_its_parent_in_output_for():
  parent, service, session = await parent_context(node_path="outer@1")
  await NodeRunner(node=Shout(name="shout"), parent_ctx=parent, use_as_output=True).run("hi")
  [event] = (await service.get_session(app_name="app", user_id="user", session_id=session.id)).events
  assert event.node_info.output_for == ["outer@1/shout@1", "outer@1"]


class Streams(BaseNode):
  async def _run_impl(self, *, ctx, node_input):
    from adk_nb import Event
    from google.genai import types

    ctx.state["before_partial"] = True
    yield Event(content=types.Content(role="model", parts=[types.Part(text="streaming...")]), partial=True)
    yield "done"


async def test_state_written_before_a_partial_event_is_committed_with_the_next_whole_one():
  parent, service, session = await parent_context()
  await NodeRunner(node=Streams(name="streams"), parent_ctx=parent).run()
  stored = (await service.get_session(app_name="app", user_id="user", session_id=session.id)).events
  assert [(e.output, e.actions.state_delta) for e in stored] == [("done", {"before_partial": True})]


async def test_a_second_output_is_refused_in_google_adks_words():
  class Twice(BaseNode):
    async def _run_impl(self, *, ctx, node_input):
      yield 1
      yield 2

  parent, _, _ = await parent_context()
  ctx = await NodeRunner(node=Twice(name="twice"), parent_ctx=parent).run()
  assert "Output already set for node twice@1: a node can produce at most one output" in str(ctx.error)
