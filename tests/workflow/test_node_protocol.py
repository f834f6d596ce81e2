"""google-adk 2.x's node protocol: a BaseNode subclass may override the public `run` (not only `_run_impl`);
`run` on a plain subclass normalizes what `_run_impl` yields; RetryConfig and NodeTimeoutError as google-adk's."""

import asyncio

import pytest

from adk_nb import Event, InMemoryRunner, Workflow
from adk_nb.events import RequestInput
from adk_nb.testing import run_turn
from adk_nb.workflow import BaseNode, Node, RetryConfig
from adk_nb.workflow._errors import NodeTimeoutError


class Flaky(BaseNode):
  """Overrides `run` itself, as google-adk's test nodes do."""

  attempts: list = []

  async def run(self, *, ctx, node_input):
    self.attempts.append(ctx.attempt_count)
    if len(self.attempts) < 3:
      raise ConnectionError("try again")
    yield Event(output=f"done after {len(self.attempts)} attempts")


class Plain(BaseNode):
  async def _run_impl(self, *, ctx, node_input):
    yield None
    yield f"got {node_input}"
    yield RequestInput(interrupt_id="ask-1", message="More?")


async def test_a_node_that_overrides_run_is_run_through_it_with_its_retries():
  flaky = Flaky(name="flaky", attempts=[], retry_config=RetryConfig(initial_delay=0, exceptions=[ConnectionError]))
  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", flaky)]), app_name="app")
  events = await run_turn(runner, "go")
  assert flaky.attempts == [1, 2, 3]
  assert [(e.node_info.path, e.output) for e in events if e.output is not None][0] == (
      "wf@1/flaky@1", "done after 3 attempts")
  assert [e.error_code for e in events if e.error_code] == ["ConnectionError", "ConnectionError"]


async def test_run_of_a_plain_subclass_yields_its_outputs_and_requests_as_events():
  seen = [e async for e in Plain(name="plain").run(ctx=None, node_input="x")]
  assert all(isinstance(e, Event) for e in seen)
  assert seen[0].output == "got x"
  assert [c.name for c in seen[1].get_function_calls()] == ["adk_request_input"]
  assert seen[1].long_running_tool_ids == {"ask-1"}


def test_retry_config_names_what_exceptions_takes():
  with pytest.raises(ValueError, match=r"exception class names \(str\) or exception classes, got int: 42"):
    RetryConfig(exceptions=[42])


async def test_a_timed_out_node_says_it_timed_out_and_how_to_give_it_longer():
  async def slow(node_input):
    await asyncio.Event().wait()

  from adk_nb.workflow import node

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", node(slow, timeout=0.01))]), app_name="app")
  with pytest.raises(NodeTimeoutError, match=r"Node 'slow' timed out after 0.01 seconds; raise timeout="):
    await run_turn(runner, "go")
  assert str(NodeTimeoutError(node_name="n", timeout=2)).startswith("Node 'n' timed out after 2 seconds")


class Shout(Node):
  suffix: str = "!"

  async def run_node_impl(self, *, ctx, node_input):
    yield f"{node_input}{self.suffix}"


async def test_a_node_subclass_with_parallel_worker_runs_once_per_item_and_keeps_its_fields():
  async def items(node_input):
    return ["a", "b", "c"]

  shout = Shout(name="shout", suffix="?", parallel_worker=True, max_parallel_workers=2)
  copy = shout.model_copy()
  assert (copy.parallel_worker, copy.max_parallel_workers, copy._inner_node._node.suffix) == (True, 2, "?")
  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", items, shout)]), app_name="app")
  events = await run_turn(runner, "go")
  assert [e.output for e in events if e.output is not None and e.node_info.path == "wf@1/shout@1"] == [
      ["a?", "b?", "c?"]]


def test_max_parallel_workers_is_checked_as_in_google_adk():
  with pytest.raises(ValueError, match="can only be set when parallel_worker is True; pass parallel_worker=True"):
    Shout(name="s", max_parallel_workers=3)
  with pytest.raises(ValueError, match="max_parallel_workers must be greater than or equal to 1.*use None for no limit"):
    Shout(name="s", parallel_worker=True, max_parallel_workers=0)


async def test_the_runner_authors_what_a_node_yields_as_google_adk_does():
  class Preset(BaseNode):
    async def _run_impl(self, *, ctx, node_input):
      yield Event(author="someone_else", output="x")

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", Preset(name="preset"))]), app_name="app")
  events = await run_turn(runner, "go")
  assert [(e.author, e.output) for e in events if e.output is not None][0] == ("wf", "x")
