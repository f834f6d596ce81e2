"""output_schema beyond pydantic models (google-adk 2.x's SchemaUnion): list[str], list[Model], dict
schemas, types.Schema. What is sent as response_schema, and what output_key stores, as google-adk."""

import pytest
from google.genai import types
from pydantic import BaseModel, ValidationError

from adk_nb import Agent, InMemoryRunner, Workflow
from adk_nb.testing import ScriptedModel, call, run_turn, session_of
from tests.support import last_text


class OrderItem(BaseModel):
  name: str
  quantity: int = 1
  note: str | None = None


@pytest.mark.parametrize("schema, answer, stored", [
    (list[str], '["pizza", "salad"]', ["pizza", "salad"]),
    # google-adk: a list of models is validated and stored as dicts without the None fields.
    (list[OrderItem], '[{"name": "pizza", "quantity": 2}]', [{"name": "pizza", "quantity": 2}]),
    (dict[str, int], '{"pizza": 2}', {"pizza": 2}),
    # Other schemas are not checked against the answer (google-adk stores the JSON as parsed).
    ({"type": "object", "properties": {"a": {"type": "string"}}}, '{"a": "z", "extra": 1}', {"a": "z", "extra": 1}),
    (types.Schema(type="ARRAY", items=types.Schema(type="STRING")), '["s"]', ["s"]),
    (int, "7", 7),
    (list[str], '```json\n["fenced"]\n```', ["fenced"]),  # a code fence around the whole answer goes
])
async def test_a_non_model_output_schema_is_sent_as_is_and_its_answer_stored(schema, answer, stored):
  model = ScriptedModel([answer])
  runner = InMemoryRunner(Agent(name="orders", model=model, output_schema=schema, output_key="out"), app_name="app")
  await run_turn(runner, "what do you want?")
  assert model.requests[0].config.response_schema is schema  # google-adk sends the schema unchanged
  assert model.requests[0].config.response_mime_type == "application/json"
  assert (await session_of(runner)).state["out"] == stored


async def test_an_answer_that_is_not_json_fails_the_run_and_saves_nothing():
  model = ScriptedModel(['["a"]', "not json"])
  runner = InMemoryRunner(Agent(name="orders", model=model, output_schema=list[str], output_key="out"),
                          app_name="app")
  await run_turn(runner, "one")
  with pytest.raises(ValueError, match="Invalid JSON") as info:
    await run_turn(runner, "two")
  assert any("nothing was saved to state['out']" in note for note in info.value.__notes__)
  assert (await session_of(runner)).state["out"] == ["a"]


async def test_a_list_of_models_that_does_not_fit_fails_as_a_model_does():
  model = ScriptedModel(['[{"quantity": 2}]'])
  runner = InMemoryRunner(Agent(name="orders", model=model, output_schema=list[OrderItem], output_key="out"),
                          app_name="app")
  with pytest.raises(ValidationError):
    await run_turn(runner, "one")
  assert "out" not in (await session_of(runner)).state


@pytest.mark.parametrize("bad", ["OrderItem", 42, [OrderItem]])
def test_what_google_adk_refuses_is_refused_naming_the_fix(bad):
  with pytest.raises(ValidationError, match="pydantic model class .*list\\[str\\]"):
    Agent(name="a", output_schema=bad)


async def test_with_tools_a_list_answer_arrives_through_set_model_response():
  def lookup(city: str) -> str:
    """Looks a city up."""
    return city

  model = ScriptedModel([call("set_model_response", items=[{"name": "pizza"}]), "done"])
  agent = Agent(name="orders", model=model, tools=[lookup], output_schema=list[OrderItem], output_key="out")
  runner = InMemoryRunner(agent, app_name="app")
  events = await run_turn(runner, "order")
  declaration = model.requests[0].tools_dict["set_model_response"]._get_declaration()
  params = declaration.parameters_json_schema
  assert params["required"] == ["items"] and params["properties"]["items"]["type"] == "array"
  assert last_text(events) == '[{"name": "pizza", "quantity": 1}]'
  assert (await session_of(runner)).state["out"] == [{"name": "pizza", "quantity": 1}]


async def test_a_list_str_agent_in_a_workflow_outputs_the_list():
  model = ScriptedModel(['["a", "b"]'])
  seen = []

  def collect(node_input: list[str]):
    seen.append(node_input)
    return "ok"

  topics = Agent(name="topics", model=model, output_schema=list[str], output_key="topics")
  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", topics, collect)]), app_name="app")
  await run_turn(runner, "topic")
  assert seen == [["a", "b"]]
  assert (await session_of(runner)).state["topics"] == ["a", "b"]


async def test_a_task_agent_with_a_list_schema_hands_back_the_list():
  orders = Agent(name="order_collector", mode="task", output_schema=list[OrderItem],
                 model=ScriptedModel([call("finish_task", result=[{"name": "pizza", "quantity": 2}])]))
  coordinator_model = ScriptedModel([call("order_collector", request="take the order"), "placed"])
  root = Agent(name="coordinator", model=coordinator_model, sub_agents=[orders])
  runner = InMemoryRunner(root, app_name="app")
  await run_turn(runner, "I want food")
  answer = coordinator_model.requests[1].contents[-1].parts[0].function_response.response
  assert list(answer) == ["output"]  # google-adk's key for a task's result
  assert [(item["name"], item["quantity"]) for item in answer["output"]] == [("pizza", 2)]


async def test_the_parallel_worker_sample_shape_a_list_fanned_out_to_an_agent_per_item():
  # Google's workflows/parallel_worker: a list[str] agent, then an agent with parallel_worker=True.
  class Explanation(BaseModel):
    topic: str
    explanation: str

  topics = Agent(name="topics", model=ScriptedModel(['["a", "b"]']), output_schema=list[str])
  explain = Agent(name="explain", parallel_worker=True, output_schema=Explanation,
                  model=ScriptedModel(['{"topic": "a", "explanation": "x"}', '{"topic": "b", "explanation": "y"}']))
  seen = []

  def aggregate(node_input: list[Explanation]):
    seen.append(sorted(e.topic for e in node_input))
    return "done"

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", topics, explain, aggregate)]), app_name="app")
  await run_turn(runner, "topic")
  assert seen == [["a", "b"]]
  assert sorted(r.contents[-1].parts[0].text for r in explain.model.requests) == ["a", "b"]


async def test_a_new_output_schema_on_an_agent_with_tools_changes_set_model_response():
  def lookup(city: str) -> str:
    """Looks a city up."""
    return city

  model = ScriptedModel([call("set_model_response", name="pizza"),
                         call("set_model_response", response=["a"])])
  agent = Agent(name="orders", model=model, tools=[lookup], output_schema=OrderItem, output_key="out")
  runner = InMemoryRunner(agent, app_name="app")
  await run_turn(runner, "one")
  agent.output_schema = list[str]
  await run_turn(runner, "two")
  params = model.requests[1].tools_dict["set_model_response"]._get_declaration().parameters_json_schema
  assert params["required"] == ["response"]
  assert (await session_of(runner)).state["out"] == ["a"]
