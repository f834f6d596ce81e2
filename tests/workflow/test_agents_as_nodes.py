"""LlmAgent, the workflow agents and Workflows as nodes of a graph."""

import pytest
from google.genai import types
from pydantic import BaseModel

from adk_nb import InMemoryRunner, Workflow
from adk_nb.agents import LlmAgent, SequentialAgent
from adk_nb.models import ScriptedModel
from adk_nb.pending import pending_items
from adk_nb.testing import call, run_turn
from adk_nb.tools import FunctionTool


def outputs(events):
  return [(e.node_info.path, e.output) for e in events if e.output is not None]


def sent_texts(model, index=-1):
  return [p.text for c in model.requests[index].contents for p in c.parts if p.text]


async def test_an_llm_agent_node_sees_only_its_input_and_its_final_text_flows_on():
  model = ScriptedModel(["A short summary."])
  summarize = LlmAgent(name="summarize", model=model, instruction="Summarize for {audience}.")

  def prepare(node_input: str):
    return f"Text: {node_input}"

  def wrap(node_input: str):
    return f"<{node_input}>"

  wf = Workflow(name="wf", edges=[("START", prepare, summarize, wrap)])
  runner = InMemoryRunner(wf, app_name="app")
  events = await run_turn(runner, "a very long article", state_delta={"audience": "kids"})
  assert sent_texts(model) == ["Text: a very long article"]  # the node input only, not the user turn
  assert "Summarize for kids." in model.requests[-1].config.system_instruction
  reply = next(e for e in events if e.author == "summarize")
  assert reply.text == "A short summary." and reply.node_info.message_as_output
  assert reply.node_info.path == "wf@1/summarize@1"
  assert outputs(events)[-1] == ("wf@1/wrap@1", "<A short summary.>")
  assert next(n for n in wf.graph.nodes if n.name == "summarize") is not summarize  # cloned, as in google-adk


async def test_an_agent_with_output_schema_outputs_the_parsed_dict():
  class Verdict(BaseModel):
    score: int

  judge = LlmAgent(name="judge", model=ScriptedModel(['{"score": 7}']), output_schema=Verdict)

  def decide(node_input: dict):
    return "good" if node_input["score"] > 5 else "bad"

  events = await run_turn(InMemoryRunner(Workflow(name="wf", edges=[("START", judge, decide)]), app_name="app"),
                          "rate this")
  assert outputs(events)[-1] == ("wf@1/decide@1", "good")


async def test_a_sequential_agent_runs_as_a_node_and_keeps_its_authors():
  one = LlmAgent(name="one", model=ScriptedModel(["first"]))
  two = LlmAgent(name="two", model=ScriptedModel(["second"]))
  seq = SequentialAgent(name="seq", sub_agents=[one, two])

  def after(node_input):
    return f"got {node_input}"

  events = await run_turn(InMemoryRunner(Workflow(name="wf", edges=[("START", seq, after)]), app_name="app"), "go")
  assert [e.author for e in events if e.text] == ["user", "one", "two"]
  assert outputs(events)[-1] == ("wf@1/after@1", "got second")


async def test_a_nested_workflow_outputs_its_terminal_output_and_authors_its_events():
  def inc(node_input: int):
    return node_input + 1

  def seed(node_input):
    return 1

  inner = Workflow(name="inner", edges=[("START", inc)])
  outer = Workflow(name="outer", edges=[("START", seed, inner, inc)])
  events = await run_turn(InMemoryRunner(outer, app_name="app"), "go")
  assert [(e.author, e.node_info.path, e.output) for e in events if e.output is not None] == [
      ("outer", "outer@1/seed@1", 1), ("inner", "outer@1/inner@1/inc@1", 2), ("outer", "outer@1/inc@1", 3)]


async def test_a_tool_confirmation_inside_an_agent_node_runs_the_tool_once_then_the_downstream_nodes():
  refunds = []

  def refund(amount: int) -> dict:
    refunds.append(amount)
    return {"refunded": amount}

  model = ScriptedModel([call("refund", amount=5), "Refunded 5."])
  agent = LlmAgent(name="clerk", model=model, tools=[FunctionTool(refund, require_confirmation=True)])
  done = []

  def notify(node_input: str):
    done.append(node_input)
    return "notified"

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", agent, notify)]), app_name="app")
  await run_turn(runner, "refund me")
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  [item] = pending_items(session.events)
  assert item.kind == "confirmation"
  message = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
      id=item.call_id, name="adk_request_confirmation", response={"confirmed": True}))])
  events = await run_turn(runner, message)
  assert refunds == [5]
  assert done == ["Refunded 5."]
  assert outputs(events)[-1] == ("wf@1/notify@1", "notified")
  model.assert_complete()


