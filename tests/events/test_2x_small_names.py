"""Small ADK 2.x names: Event.node_name, RequestInput(prompt=...), ctx.run_node(raise_on_wait=...)."""

import pytest

from adk_nb import Event, InMemoryRunner, Workflow
from adk_nb.events import RequestInput
from adk_nb.events.event_actions import EventActions
from adk_nb.testing import run_turn


def test_node_name_is_the_nodes_name_and_empty_outside_workflows_and_on_agent_checkpoints():
  assert Event(author="a", node_path="wf@1/review@2").node_name == "review"
  assert Event(author="a").node_name == ""
  checkpoint = Event(author="a", node_path="wf@1/agent@1", actions=EventActions(end_of_agent=True))
  assert checkpoint.node_name == ""


def test_request_input_prompt_is_its_message_and_other_unknown_names_are_refused():
  assert RequestInput(prompt="Enter an integer").message == "Enter an integer"
  with pytest.raises(ValueError, match="pass message= only"):
    RequestInput(prompt="a", message="b")
  with pytest.raises(ValueError):
    RequestInput(mesage="typo")


async def test_run_node_takes_raise_on_wait_and_stops_the_caller_at_a_waiting_child():
  ran_after = []

  async def ask(node_input):
    yield RequestInput(interrupt_id="q", message="Name?")

  async def caller(ctx, node_input):
    answer = await ctx.run_node(ask, raise_on_wait=True)
    ran_after.append(answer)
    return answer

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", caller)]), app_name="app")
  events = await run_turn(runner, "go")
  assert [c.args["message"] for e in events for c in e.get_function_calls()] == ["Name?"]
  assert ran_after == []
