"""AnthropicLlm and Claude against a loopback server speaking Anthropic's Messages API (JSON and SSE)."""

import subprocess
import sys

import pytest
from google.genai import types

from adk_nb import Agent
from adk_nb.agents.run_config import RunConfig, StreamingMode
from adk_nb.models import LLMRegistry, RealModelCallBlocked
from adk_nb.models._retry import ModelAuthError, ModelCallError, ModelRateLimitError, ModelServerError, RetryOptions
from adk_nb.models.anthropic_llm import (
    AnthropicLlm,
    Claude,
    content_block_to_part,
    content_to_message_param,
    function_declaration_to_tool_param,
    message_to_generate_content_response,
    part_to_message_block,
    to_claude_role,
    to_google_genai_finish_reason,
)
from adk_nb.runners import InMemoryRunner
from adk_nb.testing import WEATHER, llm_request, summarize
from adk_nb.testing import user_message as user

FAST = RetryOptions(attempts=3, initial_delay=0.01, max_delay=0.05)


@pytest.fixture(autouse=True)
def _api_key(monkeypatch):
  monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
  for name in ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"):
    monkeypatch.delenv(name, raising=False)


def message(*blocks, stop="end_turn", usage=(11, 4), model="claude-sonnet-4-20250514"):
  """A Messages API response body, as the API sends it."""
  return {"id": "msg_01", "type": "message", "role": "assistant", "model": model, "content": list(blocks),
          "stop_reason": stop, "stop_sequence": None,
          "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}}


def text(t):
  return {"type": "text", "text": t}


def tool_use(name, args, id="toolu_01"):
  return {"type": "tool_use", "id": id, "name": name, "input": args}


def sse(*blocks, stop="end_turn", usage=(11, 4)):
  """The named SSE events of a streamed answer; a block is ('text', [chunks]) or ('tool_use', id, name, [json])."""
  events = [("message_start", {"type": "message_start", "message": {
      **message(stop=None, usage=(usage[0], 1)), "content": []}})]
  for index, block in enumerate(blocks):
    if block[0] == "text":
      start, deltas = {"type": "text", "text": ""}, [{"type": "text_delta", "text": c} for c in block[1]]
    else:
      start = {"type": "tool_use", "id": block[1], "name": block[2], "input": {}}
      deltas = [{"type": "input_json_delta", "partial_json": c} for c in block[3]]
    events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}))
    events += [("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
  events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                   "usage": {"output_tokens": usage[1]}}))
  events.append(("message_stop", {"type": "message_stop"}))
  return events


def error(status, kind, msg):
  return {"type": "error", "error": {"type": kind, "message": msg}}


def model(server, **kwargs):
  return AnthropicLlm(model="claude-sonnet-4-20250514", base_url=server.url,
                      retry_options=kwargs.pop("retry", FAST), **kwargs)


def request(*contents, tools=True, **config):
  return llm_request("claude-sonnet-4-20250514", *contents, tools=[WEATHER] if tools else (),
                     system_instruction="You are terse.", **config)


async def collect(llm, req, stream=False):
  return [r async for r in llm.generate_content_async(req, stream=stream)]


async def test_text_answer_and_what_the_server_received(server):
  server.reply(message(text("Hello there.")))
  [resp] = await collect(model(server), request(user("Hi"), temperature=0.2, max_output_tokens=50,
                                                stop_sequences=["END"]))

  assert resp.content.role == "model" and resp.content.parts[0].text == "Hello there."
  assert resp.finish_reason == types.FinishReason.STOP
  usage = resp.usage_metadata
  assert (usage.prompt_token_count, usage.candidates_token_count, usage.total_token_count) == (11, 4, 15)
  assert resp.model_version == "claude-sonnet-4-20250514"
  [got] = server.requests
  assert got.path == "/v1/messages"
  headers = {k.lower(): v for k, v in got.headers.items()}
  # The key travels as x-api-key (SDK 0.x) or as a bearer token (SDK 2.x).
  assert "sk-ant-test" in (headers.get("x-api-key"), headers.get("authorization", "").removeprefix("Bearer "))
  assert headers["anthropic-version"]
  body = got.json
  assert body["model"] == "claude-sonnet-4-20250514"
  assert body["system"] == "You are terse."
  assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]
  assert (body["max_tokens"], body["temperature"], body["stop_sequences"]) == (50, 0.2, ["END"])
  assert body["tools"] == [{"name": "get_weather", "description": "Weather for a city.", "input_schema": {
      "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]
  assert body["tool_choice"] == {"type": "auto"}
  assert "stream" not in body


async def test_tool_use_round_trip_sends_tool_use_and_tool_result_blocks(server):
  server.reply(message(text("Let me look."), tool_use("get_weather", {"city": "Paris"}), stop="tool_use"))
  [first] = await collect(model(server), request(user("Weather in Paris?")))
  assert [p.text for p in first.content.parts if p.text] == ["Let me look."]
  call = first.content.parts[1].function_call
  assert (call.id, call.name, call.args) == ("toolu_01", "get_weather", {"city": "Paris"})
  assert first.finish_reason == types.FinishReason.STOP

  server.reply(message(text("Sunny.")))
  answer = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
      id="toolu_01", name="get_weather", response={"forecast": "sunny"}))])
  await collect(model(server), request(user("Weather in Paris?"), first.content, answer))
  sent = server.requests[1].json["messages"]
  assert sent[1] == {"role": "assistant", "content": [
      {"type": "text", "text": "Let me look."},
      {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}}]}
  assert sent[2] == {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
                                                  "content": '{"forecast": "sunny"}', "is_error": False}]}


