"""Gemini against a loopback server speaking the Gemini API's wire format (generateContent, SSE)."""

import threading

import pytest
from google.genai import types

from adk_nb.models import LlmResponse, RealModelCallBlocked
from adk_nb.models._retry import ModelAuthError, ModelCallError, ModelServerError, ModelTimeoutError, RetryOptions
from adk_nb.models.google_llm import Gemini
from adk_nb.testing import WEATHER, llm_request
from adk_nb.testing import user_message as user

FAST = RetryOptions(attempts=3, initial_delay=0.01, max_delay=0.05)


@pytest.fixture(autouse=True)
def _api_key(monkeypatch):
  monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
  monkeypatch.delenv("GEMINI_API_KEY", raising=False)
  monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)


def answer(*parts, finish="STOP", usage=(7, 3)):
  """A generateContent response body (camelCase, as the API sends it)."""
  body = {"candidates": [{"content": {"role": "model", "parts": list(parts)}, "index": 0}],
          "modelVersion": "gemini-2.5-flash-001"}
  if finish:
    body["candidates"][0]["finishReason"] = finish
  if usage:
    body["usageMetadata"] = {"promptTokenCount": usage[0], "candidatesTokenCount": usage[1],
                             "totalTokenCount": sum(usage)}
  return body


def fc(name, args, id=None):
  call = {"name": name, "args": args}
  if id:
    call["id"] = id
  return {"functionCall": call}


def request(*contents, tools=True, **config):
  return llm_request("gemini-2.5-flash", *contents, tools=[WEATHER] if tools else (), system_instruction="You are terse.",
                     **config)


def model(server, **kwargs):
  return Gemini(model="gemini-2.5-flash", base_url=server.url, retry_options=kwargs.pop("retry", FAST), **kwargs)


async def collect(llm, req, stream=False):
  return [r async for r in llm.generate_content_async(req, stream=stream)]


async def test_text_answer_and_what_the_server_received(server):
  server.reply(answer({"text": "Hello there."}))
  [resp] = await collect(model(server), request(user("Hi"), temperature=0.2, max_output_tokens=50))

  assert resp.content.parts[0].text == "Hello there."
  assert resp.finish_reason == types.FinishReason.STOP
  assert resp.usage_metadata.prompt_token_count == 7 and resp.usage_metadata.total_token_count == 10
  assert resp.model_version == "gemini-2.5-flash-001"
  [got] = server.requests
  assert got.path.endswith("/models/gemini-2.5-flash:generateContent")
  assert got.headers.get("x-goog-api-key") == "test-key"
  assert got.json["contents"] == [{"role": "user", "parts": [{"text": "Hi"}]}]
  assert got.json["systemInstruction"]["parts"] == [{"text": "You are terse."}]
  assert got.json["generationConfig"] == {"temperature": 0.2, "maxOutputTokens": 50}
  [decl] = got.json["tools"][0]["functionDeclarations"]
  assert decl["name"] == "get_weather"
  schema = decl.get("parametersJsonSchema", decl.get("parameters_json_schema"))
  assert schema["properties"] == {"city": {"type": "string"}}


async def test_api_version_and_base_url_reach_the_wire(server):
  server.reply(answer({"text": "ok"}))
  await collect(model(server, api_version="v1beta"), request(user("Hi")))
  assert server.requests[0].path == "/v1beta/models/gemini-2.5-flash:generateContent"


async def test_tool_round_trip_sends_the_function_response_back(server):
  server.reply(answer(fc("get_weather", {"city": "Paris"}, id="call-1")))
  server.reply(answer({"text": "It is sunny in Paris."}))
  llm = model(server)

  [first] = await collect(llm, request(user("Weather in Paris?")))
  call = first.content.parts[0].function_call
  assert (call.name, call.args, call.id) == ("get_weather", {"city": "Paris"}, "call-1")

  history = [user("Weather in Paris?"), first.content, types.Content(role="user", parts=[
      types.Part(function_response=types.FunctionResponse(name="get_weather", id="call-1",
                                                          response={"result": "sunny"}))])]
  [second] = await collect(llm, request(*history))
  assert second.content.parts[0].text == "It is sunny in Paris."

  sent = server.requests[1].json["contents"]
  assert [c["role"] for c in sent] == ["user", "model", "user"]
  assert sent[1]["parts"][0]["functionCall"] == {"name": "get_weather", "args": {"city": "Paris"}, "id": "call-1"}
  assert sent[2]["parts"][0]["functionResponse"] == {
      "name": "get_weather", "id": "call-1", "response": {"result": "sunny"}}


