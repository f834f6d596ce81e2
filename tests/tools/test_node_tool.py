"""NodeTool (ADK 2.x): a Workflow or node offered to a model as a tool; also a node put in tools=[...]."""

import pytest
from google.genai import types
from pydantic import BaseModel

from adk_nb import InMemoryRunner, LlmAgent, Workflow
from adk_nb.events import RequestInput
from adk_nb.models import ScriptedModel
from adk_nb.testing import call, run_turn
from adk_nb.tools._node_tool import NodeTool
from adk_nb.workflow import node


class Lookup(BaseModel):
  user_id: str


def responses(events):
  return [r.response for e in events if e.author != "user" for r in e.get_function_responses()]


def texts(events):
  return [p.text for e in events if e.content for p in e.content.parts or [] if p.text]


def lookup_workflow(runs):
  def lookup(node_input: Lookup):
    runs.append(node_input)
    return {"user_id": node_input.user_id, "tier": "VIP"}

  return Workflow(name="lookup_wf", description="Looks up a customer.", input_schema=Lookup,
                  edges=[("START", lookup)])


def agent_with(tool, *script):
  return LlmAgent(name="helper", model=ScriptedModel(list(script)), tools=[tool])


async def test_a_workflow_in_tools_is_declared_from_its_input_schema_and_its_output_is_the_answer():
  runs = []
  agent = agent_with(lookup_workflow(runs), call("lookup_wf", user_id="u1"), "done")
  [tool] = await agent.canonical_tools()
  assert isinstance(tool, NodeTool)
  decl = tool._get_declaration()
  assert (decl.name, decl.description) == ("lookup_wf", "Looks up a customer.")
  assert decl.parameters_json_schema["properties"] == {"user_id": {"type": "string"}}
  events = await run_turn(InMemoryRunner(agent, app_name="app"), "who is u1?")
  assert responses(events) == [{"user_id": "u1", "tier": "VIP"}]
  assert [r.user_id for r in runs] == ["u1"]
  assert texts(events)[-1] == "done"


async def test_a_function_node_takes_its_parameters_from_the_call_and_a_bad_call_is_answered_not_run():
  runs = []

  @node
  def greet(name: str, times: int) -> str:
    runs.append(name)
    return f"hello {name}" * times

  tool = NodeTool(greet)
  assert tool.node.parameter_binding == "node_input" and greet.parameter_binding == "state"
  assert set(tool._get_declaration().parameters_json_schema["properties"]) == {"name", "times"}
  agent = agent_with(tool, call("greet", name="ann", times=1), "ok")
  events = await run_turn(InMemoryRunner(agent, app_name="app"), "greet ann")
  assert responses(events) == [{"result": "hello ann"}]

  def echo(node_input: str):
    return f"echo {node_input}"

  primitive = Workflow(name="echo_wf", input_schema=str, edges=[("START", echo)])
  tool = NodeTool(primitive)
  assert tool._get_declaration().parameters_json_schema == {
      "type": "object", "properties": {"request": {"type": "string"}}, "required": ["request"]}
  missing = await tool.run_async(args={}, tool_context=None)
  assert "request" in missing["error"] and "required" in missing["error"]


def test_agents_and_nodes_without_a_known_input_are_refused_with_the_fix():
  with pytest.raises(ValueError, match="cannot be wrapped as a NodeTool: list it in sub_agents.*AgentTool"):
    NodeTool(LlmAgent(name="a", model=ScriptedModel([])))
  with pytest.raises(ValueError, match="does not have an input_schema defined, so.*node.input_schema = "):
    NodeTool(Workflow(name="empty", edges=[]))


async def test_a_node_that_asks_for_input_pauses_the_callers_turn_and_the_answer_finishes_the_call():
  runs = []

  @node(rerun_on_resume=True)
  def discount(tier: str, ctx):
    runs.append(tier)
    answer = ctx.resume_inputs.get("confirm")
    if answer is None:
      yield RequestInput(interrupt_id="confirm", message=f"Apply the discount for {tier}?")
      return
    yield "20% off" if answer.get("text") == "yes" else "5% off"

  agent = agent_with(discount, call("discount", tier="VIP"), "summary")
  runner = InMemoryRunner(agent, app_name="app")
  first = await run_turn(runner, "discount?")
  asked = [c for e in first for c in e.get_function_calls() if c.name == "adk_request_input"]
  assert [c.args["message"] for c in asked] == ["Apply the discount for VIP?"]
  assert responses(first) == []  # the call is not answered yet
  reply = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
      id=asked[0].id, name="adk_request_input", response={"text": "yes"}))])
  second = await run_turn(runner, reply)
  assert responses(second) == [{"result": "20% off"}]
  assert texts(second)[-1] == "summary"
  assert runs == ["VIP", "VIP"]  # asked once, then ran again with the answer


async def test_a_node_whose_run_ends_on_an_error_answers_the_error_not_an_empty_result():
  # One nested-run driver for AgentTool and NodeTool: a node that produced no output because its
  # run ended on an error event (here its agent's model was blocked) tells the model so, as an
  # AgentTool does, instead of answering {'result': None} as if the node had nothing to say.
  from adk_nb.models import LlmResponse

  class Question(BaseModel):
    question: str

  def ask(node_input: Question) -> str:
    return node_input.question

  blocked = LlmResponse(error_code="SAFETY", error_message="the answer was blocked")
  writer = LlmAgent(name="writer", model=ScriptedModel([blocked]))
  drafting = Workflow(name="draft_wf", input_schema=Question, edges=[("START", ask, writer)])
  agent = agent_with(drafting, call("draft_wf", question="a haiku?"), "sorry")
  events = await run_turn(InMemoryRunner(agent, app_name="app"), "go")
  assert responses(events) == [{"error": "Node `draft_wf` failed: SAFETY: the answer was blocked"}]


def test_node_tool_prose_is_adk_nbs_own():
  """The declaration's facts (name, parameters) are google-adk's; its default description and the
  answers the model reads are adk_nb's own words, not google-adk 2.13's sentences."""
  from adk_nb.tools._node_tool import _arg_error

  async def echo(node_input: str) -> str:
    return node_input

  tool = NodeTool(Workflow(name="echo_wf", input_schema=str, edges=[("START", echo)]))
  assert tool.description == "Runs the workflow node echo_wf."
  assert tool.description != "Executes the node: echo_wf"
  error = _arg_error("echo_wf", "request: not a string")["error"]
  assert "echo_wf" in error and "request: not a string" in error
  assert "failed due to argument validation errors" not in error
