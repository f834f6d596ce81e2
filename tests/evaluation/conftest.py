"""Shared offline agents for the evaluation tests (ScriptedModel only)."""

from __future__ import annotations

import pytest
from google.genai import types

from adk_nb import Agent
from adk_nb.evaluation import EvalCase, EvalSet, IntermediateData, Invocation, SessionInput
from adk_nb.models import ScriptedModel, call
from adk_nb.tools.tool_context import ToolContext


def weather_agent(name: str = "weather", wrong_city: bool = False) -> Agent:
  """An agent that calls get_weather for 'weather <City>' and answers from the tool's result.

  'units?' answers from session state; 'boom' makes the model raise.
  """

  def get_weather(city: str, tool_context: ToolContext) -> dict:
    """Weather for a city."""
    return {"city": city, "temp": 21, "unit": tool_context.state.get("unit", "C")}

  def script(request):
    part = request.contents[-1].parts[0]
    if part.function_response is not None:
      r = part.function_response.response
      return f"It is {r['temp']} degrees {r['unit']} in {r['city']}."
    text = part.text or ""
    if "boom" in text:
      raise RuntimeError("the model exploded")
    if text.startswith("weather"):
      city = text.split()[-1]
      return call("get_weather", city="Roma" if wrong_city else city)
    return "Hello! Ask me about the weather."

  return Agent(name=name, model=ScriptedModel(script), tools=[get_weather])


def turn(query: str, answer: str, tools=()) -> Invocation:
  """An expected turn."""
  return Invocation(
      user_content=types.Content(role="user", parts=[types.Part(text=query)]),
      final_response=types.Content(role="model", parts=[types.Part(text=answer)]),
      intermediate_data=IntermediateData(tool_uses=[types.FunctionCall(name=n, args=a) for n, a in tools]),
  )


def weather_set() -> EvalSet:
  """Three cases: a two-turn pass, a state-seeded pass, and one whose expected city is wrong."""
  return EvalSet(eval_set_id="weather", eval_cases=[
      EvalCase(eval_id="hello_then_paris", conversation=[
          turn("hi", "Hello! Ask me about the weather."),
          turn("weather Paris", "It is 21 degrees C in Paris.", [("get_weather", {"city": "Paris"})]),
      ]),
      EvalCase(eval_id="fahrenheit", session_input=SessionInput(app_name="weather", user_id="u1", state={"unit": "F"}),
               conversation=[turn("weather Austin", "It is 21 degrees F in Austin.",
                                  [("get_weather", {"city": "Austin"})])]),
      EvalCase(eval_id="rome_expected_roma", conversation=[
          turn("weather Rome", "It is 21 degrees C in Rome.", [("get_weather", {"city": "Roma"})])]),
  ])


@pytest.fixture
def make_weather_agent():
  return weather_agent


@pytest.fixture
def make_turn():
  return turn


@pytest.fixture
def make_weather_set():
  return weather_set
