"""FunctionTool: names and parameters from the signature (partials, positional-only, explicit nulls),
and declarations that callbacks cannot corrupt."""

import functools

from adk_nb import Agent, InMemoryRunner
from adk_nb.testing import ScriptedModel, run_turn
from adk_nb.tools import FunctionTool


def _weather(city: str, units: str = "C") -> dict:
  """Weather for a city."""
  return {"city": city, "units": units}


def test_function_tool_partial_keeps_name_and_parameters():
  """google-adk: a partial is named after the wrapped function and declares its remaining parameters."""
  tool = FunctionTool(functools.partial(_weather, units="F"))
  assert tool.name == "_weather"
  schema = tool._get_declaration().parameters_json_schema
  assert "city" in schema["properties"] and schema.get("required") == ["city"]


async def test_function_tool_accepts_explicit_null_for_default_none_param():
  """`x: int = None` -- google-adk passes an explicit null through; models (OpenAI strict mode) send it."""
  def f(x: int = None) -> dict:
    """Doc."""
    return {"x": x}
  tool = FunctionTool(f)
  assert await tool.run_async(args={"x": None}, tool_context=None) == {"x": None}


async def test_function_tool_positional_only_params_are_callable():
  def add(a: int, /, b: int) -> int:
    """Adds."""
    return a + b
  tool = FunctionTool(add)
  assert await tool.run_async(args={"a": 1, "b": 2}, tool_context=None) == {"result": 3}


async def test_before_model_callback_editing_a_tool_declaration_does_not_leak_into_next_request():
  """google-adk FunctionTool._get_declaration returns a deep copy for exactly this reason."""
  def ping() -> str:
    """Ping."""
    return "pong"

  def tag(callback_context, llm_request):
    llm_request.config.tools[0].function_declarations[0].description += " [tagged]"

  model = ScriptedModel(["one", "two"])
  runner = InMemoryRunner(Agent(name="bot", model=model, tools=[ping], before_model_callback=tag), app_name="app")
  await run_turn(runner, "hi")
  await run_turn(runner, "again")
  assert model.requests[1].config.tools[0].function_declarations[0].description == "Ping. [tagged]"
