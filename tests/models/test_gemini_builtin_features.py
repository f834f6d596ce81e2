"""Gemini's built-in features (thinking, Google Search, code execution) on the real wire format, loopback."""

import pytest
from google.genai import types

from adk_nb import Agent
from adk_nb.models import Gemini, RetryOptions, ScriptedModel
from adk_nb.planners import BuiltInPlanner
from adk_nb.runners import InMemoryRunner
from adk_nb.testing import run_turn
from adk_nb.tools import google_search
from tests.support import function_responses, last_text

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


async def test_built_in_code_execution_on_the_wire_keeps_code_and_result_parts(server):
  from adk_nb.code_executors import BuiltInCodeExecutor

  server.reply(gemini_answer(
      {"executableCode": {"language": "PYTHON", "code": "print(sum(range(10)))"}},
      {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "45\n"}},
      {"inlineData": {"mimeType": "image/png", "data": "iVBORw0K", "displayName": "plot.png"}},
      {"text": "The sum is 45."}))
  server.reply(gemini_answer({"text": "Yes, 45."}))
  agent = Agent(name="coder", model=gemini(server), code_executor=BuiltInCodeExecutor())
  runner = InMemoryRunner(agent, app_name="wire")

  events = await run_turn(runner, "Sum 0..9 with code.")
  await run_turn(runner, "Sure?")

  first, second = (r.json for r in server.requests)
  assert first["tools"] == [{"codeExecution": {}}]
  saved, answer = events[1:]
  assert saved.actions.artifact_delta == {"plot.png": 0} and saved.content is None
  code, result, image, text = answer.content.parts
  assert code.executable_code.code == "print(sum(range(10)))"
  assert result.code_execution_result.output == "45\n" and image.text == "Saved as artifact: plot.png. "
  assert answer.text.endswith("The sum is 45.") and answer.is_final_response()
  artifact = await runner.artifact_service.load_artifact(app_name="wire", user_id="user", session_id="session",
                                                         filename="plot.png")
  assert artifact.inline_data.mime_type == "image/png"
  # The model's code and result go back to Gemini as it sent them.
  assert second["contents"][1]["parts"][0] == {"executableCode": {"language": "PYTHON", "code": "print(sum(range(10)))"}}
  assert second["contents"][1]["parts"][1] == {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "45\n"}}


async def test_url_context_on_the_wire_and_refused_for_other_models(server):
  from adk_nb.tools import url_context

  server.reply(gemini_answer({"text": "The page says hello."}, groundingMetadata=GROUNDING))
  agent = Agent(name="reader", model=gemini(server), tools=[url_context, google_search])
  events = await run_turn(InMemoryRunner(agent, app_name="wire"), "Read https://example.com/paris")
  assert server.requests[0].json["tools"] == [{"urlContext": {}}, {"googleSearch": {}}]
  assert events[-1].grounding_metadata.grounding_chunks[0].web.title == "Paris <weather>"

  other = Agent(name="reader", model=ScriptedModel(["never"]), tools=[url_context])
  with pytest.raises(ValueError, match="url_context is a Gemini built-in tool"):
    await run_turn(InMemoryRunner(other, app_name="wire"), "Read it")


async def test_google_search_can_send_the_request_to_its_own_model(server):
  from adk_nb.tools.google_search_tool import GoogleSearchTool

  server.reply(gemini_answer({"text": "Found."}))
  agent = Agent(name="searcher", model=gemini(server), tools=[GoogleSearchTool(model="gemini-2.5-pro")])
  await run_turn(InMemoryRunner(agent, app_name="wire"), "Search")
  assert server.requests[0].path.endswith("/models/gemini-2.5-pro:generateContent")


def get_time(city: str) -> str:
  """Returns the local time in a city."""
  return "10:00"


async def test_search_beside_function_tools_is_refused_before_gemini_3_with_the_fix(server):
  agent = Agent(name="helper", model=gemini(server), tools=[google_search, get_time])
  with pytest.raises(ValueError, match="bypass_multi_tools_limit=True"):
    await run_turn(InMemoryRunner(agent, app_name="wire"), "Time and news in Paris?")
  assert server.requests == []


async def test_bypass_multi_tools_limit_runs_the_search_in_an_agent_of_its_own(server):
  from adk_nb.tools.google_search_tool import GoogleSearchTool

  server.reply(gemini_answer({"functionCall": {"name": "google_search_agent", "args": {"request": "paris news"}}}))
  server.reply(gemini_answer({"text": "Paris news: sunny."}, groundingMetadata=GROUNDING))
  server.reply(gemini_answer({"text": "It is sunny in Paris."}))
  agent = Agent(name="helper", model=gemini(server),
                tools=[GoogleSearchTool(bypass_multi_tools_limit=True), get_time])
  events = await run_turn(InMemoryRunner(agent, app_name="wire"), "News in Paris?")

  main, nested, final = (r.json for r in server.requests)
  names = sorted(d["name"] for d in main["tools"][0]["functionDeclarations"])
  assert names == ["get_time", "google_search_agent"] and len(main["tools"]) == 1
  assert nested["tools"] == [{"googleSearch": {}}] and nested["contents"][0]["parts"][0]["text"] == "paris news"
  assert [r.response for r in function_responses(events)] == [{"result": "Paris news: sunny."}]
  assert last_text(events) == "It is sunny in Paris."