async def test_parallel_function_calls_keep_order_and_ids(server):
  server.reply(answer(fc("get_weather", {"city": "Paris"}, id="a"), fc("get_weather", {"city": "Rome"}, id="b")))
  [resp] = await collect(model(server), request(user("Paris and Rome?")))
  calls = [p.function_call for p in resp.content.parts]
  assert [(c.id, c.args["city"]) for c in calls] == [("a", "Paris"), ("b", "Rome")]


async def test_streaming_text_yields_partials_as_they_arrive_then_the_whole_text(server):
  first_partial_seen = threading.Event()
  server.stream([
      answer({"text": "Hel"}, finish=None, usage=None),
      first_partial_seen,  # the server holds the rest until the client has shown the first chunk
      answer({"text": "lo, "}, finish=None, usage=None),
      answer({"text": "world."}, usage=(4, 3)),
  ])
  responses = []
  async for resp in model(server).generate_content_async(request(user("Hi")), stream=True):
    responses.append(resp)
    first_partial_seen.set()

  assert server.gate_timeouts == 0, "the first chunk was not delivered before the stream ended"
  assert [r.partial for r in responses] == [True, True, True, None]
  assert [r.content.parts[0].text for r in responses[:3]] == ["Hel", "lo, ", "world."]
  final = responses[-1]
  assert final.content.parts == [types.Part(text="Hello, world.")]
  assert final.finish_reason == types.FinishReason.STOP
  assert final.usage_metadata.total_token_count == 7
  assert server.requests[0].path.endswith(":streamGenerateContent")
  assert server.requests[0].query == {"alt": ["sse"]}


async def test_streaming_function_calls_are_aggregated_in_the_final_answer(server):
  server.stream([
      answer({"text": "Checking "}, finish=None, usage=None),
      answer({"text": "both."}, fc("get_weather", {"city": "Paris"}, id="a"), finish=None, usage=None),
      answer(fc("get_weather", {"city": "Rome"}, id="b"), usage=(5, 9)),
  ])
  responses = await collect(model(server), request(user("Paris and Rome?")), stream=True)

  assert all(r.partial for r in responses[:-1]) and not responses[-1].partial
  final = responses[-1].content.parts
  assert final[0].text == "Checking both."
  assert [(p.function_call.id, p.function_call.args) for p in final[1:]] == [
      ("a", {"city": "Paris"}), ("b", {"city": "Rome"})]


