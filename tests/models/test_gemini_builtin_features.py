"""Gemini's built-in features (thinking, Google Search, code execution) on the real wire format, loopback."""

import pytest
from google.genai import types

from adk_nb import Agent
from adk_nb.models import Gemini, RetryOptions, ScriptedModel
from adk_nb.planners import BuiltInPlanner
from adk_nb.runners import InMemoryRunner
from adk_nb.testing import run_turn
from adk_nb.tools import google_search

FAST = RetryOptions(attempts=2, initial_delay=0.01, max_delay=0.02)


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
  monkeypatch.setenv("GOOGLE_API_KEY", "test-key")


def gemini_answer(*parts, **candidate):
  return {"candidates": [{"content": {"role": "model", "parts": list(parts)}, "finishReason": "STOP", **candidate}],
          "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 3, "totalTokenCount": 12}}


def camel(value):
  """JSON with camelCase keys (google-genai sends some nested configs in snake_case; the API takes both)."""
  if isinstance(value, dict):
    return {"".join(w.capitalize() if i else w for i, w in enumerate(k.split("_"))): camel(v)
            for k, v in value.items()}
  if isinstance(value, list):
    return [camel(v) for v in value]
  return value


def gemini(server):
  return Gemini(model="gemini-2.5-flash", base_url=server.url, retry_options=FAST)


async def test_built_in_planner_thinking_on_the_wire_and_thoughts_on_events(server):
  server.reply(gemini_answer({"text": "Considering the forecast.", "thought": True},
                             {"text": "Sunny.", "thoughtSignature": "c2ln"}))
  server.reply(gemini_answer({"text": "Still sunny."}))
  agent = Agent(name="thinker", model=gemini(server), planner=BuiltInPlanner(
      thinking_config=types.ThinkingConfig(include_thoughts=True, thinking_budget=512)))
  runner = InMemoryRunner(agent, app_name="wire")

  events = await run_turn(runner, "Weather?")
  await run_turn(runner, "Now?")

  first, second = (r.json for r in server.requests)
  assert camel(first["generationConfig"]["thinkingConfig"]) == {"includeThoughts": True, "thinkingBudget": 512}
  answer = events[-1]
  assert [(p.text, bool(p.thought)) for p in answer.content.parts] == [
      ("Considering the forecast.", True), ("Sunny.", False)]
  assert answer.text == "Sunny."
  # The next request sends the answer with its signature back, and not the thought.
  assert second["contents"][1] == {"role": "model", "parts": [{"text": "Sunny.", "thoughtSignature": "c2ln"}]}


GROUNDING = {"webSearchQueries": ["weather paris"],
             "groundingChunks": [{"web": {"uri": "https://example.com/paris", "title": "Paris <weather>"}}],
             "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 6, "text": "Sunny."},
                                    "groundingChunkIndices": [0]}]}


async def test_google_search_on_the_wire_and_grounding_kept_on_the_event(server):
  server.reply(gemini_answer({"text": "Sunny."}, groundingMetadata=GROUNDING))
  agent = Agent(name="searcher", model=gemini(server), tools=[google_search])
  runner = InMemoryRunner(agent, app_name="wire")

  events = await run_turn(runner, "Weather in Paris?")

  [sent] = server.requests
  assert sent.json["tools"] == [{"googleSearch": {}}]
  answer = events[-1]
  assert answer.text == "Sunny."
  grounding = answer.grounding_metadata
  assert grounding.web_search_queries == ["weather paris"]
  assert grounding.grounding_chunks[0].web.uri == "https://example.com/paris"
  stored = await runner.session_service.get_session(app_name="wire", user_id="user", session_id="session")
  assert stored.events[-1].grounding_metadata == grounding


async def test_google_search_with_a_non_gemini_model_is_refused_before_any_call():
  model = ScriptedModel(["never"])
  agent = Agent(name="searcher", model=model, tools=[google_search])
  with pytest.raises(ValueError, match="Gemini built-in tool"):
    await run_turn(InMemoryRunner(agent, app_name="wire"), "Weather?")
  assert model.requests == []
