"""FunctionNode: names and kinds of partials, str inputs from a message, schemas of node_input binding."""

import functools
import logging
from typing import Optional

from google.genai import types

from adk_nb import Context, InMemoryRunner, Workflow
from adk_nb.testing import run_turn
from adk_nb.workflow import FunctionNode


def outputs(events):
  return [(e.node_info.path, e.output) for e in events if e.output is not None]


async def test_a_partial_is_named_and_run_as_the_function_it_wraps():
  async def shout(prefix: str, node_input: str, ctx: Context):
    yield f"{prefix} {node_input.upper()}"

  def tag(prefix: str, node_input: str):
    return f"{prefix}{node_input}"

  wf = Workflow(name="wf", edges=[("START", functools.partial(shout, "Hey"), functools.partial(tag, "#"))])
  events = await run_turn(InMemoryRunner(wf, app_name="app"), "you")
  assert outputs(events) == [("wf@1/shout@1", "Hey YOU"), ("wf@1/tag@1", "#Hey YOU")]


async def test_a_str_input_gets_the_messages_text_and_a_warning_names_what_it_does_not_see(caplog):
  got = []

  def read(node_input: Optional[str]):
    got.append(node_input)

  message = types.Content(role="user", parts=[types.Part(text="Hello"),
                                              types.Part(inline_data=types.Blob(data=b"img", mime_type="image/png"))])
  with caplog.at_level(logging.WARNING):
    await run_turn(InMemoryRunner(Workflow(name="wf", edges=[("START", read)]), app_name="app"), message)
  assert got == ["Hello"]
  assert "non-text parts (inline_data)" in caplog.text


def test_node_input_binding_describes_its_parameters_and_result():
  def add(x: int, ctx: Context, y: int = 1) -> int:
    return x + y

  node = FunctionNode(func=add, parameter_binding="node_input")
  assert set(node.input_schema["properties"]) == {"x", "y"} and node.input_schema["required"] == ["x"]
  assert node.output_schema == {"type": "integer"}
  assert node.model_copy(update={"name": "add2"}).input_schema == node.input_schema
  assert FunctionNode(func=add).input_schema is None  # state binding: nothing inferred from parameters


async def test_a_node_checks_its_state_writes_against_its_own_state_schema_and_may_return_an_event():
  import pytest
  from pydantic import BaseModel

  from adk_nb.events import Event
  from adk_nb.sessions.state import StateSchemaError

  class Counters(BaseModel):
    x: int = 0

  def count(ctx: Context) -> Event:  # an Event return type is not the output's type
    ctx.state["x"] = 1
    return Event(output="counted")

  def stray(ctx: Context):
    ctx.state["y"] = 1

  events = await run_turn(InMemoryRunner(Workflow(name="wf", edges=[
      ("START", FunctionNode(func=count, state_schema=Counters))]), app_name="app"), "go")
  assert outputs(events) == [("wf@1/count@1", "counted")]
  with pytest.raises(StateSchemaError, match="'y'"):
    await run_turn(InMemoryRunner(Workflow(name="wf", edges=[
        ("START", FunctionNode(func=stray, state_schema=Counters))]), app_name="app"), "go")


async def test_a_top_level_workflows_state_schema_checks_the_writes_of_its_nodes():
  import pytest
  from pydantic import BaseModel

  from adk_nb.sessions.state import StateSchemaError

  class Pipeline(BaseModel):
    counter: int = 0

  def count(ctx: Context):
    ctx.state["counter"] = 1

  def stray(ctx: Context):
    ctx.state["elsewhere"] = 1

  await run_turn(InMemoryRunner(Workflow(name="wf", edges=[("START", count)], state_schema=Pipeline), app_name="app"),
                 "go")
  with pytest.raises(StateSchemaError, match="'elsewhere'"):
    await run_turn(InMemoryRunner(Workflow(name="wf", edges=[("START", stray)], state_schema=Pipeline),
                                  app_name="app"), "go")


async def test_a_function_annotated_to_return_a_message_answers_with_that_message():
  def greet() -> types.Content:
    return types.Content(role="model", parts=[types.Part(text="hello")])

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", greet)]), app_name="app")
  events = [e for e in await run_turn(runner, "go") if e.node_info and "greet" in e.node_info.path]
  assert [(e.output, e.content.parts[0].text) for e in events if e.content] == [(None, "hello")]
