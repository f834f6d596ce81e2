"""AgentTool: isolated nested invocation, state merge, schemas, shared instances."""

from pydantic import BaseModel

from adk_nb import Agent, InMemoryRunner
from adk_nb.testing import ScriptedModel, call, run_turn
from adk_nb.tools import AgentTool, ToolContext


async def test_child_sees_only_its_argument_and_its_state_merges_back():
  def remember(tool_context: ToolContext) -> str:
    tool_context.state["translated"] = True
    return "noted"

  child_model = ScriptedModel([call("remember"), "Bonjour"])
  child = Agent(name="translator", description="Translates to French.", model=child_model, tools=[remember],
                output_key="last_translation")
  parent_model = ScriptedModel(["ok", call("translator", request="Hello"), "It is 'Bonjour'."])
  parent = Agent(name="parent", model=parent_model, tools=[AgentTool(child)])
  runner = InMemoryRunner(parent, app_name="app")
  await run_turn(runner, "earlier turn the child must not see", session_id="s")
  events = await run_turn(runner, "translate hello", session_id="s")
  sent = child_model.requests[0].contents
  assert [c.parts[0].text for c in sent] == ["Hello"]
  response = [e for e in events if e.get_function_responses()][0]
  assert response.get_function_responses()[0].response == {"result": "Bonjour"}
  assert response.actions.state_delta == {"translated": True, "last_translation": "Bonjour"}
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="s")
  assert session.state["translated"] is True and session.state["last_translation"] == "Bonjour"
  assert child.parent_agent is None
  decl = AgentTool(child)._get_declaration()
  assert decl.description == "Translates to French." and decl.parameters_json_schema["required"] == ["request"]


async def test_input_and_output_schemas_and_skip_summarization():
  class Query(BaseModel):
    city: str
    days: int

  class Forecast(BaseModel):
    summary: str

  child_model = ScriptedModel(['{"summary": "sunny"}'])
  child = Agent(name="forecaster", model=child_model, input_schema=Query, output_schema=Forecast)
  tool = AgentTool(child, skip_summarization=True)
  assert set(tool._get_declaration().parameters_json_schema["properties"]) == {"city", "days"}
  parent = Agent(name="p", model=ScriptedModel([call("forecaster", city="Oslo", days=2)]), tools=[tool])
  events = await run_turn(InMemoryRunner(parent, app_name="app"), "weather?")
  assert child_model.requests[0].contents[0].parts[0].text == '{"city":"Oslo","days":2}'
  assert events[-1].get_function_responses()[0].response == {"summary": "sunny"}
  assert events[-1].is_final_response()


async def test_one_agent_instance_serves_several_parents():
  child = Agent(name="helper", model=ScriptedModel(lambda r: "helped"))
  p1 = Agent(name="p1", model=ScriptedModel([call("helper", request="x"), "a"]), tools=[AgentTool(child)])
  p2 = Agent(name="p2", model=ScriptedModel([call("helper", request="y"), "b"]), tools=[AgentTool(child)])
  for p in (p1, p2):
    events = await run_turn(InMemoryRunner(p, app_name="app"), "go")
    assert events[2].get_function_responses()[0].response == {"result": "helped"}


async def test_the_agent_shares_the_callers_artifacts_both_ways():
  from google.genai import types

  async def read_and_write(tool_context: ToolContext) -> str:
    brief = await tool_context.load_artifact("brief.txt")
    await tool_context.save_artifact("summary.txt", types.Part(text=f"summary of {brief.text}"))
    return "saved"

  async def write_brief(tool_context: ToolContext) -> str:
    await tool_context.save_artifact("brief.txt", types.Part(text="the brief"))
    return "ok"

  writer = Agent(name="writer", description="Summarises.", tools=[read_and_write],
                 model=ScriptedModel([call("read_and_write"), "done"]))
  root = Agent(name="root", tools=[write_brief, AgentTool(writer)],
               model=ScriptedModel([call("write_brief"), call("writer", request="summarise"), "finished"]))
  runner = InMemoryRunner(root, app_name="app")
  events = await run_turn(runner, "go")
  assert events[-1].text == "finished"
  summary = await runner.artifact_service.load_artifact(app_name="app", user_id="user", session_id="session",
                                                        filename="summary.txt")
  assert summary.text == "summary of the brief"
  answered = [e for e in events if any(r.name == "writer" for r in e.get_function_responses())]
  assert answered[0].actions.artifact_delta == {"summary.txt": 0}