async def test_rate_limit_then_success_honours_retry_after(server, retry_waits):
  server.reply({"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}},
               status=429, headers={"Retry-After": "0.03"})
  server.reply(answer({"text": "ok"}))
  [resp] = await collect(model(server), request(user("Hi")))
  assert resp.content.parts[0].text == "ok"
  assert len(server.requests) == 2
  assert retry_waits == [0.03]


async def test_rate_limit_retry_info_in_the_body_is_honoured(server, retry_waits):
  server.reply({"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED", "details": [
      {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.02s"}]}}, status=429)
  server.reply(answer({"text": "ok"}))
  await collect(model(server), request(user("Hi")))
  assert retry_waits == [0.02]


async def test_server_errors_exhaust_retries_with_bounded_jittered_backoff(server, retry_waits):
  for _ in range(3):
    server.reply({"error": {"code": 500, "message": "Internal error", "status": "INTERNAL"}}, status=500)
  with pytest.raises(ModelServerError, match=r"HTTP 500.*gave up after 3 attempt") as info:
    await collect(model(server), request(user("Hi")))
  assert info.value.attempts == 3 and info.value.status_code == 500
  assert len(server.requests) == 3
  assert len(retry_waits) == 2 and all(0 <= w <= 0.05 for w in retry_waits)


async def test_streaming_rate_limit_is_retried_before_the_first_chunk(server, retry_waits):
  server.reply({"error": {"code": 503, "message": "Overloaded", "status": "UNAVAILABLE"}}, status=503)
  server.stream([answer({"text": "ok"})])
  responses = await collect(model(server), request(user("Hi")), stream=True)
  assert responses[-1].content.parts[0].text == "ok"
  assert len(retry_waits) == 1


async def test_client_errors_are_not_retried(server, retry_waits):
  server.reply({"error": {"code": 400, "message": "Invalid JSON payload", "status": "INVALID_ARGUMENT"}}, status=400)
  with pytest.raises(ModelCallError, match="HTTP 400: Invalid JSON payload"):
    await collect(model(server), request(user("Hi")))
  assert retry_waits == []


async def test_rejected_key_names_the_fix(server):
  server.reply({"error": {"code": 403, "message": "API key not valid.", "status": "PERMISSION_DENIED"}},
               status=403)
  with pytest.raises(ModelAuthError, match="Set GOOGLE_API_KEY"):
    await collect(model(server), request(user("Hi")))
  assert len(server.requests) == 1


async def test_missing_api_key_fails_before_any_network(server, monkeypatch):
  monkeypatch.delenv("GOOGLE_API_KEY")
  with pytest.raises(ModelAuthError, match="set GOOGLE_API_KEY"):
    await collect(model(server), request(user("Hi")))
  assert server.requests == []


async def test_gemini_api_key_is_accepted_too(server, monkeypatch):
  monkeypatch.delenv("GOOGLE_API_KEY")
  monkeypatch.setenv("GEMINI_API_KEY", "other-key")
  server.reply(answer({"text": "ok"}))
  await collect(model(server), request(user("Hi")))
  assert server.requests[0].headers.get("x-goog-api-key") == "other-key"


async def test_timeout_is_reported(server):
  server.hang()
  with pytest.raises(ModelTimeoutError, match="did not answer within 0.2 s"):
    await collect(model(server, retry=RetryOptions(attempts=1, timeout=0.2)), request(user("Hi")))


async def test_blocked_prompt_becomes_an_error_response(server):
  server.reply({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 4}})
  [resp] = await collect(model(server), request(user("something bad")))
  assert resp.error_code == "SAFETY" and resp.content is None
  assert resp.error_message


async def test_safety_stop_without_content_becomes_an_error_response(server):
  server.reply({"candidates": [{"finishReason": "SAFETY", "index": 0}]})
  [resp] = await collect(model(server), request(user("something bad")))
  assert resp.error_code == "SAFETY" and resp.finish_reason == types.FinishReason.SAFETY


async def test_streamed_block_ends_with_an_error_response(server):
  server.stream([answer({"text": "Well"}, finish=None, usage=None), {"candidates": [
      {"finishReason": "SAFETY", "index": 0}]}])
  responses = await collect(model(server), request(user("Hi")), stream=True)
  assert responses[0].partial and responses[0].content.parts[0].text == "Well"
  final = responses[-1]
  assert final.finish_reason == types.FinishReason.SAFETY
  assert final.content.parts[0].text == "Well"


async def test_real_endpoints_are_blocked_in_tests():
  llm = Gemini(model="gemini-2.5-flash")
  with pytest.raises(RealModelCallBlocked):
    await collect(llm, request(user("Hi")))


async def test_history_ending_with_the_model_gets_a_user_turn(server):
  server.reply(answer({"text": "ok"}))
  req = request(user("Hi"), types.Content(role="model", parts=[types.Part(text="Hello")]))
  await collect(model(server), req)
  sent = server.requests[0].json["contents"]
  assert sent[-1]["role"] == "user" and len(sent) == 3
  assert len(req.contents) == 2, "the request itself is not changed"


def test_accepts_adk_http_retry_options():
  llm = Gemini(retry_options=types.HttpRetryOptions(attempts=2, initial_delay=0.1))
  opts = RetryOptions.coerce(llm.retry_options)
  assert (opts.attempts, opts.initial_delay, opts.max_delay) == (2, 0.1, 8.0)
  assert isinstance(LlmResponse(), LlmResponse)
