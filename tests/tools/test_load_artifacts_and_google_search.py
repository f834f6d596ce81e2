"""load_artifacts and google_search at google-adk's paths, seen from the requests the model receives."""

import pytest
from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.models import LlmRequest
from adk_nb.tools import google_search, load_artifacts
from adk_nb.tools.google_search_tool import GoogleSearchTool
from adk_nb.tools.load_artifacts_tool import load_artifacts_tool
from adk_nb.testing import ScriptedModel, call, run_turn


async def test_the_model_is_told_about_artifacts_and_gets_the_ones_it_loads():
  model = ScriptedModel([call("load_artifacts", artifact_names=["notes.txt", "gone.txt"]), "They say hello."])
  runner = InMemoryRunner(Agent(name="reader", model=model, tools=[load_artifacts]), app_name="app")
  await runner.session_service.create_session(app_name="app", user_id="user", session_id="session")
  await runner.artifact_service.save_artifact(
      app_name="app", user_id="user", session_id="session", filename="notes.txt",
      artifact=types.Part(inline_data=types.Blob(mime_type="text/plain", data=b"hello from the file")))
  await run_turn(runner, "What do my notes say?")
  first, second = model.requests
  assert "notes.txt" in first.config.system_instruction
  assert [d.name for t in first.config.tools for d in t.function_declarations] == ["load_artifacts"]
  texts = [p.text for c in second.contents[-2:] for p in c.parts]
  assert texts == ["Artifact notes.txt is:", "hello from the file", "Artifact gone.txt does not exist."]
  assert load_artifacts is load_artifacts_tool


async def test_without_artifacts_nothing_is_added_but_the_tool():
  model = ScriptedModel(["ok"])
  await run_turn(InMemoryRunner(Agent(name="reader", model=model, tools=[load_artifacts]), app_name="app"), "hi")
  assert "load_artifacts" not in (model.requests[0].config.system_instruction or "")


async def test_google_search_adds_geminis_built_in_tool_and_refuses_other_models():
  request = LlmRequest(model="gemini-2.5-flash")
  await google_search.process_llm_request(tool_context=None, llm_request=request)
  assert request.config.tools == [types.Tool(google_search=types.GoogleSearch())]
  for model in ("openai/gpt-4o", "gemini-1.5-pro"):
    with pytest.raises(ValueError, match="google_search"):
      await GoogleSearchTool().process_llm_request(tool_context=None, llm_request=LlmRequest(model=model))
