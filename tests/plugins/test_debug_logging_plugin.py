"""DebugLoggingPlugin: the YAML file a Runner turn leaves, read back as a user's tooling reads it
(google-adk 2.x's format: one document per invocation, its entry types and fields)."""

import os
import sys

import pytest
import yaml

from adk_nb import Agent, InMemoryRunner
from adk_nb.plugins import DebugLoggingPlugin, ReflectAndRetryToolPlugin, ToolResultClassification
from adk_nb.testing import ScriptedModel, call, run_turn


def get_weather(city: str) -> dict:
  """The weather in a city."""
  return {"city": city, "temp_c": 21, "api_key": "sk-do-not-log"}


def broken(city: str) -> dict:
  """Always fails."""
  raise ValueError("weather service down")


def documents(path):
  with open(path) as f:
    return list(yaml.safe_load_all(f))


def of_type(document, entry_type):
  return [e for e in document["entries"] if e["entry_type"] == entry_type]


async def test_a_turn_writes_one_document_with_googles_entries_fields_and_redaction(tmp_path):
  path = tmp_path / "adk_debug.yaml"
  model = ScriptedModel([call("get_weather", city="Oslo"), "Sunny in Oslo."])
  agent = Agent(name="weather", model=model, instruction="Be brief.", tools=[get_weather], output_key="answer")
  runner = InMemoryRunner(agent, app_name="app", plugins=[DebugLoggingPlugin(output_path=str(path))])
  await run_turn(runner, "Weather in Oslo?")
  [doc] = documents(path)
  assert os.stat(path).st_mode & 0o777 == 0o600  # whole prompts: readable by the owner only
  assert list(doc) == ["invocation_id", "session_id", "app_name", "user_id", "start_time", "entries"]
  assert (doc["app_name"], doc["user_id"], doc["session_id"]) == ("app", "user", "session")
  types_ = [e["entry_type"] for e in doc["entries"]]
  assert types_ == ["invocation_start", "agent_start", "llm_request", "llm_response", "event", "tool_call",
                    "tool_response", "event", "llm_request", "llm_response", "event", "agent_end",
                    "session_state_snapshot", "invocation_end"]
  for entry in doc["entries"]:
    assert entry["invocation_id"] == doc["invocation_id"] and "timestamp" in entry
  first_request = of_type(doc, "llm_request")[0]["data"]
  assert first_request["tools"] == ["get_weather"] and first_request["content_count"] == 1
  assert first_request["contents"] == [{"role": "user", "parts": [{"text": "Weather in Oslo?"}]}]
  assert first_request["config"]["system_instruction"].startswith("Be brief.")
  tool_call = of_type(doc, "tool_call")[0]["data"]
  assert tool_call["tool_name"] == "get_weather" and tool_call["args"] == {"city": "Oslo"}
  result = of_type(doc, "tool_response")[0]["data"]["result"]
  assert result == {"city": "Oslo", "temp_c": 21, "api_key": "[REDACTED]"}
  final = of_type(doc, "event")[-1]["data"]
  assert final["is_final_response"] is True and final["actions"] == {"state_delta": {"answer": "Sunny in Oslo."}}
  snapshot = of_type(doc, "session_state_snapshot")[0]["data"]
  assert snapshot == {"state": {"answer": "Sunny in Oslo."}, "event_count": 4}


async def test_each_invocation_is_appended_and_options_are_honoured(tmp_path):
  path = tmp_path / "debug.yaml"
  plugin = DebugLoggingPlugin(output_path=str(path), include_session_state=False, include_system_instruction=False)
  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel(["one", "two"]), instruction="Secret prompt."),
                          app_name="app", plugins=[plugin])
  await run_turn(runner, "first")
  await run_turn(runner, "second")
  docs = documents(path)
  assert len(docs) == 2 and docs[0]["invocation_id"] != docs[1]["invocation_id"]
  config = of_type(docs[1], "llm_request")[0]["data"]["config"]
  assert "system_instruction" not in config and config["system_instruction_length"] > len("Secret prompt.")
  assert not of_type(docs[1], "session_state_snapshot")
  assert "Secret prompt." not in path.read_text()


async def test_a_raised_tool_error_is_recorded_once_even_when_retry_answers_it(tmp_path):
  path = tmp_path / "debug.yaml"
  model = ScriptedModel([call("broken", city="Oslo"), "Sorry."])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[broken]), app_name="app",
                          plugins=[DebugLoggingPlugin(output_path=str(path)), ReflectAndRetryToolPlugin()])
  await run_turn(runner, "weather")
  [doc] = documents(path)
  errors = of_type(doc, "tool_error")
  assert len(errors) == 1 and not of_type(doc, "tool_response")
  assert errors[0]["data"]["error_type"] == "ValueError" and errors[0]["data"]["error_message"] == "weather service down"


async def test_a_classifier_turns_a_result_into_a_tool_error(tmp_path):
  path = tmp_path / "debug.yaml"

  def classify(*, tool, tool_args, tool_context, result):
    return ToolResultClassification(status="ERROR", error_message="too warm") if result["temp_c"] > 20 else None

  model = ScriptedModel([call("get_weather", city="Oslo"), "ok"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[get_weather]), app_name="app",
                          plugins=[DebugLoggingPlugin(output_path=str(path), tool_result_classifier=classify)])
  await run_turn(runner, "weather")
  [error] = of_type(documents(path)[0], "tool_error")
  assert error["data"]["error_message"] == "too warm" and error["data"]["result"]["api_key"] == "[REDACTED]"


def test_a_classifier_that_cannot_be_called_as_google_adk_calls_it_is_refused():
  async def asynchronous(*, tool, tool_args, tool_context, result):
    return None

  with pytest.raises(ValueError, match="synchronous"):
    DebugLoggingPlugin(tool_result_classifier=asynchronous)
  with pytest.raises(ValueError, match="tool, tool_args, tool_context and result"):
    DebugLoggingPlugin(tool_result_classifier=lambda result: None)


def test_without_pyyaml_the_constructor_names_the_install(monkeypatch):
  monkeypatch.setitem(sys.modules, "yaml", None)
  with pytest.raises(ImportError, match="pip install pyyaml"):
    DebugLoggingPlugin()


# google-adk 2.13's sentences for these verdicts; adk_nb records the same facts in its own words.
_GOOGLE_ADK_WORDING = ("Tool returned an MCP result with isError=true.",
                       "tool_result_classifier classified the tool result as an error.")


async def test_an_error_result_is_recorded_as_a_tool_error_in_adk_nbs_own_words(tmp_path):
  path = tmp_path / "debug.yaml"

  def flagged(city: str) -> dict:
    """An MCP-style result that reports an error without raising."""
    return {"isError": True, "content": [{"type": "text", "text": "no such city"}]}

  def classify(*, tool, tool_args, tool_context, result):
    return ToolResultClassification(status="ERROR") if tool.name == "get_weather" else None

  model = ScriptedModel([[call("flagged", city="Oslo"), call("get_weather", city="Oslo")], "ok"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[flagged, get_weather]), app_name="app",
                          plugins=[DebugLoggingPlugin(output_path=str(path), tool_result_classifier=classify)])
  await run_turn(runner, "weather")
  errors = {e["data"]["tool_name"]: e["data"]["error_message"] for e in of_type(documents(path)[0], "tool_error")}
  assert set(errors) == {"flagged", "get_weather"}
  assert "isError" in errors["flagged"] and "tool_result_classifier" in errors["get_weather"]
  assert not set(errors.values()) & set(_GOOGLE_ADK_WORDING)
