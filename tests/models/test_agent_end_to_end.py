"""An Agent with a Python tool, run by InMemoryRunner on Gemini and LiteLlm against loopback servers."""

import pytest
from google.genai import types

from adk_nb import Agent
from adk_nb.agents.run_config import RunConfig, StreamingMode
from adk_nb.models import Cassette, Gemini, LiteLlm, RetryOptions
from adk_nb.models._retry import ModelServerError
from adk_nb.runners import InMemoryRunner
from tests.support import last_text

FAST = RetryOptions(attempts=2, initial_delay=0.01, max_delay=0.02)


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
  monkeypatch.setenv("GOOGLE_API_KEY", "test-key")


def get_weather(city: str) -> dict:
  """Returns the forecast for a city."""
  return {"city": city, "forecast": "sunny"}


def gemini_answer(*parts):
  return {"candidates": [{"content": {"role": "model", "parts": list(parts)}, "finishReason": "STOP"}],
          "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 3, "totalTokenCount": 12}}


def openai_answer(content=None, tool_calls=None):
  message = {"role": "assistant", "content": content}
  if tool_calls:
    message["tool_calls"] = tool_calls
  return {"id": "c", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini",
          "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
          "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}}


async def run_agent(model, text="Weather in Paris?", streaming=False):
  agent = Agent(name="weather", model=model, instruction="Answer weather questions.", tools=[get_weather])
  runner = InMemoryRunner(agent=agent, app_name="weather_app")
  session = await runner.session_service.create_session(app_name="weather_app", user_id="u1")
  config = RunConfig(streaming_mode=StreamingMode.SSE if streaming else StreamingMode.NONE)
  events = [e async for e in runner.run_async(
      user_id="u1", session_id=session.id, run_config=config,
      new_message=types.Content(role="user", parts=[types.Part(text=text)]))]
  stored = await runner.session_service.get_session(app_name="weather_app", user_id="u1", session_id=session.id)
  return events, stored


def observable(events):
  """What a user sees of each event (ids and timestamps differ between runs)."""
  out = []
  for e in events:
    content = e.content.model_dump(mode="json", exclude_none=True) if e.content else None
    for part in (content or {}).get("parts", []):
      for key in ("function_call", "function_response"):
        if key in part:
          part[key].pop("id", None)
    out.append((e.author, bool(e.partial), content, e.error_code, e.finish_reason,
                e.usage_metadata.total_token_count if e.usage_metadata else None))
  return out


async def test_gemini_agent_calls_the_tool_and_answers(server):
  server.reply(gemini_answer({"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}))
  server.reply(gemini_answer({"text": "It is sunny in Paris."}))
  events, _ = await run_agent(Gemini(model="gemini-2.5-flash", base_url=server.url, retry_options=FAST))

  call, response, answer = [e for e in events if e.author == "weather"]
  [fc] = call.get_function_calls()
  assert (fc.name, fc.args) == ("get_weather", {"city": "Paris"}) and fc.id
  [fr] = response.get_function_responses()
  assert fr.id == fc.id and fr.response == {"city": "Paris", "forecast": "sunny"}
  assert answer.content.parts[0].text == "It is sunny in Paris." and answer.is_final_response()

  first, second = (r.json for r in server.requests)
  assert "Answer weather questions." in first["systemInstruction"]["parts"][0]["text"]
  assert first["tools"][0]["functionDeclarations"][0]["name"] == "get_weather"
  assert second["contents"][1]["parts"][0]["functionCall"] == {"name": "get_weather", "args": {"city": "Paris"}}
  assert second["contents"][2]["parts"][0]["functionResponse"] == {
      "name": "get_weather", "response": {"city": "Paris", "forecast": "sunny"}}


async def test_gemini_streaming_run_forwards_partials_and_stores_only_final_events(server):
  server.stream([gemini_answer({"text": "Let me "}), gemini_answer(
      {"text": "check."}, {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}})])
  server.stream([gemini_answer({"text": "Sunny "}), gemini_answer({"text": "in Paris."})])
  events, stored = await run_agent(Gemini(model="gemini-2.5-flash", base_url=server.url), streaming=True)

  texts = [(e.partial, e.content.parts[0].text) for e in events if e.author == "weather" and e.partial]
  assert texts == [(True, "Let me "), (True, "check."), (True, "Sunny "), (True, "in Paris.")]
  final = [e for e in events if e.author == "weather" and not e.partial]
  assert final[0].content.parts[0].text == "Let me check." and final[0].get_function_calls()
  assert final[-1].content.parts[0].text == "Sunny in Paris."
  assert not any(e.partial for e in stored.events)
  assert len(stored.events) == 4  # user, call, response, answer


async def test_lite_llm_agent_with_parallel_tool_calls(server):
  server.reply(openai_answer(tool_calls=[
      {"id": "call_p", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
      {"id": "call_r", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}}]))
  server.reply(openai_answer("Sunny in both."))
  llm = LiteLlm(model="openai/gpt-4o-mini", api_base=server.url + "/v1", api_key="sk-test", retry_options=FAST)
  events, _ = await run_agent(llm, "Paris and Rome?")

  assert last_text(events) == "Sunny in both."
  messages = server.requests[1].json["messages"]
  assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool"]
  assert [t["id"] for t in messages[2]["tool_calls"]] == ["call_p", "call_r"]
  assert [(m["tool_call_id"], m["content"]) for m in messages[3:]] == [
      ("call_p", '{"city": "Paris", "forecast": "sunny"}'), ("call_r", '{"city": "Rome", "forecast": "sunny"}')]


async def test_lite_llm_bad_tool_arguments_become_an_error_the_model_recovers_from(server):
  server.reply(openai_answer(tool_calls=[
      {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": Paris}'}}]))
  server.reply(openai_answer(tool_calls=[
      {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]))
  server.reply(openai_answer("Sunny."))
  llm = LiteLlm(model="openai/gpt-4o-mini", api_base=server.url + "/v1", api_key="sk-test", retry_options=FAST)
  events, _ = await run_agent(llm)

  assert last_text(events) == "Sunny."
  second = server.requests[1].json["messages"]
  assert second[2]["tool_calls"][0]["function"]["arguments"] == '{"city": Paris}'
  assert second[3]["role"] == "tool" and "not valid JSON" in second[3]["content"]
  third = server.requests[2].json["messages"]
  assert third[-1] == {"role": "tool", "tool_call_id": "call_2", "content": '{"city": "Paris", "forecast": "sunny"}'}


async def test_a_model_that_keeps_failing_ends_the_run_with_an_error_event(server, retry_waits):
  for _ in range(2):
    server.reply({"error": {"code": 503, "message": "Overloaded", "status": "UNAVAILABLE"}}, status=503)
  with pytest.raises(ModelServerError, match="HTTP 503"):
    await run_agent(Gemini(model="gemini-2.5-flash", base_url=server.url, retry_options=FAST))
  assert len(server.requests) == 2


def test_model_names_resolve_to_adapters():
  assert isinstance(Agent(name="a", model="gemini-2.5-flash").canonical_model, Gemini)
  assert isinstance(Agent(name="b", model="openai/gpt-4o-mini").canonical_model, LiteLlm)


async def test_a_recorded_agent_run_replays_offline_with_identical_events(server, tmp_path):
  server.stream([gemini_answer({"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}})])
  server.stream([gemini_answer({"text": "Sunny "}), gemini_answer({"text": "in Paris."})])
  cassette = Cassette(tmp_path / "weather.json")
  recorded, _ = await run_agent(cassette.record(Gemini(model="gemini-2.5-flash", base_url=server.url)),
                                streaming=True)
  calls_made = len(server.requests)

  replay = cassette.replay()
  replayed, _ = await run_agent(replay, streaming=True)

  assert observable(replayed) == observable(recorded)
  assert len(server.requests) == calls_made == 2
  replay.assert_complete()


async def test_gemini_api_requests_leave_out_the_labels_only_vertex_accepts(server):
  server.reply(gemini_answer({"text": "Sunny."}))
  await run_agent(Gemini(model="gemini-2.5-flash", base_url=server.url))
  assert "labels" not in server.requests[0].json
  assert server.requests[0].json["contents"][0]["parts"][0]["text"] == "Weather in Paris?"


async def test_gemini_api_requests_leave_out_media_display_names_only_vertex_accepts(server):
  server.reply(gemini_answer({"text": "A cat."}))
  agent = Agent(name="looker", model=Gemini(model="gemini-2.5-flash", base_url=server.url))
  runner = InMemoryRunner(agent=agent, app_name="app")
  session = await runner.session_service.create_session(app_name="app", user_id="u1")
  image = types.Part(inline_data=types.Blob(data=b"\x89PNG", mime_type="image/png", display_name="cat.png"))
  linked = types.Part(file_data=types.FileData(file_uri="gs://b/cat.png", mime_type="image/png", display_name="cat"))
  message = types.Content(role="user", parts=[types.Part(text="What is this?"), image, linked])
  [e async for e in runner.run_async(user_id="u1", session_id=session.id, new_message=message)]
  sent = server.requests[0].json["contents"][0]["parts"]
  blob, ref = sent[1]["inlineData"], sent[2]["fileData"]
  assert blob["data"] == "iVBORw==" and {"fileUri", "file_uri"} & set(ref)
  assert not {"displayName", "display_name"} & (set(blob) | set(ref))
  stored = await runner.session_service.get_session(app_name="app", user_id="u1", session_id=session.id)
  assert stored.events[0].content.parts[1].inline_data.display_name == "cat.png"  # the session keeps it