async def test_streaming_text_yields_partials_as_they_arrive_then_the_whole_text(server):
  server.stream(sse(("text", ["Hel", "lo ", "there."]), usage=(11, 6)))
  responses = await collect(model(server), request(user("Hi")), stream=True)

  assert [(r.partial, r.content.parts[0].text) for r in responses] == [
      (True, "Hel"), (True, "lo "), (True, "there."), (False, "Hello there.")]
  final = responses[-1]
  assert final.finish_reason == types.FinishReason.STOP
  assert (final.usage_metadata.prompt_token_count, final.usage_metadata.candidates_token_count) == (11, 6)
  assert server.requests[0].json["stream"] is True


async def test_streaming_tool_use_assembles_input_json_deltas(server):
  server.stream(sse(("text", ["Checking."]), ("tool_use", "toolu_9", "get_weather", ['{"ci', 'ty": "Par', 'is"}']),
                    stop="tool_use"))
  responses = await collect(model(server), request(user("Weather?")), stream=True)

  assert [r.partial for r in responses] == [True, False]  # argument fragments are not shown as calls
  final = responses[-1]
  assert final.content.parts[0].text == "Checking."
  call = final.content.parts[1].function_call
  assert (call.id, call.name, call.args) == ("toolu_9", "get_weather", {"city": "Paris"})


async def test_rate_limit_then_success_honours_retry_after(server, retry_waits):
  server.reply(error(429, "rate_limit_error", "slow down"), status=429, headers={"retry-after": "0.03"})
  server.reply(message(text("ok")))
  [resp] = await collect(model(server), request(user("Hi")))
  assert resp.content.parts[0].text == "ok"
  assert retry_waits == [0.03] and len(server.requests) == 2


async def test_rate_limit_exhausting_retries_names_the_fix(server, retry_waits):
  for _ in range(3):
    server.reply(error(429, "rate_limit_error", "slow down"), status=429)
  with pytest.raises(ModelRateLimitError) as e:
    await collect(model(server), request(user("Hi")))
  assert "slow down" in str(e.value) and "RetryOptions.attempts" in str(e.value)
  assert e.value.attempts == 3


async def test_overloaded_529_is_retried_then_reported_as_a_server_error(server, retry_waits):
  server.reply(error(529, "overloaded_error", "Overloaded"), status=529)
  server.reply(error(500, "api_error", "boom"), status=500)
  server.reply(error(529, "overloaded_error", "Overloaded"), status=529)
  with pytest.raises(ModelServerError) as e:
    await collect(model(server), request(user("Hi")))
  assert "HTTP 529" in str(e.value) and "overloaded_error: Overloaded" in str(e.value)
  assert len(retry_waits) == 2


async def test_streaming_request_is_retried_before_the_first_event(server, retry_waits):
  server.reply(error(503, "api_error", "unavailable"), status=503)
  server.stream(sse(("text", ["fine"])))
  responses = await collect(model(server), request(user("Hi")), stream=True)
  assert responses[-1].content.parts[0].text == "fine" and len(retry_waits) == 1


async def test_bad_request_is_not_retried_and_keeps_the_providers_words(server, retry_waits):
  server.reply(error(400, "invalid_request_error", "messages: text content blocks must be non-empty"), status=400)
  with pytest.raises(ModelCallError) as e:
    await collect(model(server), request(user("Hi")))
  assert e.value.status_code == 400 and "must be non-empty" in str(e.value)
  assert retry_waits == []


async def test_rejected_key_names_the_fix(server):
  server.reply(error(401, "authentication_error", "invalid x-api-key"), status=401)
  with pytest.raises(ModelAuthError) as e:
    await collect(model(server), request(user("Hi")))
  assert "ANTHROPIC_API_KEY" in str(e.value) and "invalid x-api-key" in str(e.value)


