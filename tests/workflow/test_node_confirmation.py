"""FunctionNode(require_confirmation=...): the node asks a person first (as google-adk 2.13: an
`adk_request_input` call with id `wf_tool_confirmation:{node path}` answered by a ToolConfirmation)."""

import pytest
from google.genai import types

from adk_nb import InMemoryRunner, Workflow
from adk_nb.testing import run_turn
from adk_nb.workflow import FunctionNode, node


def answer(call_id, response):
  return types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
      id=call_id, name="adk_request_input", response=response))])


def outputs(events):
  return [(e.node_info.path, e.output) for e in events if e.output is not None]


def requests(events):
  return [(e.node_info.path, c.id) for e in events for c in e.get_function_calls()]


def confirmed_workflow(runs, require=True):
  @node(require_confirmation=require)
  def refund(amount: int = 5, node_input: str = ""):
    runs.append(amount)
    return f"refunded {amount}"

  def after(node_input):
    return f"after {node_input}"

  return Workflow(name="wf", edges=[("START", refund, after)])


async def test_a_node_that_requires_confirmation_asks_first_and_runs_once_approved():
  runs = []
  runner = InMemoryRunner(confirmed_workflow(runs), app_name="app")
  first = await run_turn(runner, "go", state_delta={"amount": 9})
  [request] = [c for e in first for c in e.get_function_calls()]
  assert request.name == "adk_request_input" and request.id == "wf_tool_confirmation:wf@1/refund@1"
  assert request.args["payload"] == {"tool_name": "refund", "args": {"amount": 9, "node_input": "go"}}
  assert request.args["message"] == "Should refund() run? Approve or reject it."
  assert request.args["response_schema"]["title"] == "ToolConfirmation"
  assert runs == []
  events = await run_turn(runner, answer(request.id, {"confirmed": True}))
  assert runs == [9]
  assert outputs(events) == [("wf@1/refund@1", "refunded 9"), ("wf@1/after@1", "after refunded 9")]

  # The confirmation id repeats in the next invocation of the same session (it is the node path).
  again = await run_turn(runner, "again")
  assert [c.id for e in again for c in e.get_function_calls()] == [request.id]
  await run_turn(runner, answer(request.id, {"confirmed": True}))
  assert runs == [9, 9]


async def test_a_rejected_node_never_runs_and_outputs_the_rejection():
  runs = []
  runner = InMemoryRunner(confirmed_workflow(runs), app_name="app")
  await run_turn(runner, "go")
  events = await run_turn(runner, answer("wf_tool_confirmation:wf@1/refund@1", {"confirmed": False}))
  assert runs == []
  assert outputs(events) == [("wf@1/refund@1", {"error": "This tool call is rejected."}),
                             ("wf@1/after@1", "after {'error': 'This tool call is rejected.'}")]


async def test_a_confirmation_predicate_asks_only_when_it_is_true():
  runs = []
  runner = InMemoryRunner(confirmed_workflow(runs, require=lambda amount: amount > 100), app_name="app")
  events = await run_turn(runner, "small", state_delta={"amount": 10})
  assert requests(events) == [] and runs == [10]
  events = await run_turn(runner, "large", state_delta={"amount": 500})
  assert requests(events) == [("wf@1/refund@1", "wf_tool_confirmation:wf@1/refund@1")] and runs == [10]


async def test_a_confirmation_answer_that_is_not_a_tool_confirmation_fails_with_the_fix():
  runner = InMemoryRunner(confirmed_workflow([]), app_name="app")
  await run_turn(runner, "go")
  with pytest.raises(ValueError, match=r"(?s)does not fit its response_schema \(ToolConfirmation: .*confirmed: boolean.*"
                                       r"nothing was changed: answer it again"):
    await run_turn(runner, answer("wf_tool_confirmation:wf@1/refund@1", {"confirmed": "maybe", "extra": 1}))
  events = await run_turn(runner, answer("wf_tool_confirmation:wf@1/refund@1", {"confirmed": True}))
  assert [e.output for e in events if e.output is not None][0] == "refunded 5"  # the first answer lost nothing


async def test_a_node_run_through_run_node_can_require_confirmation():
  runs = []

  def pay(node_input):
    runs.append(node_input)
    return f"paid {node_input}"

  payer = FunctionNode(func=pay, require_confirmation=True)

  async def orch(ctx, node_input):
    return await ctx.run_node(payer, node_input=3)

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", orch)]), app_name="app")
  first = await run_turn(runner, "go")
  assert requests(first) == [("wf@1/orch@1/pay@1", "wf_tool_confirmation:wf@1/orch@1/pay@1")]
  events = await run_turn(runner, answer("wf_tool_confirmation:wf@1/orch@1/pay@1", {"confirmed": True}))
  assert runs == [3]
  assert outputs(events) == [("wf@1/orch@1/pay@1", "paid 3"), ("wf@1/orch@1", "paid 3")]