async def test_a_confirmation_inside_a_sequential_agent_node_resumes_inside_it():
  deleted = []

  def delete(path: str) -> dict:
    deleted.append(path)
    return {"deleted": path}

  first = LlmAgent(name="first", model=ScriptedModel(["ready"]))
  janitor = LlmAgent(name="janitor", model=ScriptedModel([call("delete", path="a.txt"), "Deleted a.txt."]),
                     tools=[FunctionTool(delete, require_confirmation=True)])
  seq = SequentialAgent(name="seq", sub_agents=[first, janitor])

  def report(node_input: str):
    return f"report: {node_input}"

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", seq, report)]), app_name="app")
  await run_turn(runner, "clean up")
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  [item] = pending_items(session.events)
  message = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
      id=item.call_id, name="adk_request_confirmation", response={"confirmed": True}))])
  events = await run_turn(runner, message)
  assert deleted == ["a.txt"]
  assert outputs(events)[-1] == ("wf@1/report@1", "report: Deleted a.txt.")


async def test_a_function_tool_is_a_node_its_input_the_arguments_and_its_response_the_output():
  from adk_nb.tools import FunctionTool, ToolContext

  def pick(node_input):
    return {"city": "Oslo"}

  def weather(city: str, tool_context: ToolContext) -> dict:
    tool_context.state["asked"] = city
    return {"city": city, "sky": "clear"}

  def report(node_input: dict):
    return f"{node_input['city']}: {node_input['sky']}"

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", pick, FunctionTool(weather), report)]), app_name="app")
  events = await run_turn(runner, "go")
  assert outputs(events) == [("wf@1/pick@1", {"city": "Oslo"}), ("wf@1/weather@1", {"city": "Oslo", "sky": "clear"}),
                             ("wf@1/report@1", "Oslo: clear")]
  tool_event = next(e for e in events if e.node_info and e.node_info.path == "wf@1/weather@1")
  assert tool_event.actions.state_delta == {"asked": "Oslo"}


async def test_a_tool_node_given_something_other_than_arguments_names_the_fix():
  from adk_nb.tools import FunctionTool

  def weather(city: str, unit: str) -> str:
    return city

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", FunctionTool(weather))]), app_name="app")
  with pytest.raises(TypeError, match="The input to ToolNode must be a dictionary.*tool node 'weather'.*Put a "
                                      "function node before it"):
    await run_turn(runner, "just words")


async def test_a_tool_node_with_one_parameter_takes_a_plain_value_as_that_parameter():
  from adk_nb.tools import FunctionTool

  def weather(city: str) -> str:
    return f"sunny in {city}"

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", FunctionTool(weather))]), app_name="app")
  events = await run_turn(runner, "[1, 2, 3]")  # JSON, but not an object: the text is the city
  assert [e.output for e in events if e.output is not None][-1] == "sunny in [1, 2, 3]"


def test_transfer_context_resolution_refuses_self_and_forbidden_relatives():
  from adk_nb.workflow.utils._transfer_utils import resolve_and_derive_transfer_context

  child = LlmAgent(name="child", disallow_transfer_to_parent=True, disallow_transfer_to_peers=True)
  peer = LlmAgent(name="peer")
  root = LlmAgent(name="root", sub_agents=[child, peer])
  with pytest.raises(ValueError, match="cannot transfer to itself"):
    resolve_and_derive_transfer_context("child", child, root, None, None)
  with pytest.raises(ValueError, match="disallow_transfer_to_parent is set"):
    resolve_and_derive_transfer_context("root", child, root, None, None)
  with pytest.raises(ValueError, match="disallow_transfer_to_peers is set"):
    resolve_and_derive_transfer_context("peer", child, root, None, None)
  assert resolve_and_derive_transfer_context("child", root, root, "ctx", None) == (child, "ctx")
  assert resolve_and_derive_transfer_context("nobody", root, root, "ctx", None) == (None, None)


async def test_a_custom_node_runs_an_agent_through_its_run_impl_by_mode():
  from adk_nb.workflow import BaseNode

  model = ScriptedModel(["Hi there."])
  greeter = LlmAgent(name="greeter", model=model, include_contents="none")

  class Wrap(BaseNode):
    agent: LlmAgent

    async def _run_impl(self, *, ctx, node_input):
      async for event in self.agent._run_impl(ctx=ctx, node_input=node_input):
        yield event

  got = []

  def after(node_input):
    got.append(node_input)

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", Wrap(name="wrap", agent=greeter), after)]),
                          app_name="app")
  await run_turn(runner, "say hello")
  assert got == ["Hi there."]  # single_turn (no mode, no parent): the final text is the output
  assert [c.parts[0].text for c in model.requests[0].contents] == ["say hello"]
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert [e.text for e in session.events if e.author == "user"] == ["say hello"]  # the input was not committed twice
