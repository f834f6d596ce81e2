"""Function declarations at google-adk's paths, and parameters named with a leading underscore."""

import pytest
from google.genai import types
from pydantic import BaseModel

from adk_nb import Agent, InMemoryRunner
from adk_nb.testing import ScriptedModel, call, run_turn
from adk_nb.tools import FunctionTool
from adk_nb.tools._automatic_function_calling_util import build_function_declaration, from_function_with_options
from adk_nb.utils.variant_utils import GoogleLLMVariant, get_google_llm_variant


class Place(BaseModel):
  city: str


def forecast(place: Place, days: int = 1) -> dict:
  """Forecast for a place."""
  return {"city": place.city, "days": days}


def test_declarations_as_schema_objects_with_the_vertex_response_type():
  gemini = from_function_with_options(forecast, GoogleLLMVariant.GEMINI_API)
  assert gemini.name == "forecast" and gemini.response is None
  assert gemini.parameters.properties["days"].type == types.Type.INTEGER
  assert gemini.parameters.properties["place"].properties["city"].type == types.Type.STRING
  vertex = from_function_with_options(forecast, GoogleLLMVariant.VERTEX_AI)
  assert vertex.response.type == types.Type.OBJECT
  assert "days" not in build_function_declaration(forecast, ignore_params=["days"]).parameters_json_schema["properties"]


@pytest.mark.parametrize("env, variant", [({}, "GEMINI_API"), ({"GOOGLE_GENAI_USE_VERTEXAI": "true"}, "VERTEX_AI")])
def test_the_variant_follows_the_environment(monkeypatch, env, variant):
  monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
  monkeypatch.delenv("GOOGLE_GENAI_USE_ENTERPRISE", raising=False)
  for key, value in env.items():
    monkeypatch.setenv(key, value)
  assert get_google_llm_variant().value == variant


async def test_a_parameter_with_a_leading_underscore_keeps_its_name_for_the_model():
  def echo(_text: str) -> str:
    """Echoes."""
    return _text

  model = ScriptedModel([call("echo", _text="hi"), "done"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[echo]), app_name="app")
  events = await run_turn(runner, "go")
  assert list(model.requests[0].tools_dict["echo"]._get_declaration().parameters_json_schema["properties"]) == ["_text"]
  [answer] = [r for e in events for r in e.get_function_responses()]
  assert answer.response == {"result": "hi"}


def test_preprocess_args_converts_what_converts_and_keeps_the_rest():
  tool = FunctionTool(forecast)
  converted = tool._preprocess_args({"place": {"city": "Oslo"}, "days": "3"})
  assert converted == {"place": Place(city="Oslo"), "days": 3}
  assert tool._preprocess_args({"place": "nowhere"}) == {"place": "nowhere"}
