"""Gemma on the Gemini API (loopback server, real wire format): tools and instruction go in as text,
a JSON call in the answer comes back as a function call that runs the tool."""

from __future__ import annotations

import pytest

from adk_nb import Agent, InMemoryRunner
from adk_nb.models.gemma_llm import Gemma, function_call_in
from adk_nb.models.registry import LLMRegistry
from adk_nb.testing import run_turn

from tests.models.test_google_llm import answer
from tests.support import last_text


@pytest.fixture(autouse=True)
def _api_key(monkeypatch):
  monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
  monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)


def texts(content: dict) -> str:
  return " | ".join(p.get("text", "") for p in content["parts"])


async def test_a_tool_call_made_in_text_runs_the_tool(server):
  calls = []

  def get_weather(city: str) -> dict:
    """Returns the weather for a city."""
    calls.append(city)
    return {"temp_c": 21}

  server.reply(answer({"text": 'Sure.\n```json\n{"name": "get_weather", "parameters": {"city": "Paris"}}\n```'}))
  server.reply(answer({"text": "It is 21 °C in Paris."}))
  agent = Agent(name="w", model=Gemma(model="gemma-3-27b-it", base_url=server.url),
                instruction="Answer weather questions.", tools=[get_weather])
  events = await run_turn(InMemoryRunner(agent, app_name="app"), "Weather in Paris?")

  assert calls == ["Paris"]
  assert last_text(events) == "It is 21 °C in Paris."
  first, second = server.requests[0].json, server.requests[1].json
  assert "tools" not in first and "systemInstruction" not in first
  lead = texts(first["contents"][0])
  assert "Answer weather questions." in lead and '"get_weather"' in lead and "Weather in Paris?" in lead
  roles = [c["role"] for c in second["contents"]]
  assert roles == ["user", "model", "user"]
  assert '"name": "get_weather"' in texts(second["contents"][1])
  assert texts(second["contents"][2]) == 'Result of get_weather: {"temp_c": 21}'


def test_only_a_declared_function_is_a_call_and_the_last_one_counts():
  names = {"book"}
  assert function_call_in('I would call {"name": "delete_all", "parameters": {}}', names) is None
  call = function_call_in('{"name": "book", "parameters": {"n": 1}} then {"name": "book", "args": {"n": 2}}', names)
  assert call.name == "book" and call.args == {"n": 2}
  assert function_call_in("no json here {not json", names) is None


def test_gemma_names_resolve_to_gemma():
  assert LLMRegistry.resolve("gemma-3-27b-it") is Gemma