async def test_missing_api_key_names_the_fix_before_any_request(server, monkeypatch):
  monkeypatch.delenv("ANTHROPIC_API_KEY")
  with pytest.raises(ModelAuthError) as e:
    await collect(model(server), request(user("Hi")))
  assert "ANTHROPIC_API_KEY" in str(e.value) and "AnthropicLlm(api_key=...)" in str(e.value)
  assert server.requests == []


async def test_real_endpoints_are_blocked_in_tests():
  with pytest.raises(RealModelCallBlocked):
    await collect(AnthropicLlm(model="claude-sonnet-4-20250514"), request(user("Hi")))


async def test_an_output_schema_travels_as_a_forced_tool_and_comes_back_as_json_text(server):
  schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
  server.reply(message(text("Here it is."), tool_use("structured_output", {"city": "Paris"}), stop="tool_use"))
  [resp] = await collect(model(server), request(user("Where?"), tools=False, response_json_schema=schema))

  assert [p.text for p in resp.content.parts] == ['{"city": "Paris"}']
  body = server.requests[0].json
  assert [t["name"] for t in body["tools"]] == ["structured_output"]
  assert body["tools"][0]["input_schema"] == schema
  assert body["tool_choice"] == {"type": "tool", "name": "structured_output", "disable_parallel_tool_use": True}


async def test_a_list_schema_is_wrapped_in_an_object_and_unwrapped_in_a_streamed_answer(server):
  server.stream(sse(("tool_use", "toolu_s", "structured_output", ['{"response": ["a", ', '"b"]}']), stop="tool_use"))
  responses = await collect(model(server), request(user("Letters?"), tools=False, response_schema=list[str]),
                            stream=True)

  assert responses[-1].content.parts[0].text == '["a", "b"]' and responses[-1].partial is False
  sent = server.requests[0].json["tools"][0]["input_schema"]
  assert sent == {"type": "object", "properties": {"response": {"type": "array", "items": {"type": "string"}}},
                  "required": ["response"]}


async def test_thinking_blocks_round_trip_with_their_signature(server):
  server.reply(message({"type": "thinking", "thinking": "Paris is in France.", "signature": "sig=="}, text("Yes.")))
  [resp] = await collect(model(server), request(user("Hi"), thinking_config=types.ThinkingConfig(thinking_budget=2048)))
  thought = resp.content.parts[0]
  assert thought.thought and thought.text == "Paris is in France." and thought.thought_signature == b"sig=="
  assert server.requests[0].json["thinking"] == {"type": "enabled", "budget_tokens": 2048}
  assert part_to_message_block(thought) == {"type": "thinking", "thinking": "Paris is in France.",
                                            "signature": "sig=="}


def test_converters_at_google_adks_names():
  assert to_claude_role("model") == "assistant" and to_claude_role("user") == "user"
  assert to_google_genai_finish_reason("max_tokens") == types.FinishReason.MAX_TOKENS
  assert to_google_genai_finish_reason("refusal") == types.FinishReason.SAFETY
  assert to_google_genai_finish_reason(None) is None
  image = types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG"))
  assert content_to_message_param(types.Content(role="user", parts=[types.Part(text="see"), image])) == {
      "role": "user", "content": [{"type": "text", "text": "see"}, {"type": "image", "source": {
          "type": "base64", "media_type": "image/png", "data": "iVBORw=="}}]}
  tool = function_declaration_to_tool_param(types.FunctionDeclaration(
      name="f", parameters=types.Schema(type="OBJECT", properties={"n": types.Schema(type="INTEGER")})))
  assert tool["input_schema"] == {"type": "object", "properties": {"n": {"type": "integer"}}}
  from anthropic import types as at

  resp = message_to_generate_content_response(at.Message.model_validate(message(text("x"), stop="max_tokens")))
  assert resp.finish_reason == types.FinishReason.MAX_TOKENS and resp.content.parts[0].text == "x"
  assert content_block_to_part(at.ToolUseBlock(type="tool_use", id="t", name="f", input={"a": 1})).function_call.args \
      == {"a": 1}
  with pytest.raises(ValueError, match="image/jpeg"):
    part_to_message_block(types.Part(inline_data=types.Blob(mime_type="audio/wav", data=b"x")))


def test_a_claude_name_resolves_to_claude_on_vertex_and_says_what_it_needs():
  assert LLMRegistry.resolve("claude-sonnet-4@20250514") is Claude
  llm = LLMRegistry.new_llm("claude-sonnet-4@20250514")
  with pytest.raises(ValueError) as e:
    llm._build_client()
  assert "GOOGLE_CLOUD_PROJECT" in str(e.value) and "AnthropicLlm(model='claude-sonnet-4@20250514')" in str(e.value)


