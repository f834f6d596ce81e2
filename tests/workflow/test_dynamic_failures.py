"""A `ctx.run_node` child that fails: the caller sees google-adk's DynamicNodeFailError, the run fails with
the child's own exception, reported once (by the child)."""

import pickle

import pytest

from adk_nb import InMemoryRunner, Workflow
from adk_nb.testing import run_turn
from adk_nb.workflow import RetryConfig
from adk_nb.workflow._errors import DynamicNodeFailError


class QuotaError(Exception):
  def __init__(self, tenant, limit):  # a class whose constructor takes other arguments
    self.tenant, self.limit = tenant, limit
    super().__init__(f"{tenant} is over its quota of {limit}")


def failing(node_input):
  if node_input == "fail":
    raise ValueError("child failure")
  return f"ok {node_input}"


async def test_the_caller_catches_the_wrapper_and_its_error_is_the_childs_own_exception():
  seen = []

  async def parent(ctx, node_input):
    try:
      await ctx.run_node(failing, node_input="fail")
    except DynamicNodeFailError as e:
      seen.append((type(e).__name__, str(e), type(e.error).__name__, str(e.error), e.error_node_path))
    return await ctx.run_node(failing, node_input="work")

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", parent)]), app_name="app")
  events = await run_turn(runner, "go")
  assert seen == [("DynamicNodeFailError", "Dynamic node failing failed", "ValueError", "child failure",
                   "wf@1/parent@1/failing@1")]
  assert [(e.node_info.path, e.output) for e in events if e.output is not None] == [
      ("wf@1/parent@1/failing@2", "ok work"), ("wf@1/parent@1", "ok work")]
  # The child's failure was reported once, by the child.
  assert [(e.node_info.path, e.error_code) for e in events if e.error_code] == [
      ("wf@1/parent@1/failing@1", "ValueError")]


async def test_an_except_clause_for_the_childs_exception_class_still_catches_it():
  seen = []

  async def parent(ctx, node_input):
    try:
      await ctx.run_node(failing, node_input="fail")
    except ValueError as e:
      seen.append((isinstance(e, DynamicNodeFailError), str(e.error)))

    def over_quota():
      raise QuotaError("acme", 3)

    try:
      await ctx.run_node(over_quota)
    except QuotaError as e:
      seen.append((isinstance(e, DynamicNodeFailError), e.error.tenant, str(e)))
    return "done"

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", parent)]), app_name="app")
  events = await run_turn(runner, "go")
  assert seen == [(True, "child failure"), (True, "acme", "Dynamic node over_quota failed")]
  assert [e.output for e in events if e.output is not None][-1] == "done"


async def test_an_uncaught_child_failure_fails_the_run_with_the_childs_original_exception():
  async def parent(ctx, node_input):
    await ctx.run_node(failing, node_input="fail")
    return "unreachable"

  def after(node_input):
    raise AssertionError("must not run")

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", parent, after)]), app_name="app")
  with pytest.raises(ValueError, match="child failure") as info:
    await run_turn(runner, "go")
  assert type(info.value) is ValueError  # the child's own object, not the wrapper
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert [(e.node_info.path, e.error_code) for e in session.events if e.error_code] == [
      ("wf@1/parent@1/failing@1", "ValueError")]


async def test_a_caller_with_a_retry_policy_is_retried_on_its_childs_exception_class():
  calls = []

  def flaky(node_input):
    calls.append(node_input)
    if len(calls) < 2:
      raise ValueError("flaky")
    return "ok"

  async def parent(ctx, node_input):
    return await ctx.run_node(flaky, node_input="x")

  from adk_nb.workflow import node

  caller = node(parent, retry_config=RetryConfig(initial_delay=0, exceptions=["ValueError"]))
  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", caller)]), app_name="app")
  events = await run_turn(runner, "go")
  assert calls == ["x", "x"]
  assert [e.output for e in events if e.output is not None][-1] == "ok"


def test_the_wrapper_pickles_with_its_childs_exception():
  from adk_nb.workflow._errors import dynamic_node_failure

  failure = dynamic_node_failure(KeyError("k"), "child", "wf@1/child@1")
  copy = pickle.loads(pickle.dumps(failure))
  assert isinstance(copy, DynamicNodeFailError) and isinstance(copy, KeyError)
  assert (str(copy), repr(copy.error), copy.error_node_path) == (
      "Dynamic node child failed", "KeyError('k')", "wf@1/child@1")
