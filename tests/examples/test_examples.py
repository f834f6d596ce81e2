"""Few-shot examples: what the model's system instruction holds with ExampleTool."""

import pytest
from google.genai import types

from adk_nb import Agent
from adk_nb.examples import BaseExampleProvider, Example
from adk_nb.examples.example_util import convert_examples_to_text
from adk_nb.models import ScriptedModel
from adk_nb.runners import InMemoryRunner
from adk_nb.testing import run_turn
from adk_nb.tools import ExampleTool


def text(role, value):
  return types.Content(role=role, parts=[types.Part(text=value)])


WEATHER = Example(
    input=text("user", "Weather in Paris?"),
    output=[
        types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(
            name="get_weather", args={"city": "Paris", "days": 2}))]),
        types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
            name="get_weather", response={"forecast": "sunny"}))]),
        text("model", "Sunny for two days."),
    ])

GREETING = {"input": {"role": "user", "parts": [{"text": "hi"}]},
            "output": [{"role": "model", "parts": [{"text": "Hello!"}]}]}


def test_examples_text_follows_adks_layout():
  got = convert_examples_to_text([WEATHER], "gemini-2.5-flash")
  assert got.startswith("<EXAMPLES>\nBegin few-shot\n") and got.endswith("End few-shot\n<EXAMPLES>")
  body = got[got.index("EXAMPLE 1:"):got.index("End few-shot")]
  assert body == ("EXAMPLE 1:\nBegin example\n[user]\nWeather in Paris?\n"
                  "[model]\n```\nget_weather(city='Paris', days=2)\n```\n"
                  '[user]\n```\n{"name": "get_weather", "response": {"forecast": "sunny"}}\n```\n'
                  "[model]\nSunny for two days.\nEnd example\n\n")
  other = convert_examples_to_text([WEATHER], "openai/gpt-4o")
  assert "```tool_code\nget_weather(city='Paris', days=2)\n```" in other
  assert '```tool_outputs\n{"name": "get_weather"' in other


async def test_example_tool_puts_examples_in_the_instruction_and_offers_no_function():
  model = ScriptedModel(["Hello!"])
  agent = Agent(name="helper", model=model, instruction="Be brief.", tools=[ExampleTool([WEATHER, GREETING])])
  await run_turn(InMemoryRunner(agent, app_name="ex"), "hi there")
  [request] = model.requests
  system = request.config.system_instruction
  assert system.index("Be brief.") < system.index("EXAMPLE 1:") < system.index("EXAMPLE 2:")
  assert "[user]\nhi\n[model]\nHello!\n" in system
  assert not request.config.tools and request.tools_dict == {}


class ByKeyword(BaseExampleProvider):
  def __init__(self):
    self.queries = []

  def get_examples(self, query):
    self.queries.append(query)
    return [WEATHER] if "weather" in query.lower() else []


async def test_a_provider_chooses_examples_from_the_users_message():
  provider = ByKeyword()
  model = ScriptedModel(["ok", "ok"])
  runner = InMemoryRunner(Agent(name="helper", model=model, tools=[ExampleTool(provider)]), app_name="ex")
  await run_turn(runner, [types.Part(text="Weather"), types.Part(text="tomorrow?")])
  await run_turn(runner, "Tell me a joke")
  assert provider.queries == ["Weather tomorrow?", "Tell me a joke"]
  first, second = (r.config.system_instruction for r in model.requests)
  assert "get_weather(city='Paris', days=2)" in first
  assert "EXAMPLE 1" not in second and "Begin few-shot" in second


def test_example_tool_refuses_other_input():
  with pytest.raises(TypeError, match="BaseExampleProvider"):
    ExampleTool("examples.json")
  with pytest.raises(Exception, match="input"):
    ExampleTool([{"output": []}])