def test_claude_takes_project_and_region_from_a_resource_name():
  llm = Claude(model="projects/p1/locations/europe-west1/publishers/anthropic/models/claude-sonnet-4@20250514")
  client = llm._build_client()
  assert (client.project_id, client.region) == ("p1", "europe-west1")
  assert llm._model_name(None) == "claude-sonnet-4@20250514"


def test_importing_adk_nb_models_does_not_import_anthropic():
  code = ("import sys, adk_nb, adk_nb.models; from adk_nb.models import LLMRegistry; "
          "assert 'anthropic' not in sys.modules, 'anthropic was imported'")
  subprocess.run([sys.executable, "-c", code], check=True)


def get_weather(city: str) -> dict:
  """Returns the forecast for a city."""
  return {"city": city, "forecast": "sunny"}


@pytest.mark.parametrize("streaming", [False, True])
async def test_an_agent_with_a_tool_runs_a_tool_turn_on_anthropic_llm(server, streaming):
  if streaming:
    server.stream(sse(("tool_use", "toolu_a1", "get_weather", ['{"city": ', '"Paris"}']), stop="tool_use"))
    server.stream(sse(("text", ["Sunny ", "in Paris."])))
  else:
    server.reply(message(tool_use("get_weather", {"city": "Paris"}, id="toolu_a1"), stop="tool_use"))
    server.reply(message(text("Sunny in Paris.")))
  agent = Agent(name="weather", model=model(server), instruction="Answer weather questions.", tools=[get_weather])
  runner = InMemoryRunner(agent=agent, app_name="weather_app")
  session = await runner.session_service.create_session(app_name="weather_app", user_id="u1")
  config = RunConfig(streaming_mode=StreamingMode.SSE if streaming else StreamingMode.NONE)
  events = [e async for e in runner.run_async(user_id="u1", session_id=session.id, run_config=config,
                                              new_message=user("Weather in Paris?"))]

  final = [e for e in events if not e.partial]
  assert summarize(final) == [("weather", "call", "get_weather"), ("weather", "result", "get_weather"),
                              ("weather", "text", "Sunny in Paris.")]
  assert final[1].content.parts[0].function_response.response == {"city": "Paris", "forecast": "sunny"}
  second = server.requests[1].json
  assert second["system"].startswith("Answer weather questions.")
  assert second["messages"][1]["content"] == [
      {"type": "tool_use", "id": "toolu_a1", "name": "get_weather", "input": {"city": "Paris"}}]
  [result] = second["messages"][2]["content"]
  assert result["type"] == "tool_result" and result["tool_use_id"] == "toolu_a1"
  assert "sunny" in result["content"]


async def test_an_agent_with_an_output_schema_gets_its_structured_answer_from_claude(server):
  from pydantic import BaseModel

  class Forecast(BaseModel):
    city: str
    forecast: str

  server.reply(message(tool_use("structured_output", {"city": "Paris", "forecast": "sunny"}), stop="tool_use"))
  agent = Agent(name="weather", model=model(server), instruction="Answer in the schema.", output_schema=Forecast,
                output_key="forecast")
  runner = InMemoryRunner(agent=agent, app_name="weather_app")
  session = await runner.session_service.create_session(app_name="weather_app", user_id="u1")
  events = [e async for e in runner.run_async(user_id="u1", session_id=session.id, new_message=user("Paris?"))]

  assert summarize(events) == [("weather", "text", '{"city": "Paris", "forecast": "sunny"}'),
                               ("weather", "state", "forecast")]
  stored = await runner.session_service.get_session(app_name="weather_app", user_id="u1", session_id=session.id)
  assert stored.state["forecast"] == {"city": "Paris", "forecast": "sunny"}
  assert server.requests[0].json["tool_choice"]["name"] == "structured_output"


async def test_sampling_settings_are_left_out_with_a_warning_while_claude_thinks(server):
  server.reply(message(text("ok")))
  with pytest.warns(UserWarning, match="temperature.*not sent"):
    await collect(model(server), request(user("Hi"), temperature=0.5,
                                         thinking_config=types.ThinkingConfig(thinking_budget=-1)))
  body = server.requests[0].json
  assert "temperature" not in body and body["thinking"] == {"type": "adaptive", "display": "summarized"}


@pytest.mark.parametrize("stream", [False, True])
async def test_a_refusal_without_content_is_an_error_response(server, stream):
  if stream:
    server.stream(sse(stop="refusal"))
  else:
    server.reply(message(stop="refusal"))
  final = (await collect(model(server), request(user("Hi")), stream=stream))[-1]
  assert final.error_code == "SAFETY" and "refusal" in final.error_message
  assert final.finish_reason == types.FinishReason.SAFETY and final.content is None
