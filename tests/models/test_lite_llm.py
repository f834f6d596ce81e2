"""LiteLlm through the real litellm client against a loopback OpenAI-style /chat/completions server."""

import threading

import pytest
from google.genai import types
from pydantic import BaseModel

from adk_nb.models import LlmRequest, RealModelCallBlocked
from adk_nb.models._retry import ModelAuthError, ModelRateLimitError, ModelServerError, RetryOptions
from adk_nb.models.lite_llm import (
    MALFORMED_ARGUMENTS_KEY, TOOL_CALL_DELTA_KEY, LiteLlm, malformed_arguments)
from adk_nb.testing import WEATHER, llm_request
from adk_nb.testing import user_message as user

FAST = RetryOptions(attempts=3, initial_delay=0.01, max_delay=0.05)


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch):
  monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def completion(content=None, tool_calls=None, finish="stop", usage=(11, 4)):
  """A /chat/completions response body."""
  message = {"role": "assistant", "content": content}
  if tool_calls:
    message["tool_calls"] = tool_calls
  body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "gpt-4o-mini",
          "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
  if usage:
    body["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
  return body


def tool_call(id, name, arguments):
  return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def chunk(delta=None, finish=None, usage=None):
  """One streamed chat.completion.chunk."""
  body = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-4o-mini",
          "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}
  if usage:
    body["choices"] = []
    body["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
  return body


def request(*contents, tools=True, **config):
  return llm_request("openai/gpt-4o-mini", *contents, tools=[WEATHER] if tools else (), system_instruction="You are terse.",
                     **config)


def model(server, **kwargs):
  kwargs.setdefault("api_key", "sk-test")
  return LiteLlm(model="openai/gpt-4o-mini", api_base=server.url + "/v1", retry_options=kwargs.pop("retry", FAST),
                 **kwargs)


async def collect(llm, req, stream=False):
  return [r async for r in llm.generate_content_async(req, stream=stream)]


async def test_text_answer_and_what_the_server_received(server):
  server.reply(completion("Hello there."))
  [resp] = await collect(model(server), request(user("Hi"), temperature=0.2, max_output_tokens=50))

  assert resp.content.parts == [types.Part(text="Hello there.")]
  assert resp.finish_reason == types.FinishReason.STOP
  assert resp.usage_metadata == types.GenerateContentResponseUsageMetadata(
      prompt_token_count=11, candidates_token_count=4, total_token_count=15)
  [got] = server.requests
  assert got.path == "/v1/chat/completions"
  assert got.headers.get("Authorization", got.headers.get("authorization")) == "Bearer sk-test"
  body = got.json
  assert body["model"] == "gpt-4o-mini"
  assert body["messages"] == [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Hi"}]
  assert body["temperature"] == 0.2 and body["max_tokens"] == 50
  assert body["tools"] == [{"type": "function", "function": {
      "name": "get_weather", "description": "Weather for a city.",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
  assert "stream" not in body


async def test_tool_round_trip_sends_tool_calls_and_tool_messages(server):
  server.reply(completion(None, [tool_call("call_1", "get_weather", '{"city": "Paris"}')], finish="tool_calls"))
  server.reply(completion("Sunny in Paris."))
  llm = model(server)

  [first] = await collect(llm, request(user("Weather in Paris?")))
  call = first.content.parts[0].function_call
  assert (call.id, call.name, call.args) == ("call_1", "get_weather", {"city": "Paris"})
  assert first.finish_reason == types.FinishReason.STOP

  history = [user("Weather in Paris?"), first.content, types.Content(role="user", parts=[
      types.Part(function_response=types.FunctionResponse(name="get_weather", id="call_1",
                                                          response={"result": "sunny"}))])]
  [second] = await collect(llm, request(*history))
  assert second.content.parts[0].text == "Sunny in Paris."

  messages = server.requests[1].json["messages"]
  assert messages[2]["role"] == "assistant" and messages[2].get("content") is None
  assert messages[2]["tool_calls"] == [
      {"type": "function", "id": "call_1", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]
  assert messages[3] == {"role": "tool", "tool_call_id": "call_1", "content": '{"result": "sunny"}'}


async def test_parallel_tool_calls(server):
  server.reply(completion(None, [tool_call("a", "get_weather", '{"city": "Paris"}'),
                                 tool_call("b", "get_weather", '{"city": "Rome"}')], finish="tool_calls"))
  [resp] = await collect(model(server), request(user("Paris and Rome?")))
  assert [(p.function_call.id, p.function_call.args["city"]) for p in resp.content.parts] == [
      ("a", "Paris"), ("b", "Rome")]

  responses = types.Content(role="user", parts=[
      types.Part(function_response=types.FunctionResponse(name="get_weather", id=i, response={"r": i}))
      for i in ("a", "b")])
  server.reply(completion("Both sunny."))
  await collect(model(server), request(user("Paris and Rome?"), resp.content, responses))
  messages = server.requests[1].json["messages"]
  assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool"]
  assert [m["tool_call_id"] for m in messages[3:]] == ["a", "b"]


async def test_streaming_text_yields_partials_as_they_arrive_then_the_whole_text(server):
  first_partial_seen = threading.Event()
  server.stream([
      chunk({"role": "assistant", "content": "Hel"}),
      first_partial_seen,  # the server holds the rest until the client has shown the first chunk
      chunk({"content": "lo, "}),
      chunk({"content": "world."}),
      chunk(finish="stop"),
      chunk(usage=(6, 3)),
  ], done=True)
  responses = []
  async for resp in model(server).generate_content_async(request(user("Hi")), stream=True):
    responses.append(resp)
    first_partial_seen.set()

  assert server.gate_timeouts == 0, "the first chunk was not delivered before the stream ended"
  assert [r.content.parts[0].text for r in responses if r.partial] == ["Hel", "lo, ", "world."]
  final = responses[-1]
  assert not final.partial
  assert final.content.parts == [types.Part(text="Hello, world.")]
  assert final.finish_reason == types.FinishReason.STOP
  assert final.usage_metadata.total_token_count == 9
  body = server.requests[0].json
  assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


async def test_streaming_tool_call_argument_fragments(server):
  server.stream([
      chunk({"role": "assistant", "tool_calls": [
          {"index": 0, "id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}),
      chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"ci'}}]}),
      chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'ty": "Paris"}'}}]}),
      chunk({"tool_calls": [
          {"index": 1, "id": "call_b", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}),
      chunk({"tool_calls": [{"index": 1, "function": {"arguments": '{"city": "Rome"}'}}]}),
      chunk(finish="tool_calls"),
  ], done=True)
  responses = await collect(model(server), request(user("Paris and Rome?")), stream=True)

  partials = [r for r in responses if r.partial]
  fragments = [r.custom_metadata[TOOL_CALL_DELTA_KEY] for r in partials]
  assert "".join(f["arguments"] for f in fragments if f["index"] == 0) == '{"city": "Paris"}'
  assert all(r.content is None for r in partials), "an incomplete call is never shown as a function call"
  final = responses[-1]
  assert not final.partial
  calls = [p.function_call for p in final.content.parts]
  assert [(c.id, c.name, c.args) for c in calls] == [
      ("call_a", "get_weather", {"city": "Paris"}), ("call_b", "get_weather", {"city": "Rome"})]


async def test_bad_tool_argument_json_becomes_a_recoverable_call(server):
  server.reply(completion(None, [tool_call("call_1", "get_weather", '{"city": "Paris"'),
                                 tool_call("call_2", "get_weather", '["Paris"]')], finish="tool_calls"))
  [resp] = await collect(model(server), request(user("Weather?")))

  broken, not_an_object = (p.function_call for p in resp.content.parts)
  assert broken.name == "get_weather" and broken.id == "call_1"
  assert set(broken.args) == {MALFORMED_ARGUMENTS_KEY}
  assert malformed_arguments(broken)["raw"] == '{"city": "Paris"'
  assert "delimiter" in malformed_arguments(broken)["error"]
  assert "JSON object" in malformed_arguments(not_an_object)["error"]
  assert resp.error_code is None

  # Sent back, the call shows the model exactly what it wrote.
  server.reply(completion("Sorry."))
  error = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
      name="get_weather", id="call_1", response={"error": "arguments were not valid JSON"}))])
  await collect(model(server), request(user("Weather?"), types.Content(role="model", parts=resp.content.parts[:1]),
                                       error))
  assistant = server.requests[1].json["messages"][2]
  assert assistant["tool_calls"][0]["function"]["arguments"] == '{"city": "Paris"'


async def test_streamed_bad_arguments_do_not_crash(server):
  server.stream([
      chunk({"tool_calls": [{"index": 0, "id": "c", "type": "function",
                             "function": {"name": "get_weather", "arguments": "{city: Paris"}}]}),
      chunk(finish="tool_calls"),
  ], done=True)
  responses = await collect(model(server), request(user("Weather?")), stream=True)
  call = responses[-1].content.parts[0].function_call
  assert malformed_arguments(call)["raw"] == "{city: Paris"


async def test_rate_limit_then_success_honours_retry_after(server, retry_waits):
  server.reply({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}},
               status=429, headers={"Retry-After": "0.04"})
  server.reply(completion("ok"))
  [resp] = await collect(model(server), request(user("Hi")))
  assert resp.content.parts[0].text == "ok"
  assert len(server.requests) == 2, "litellm and the OpenAI client must not retry underneath us"
  assert retry_waits == [0.04]


async def test_rate_limit_exhausting_retries(server, retry_waits):
  for _ in range(3):
    server.reply({"error": {"message": "Rate limit reached", "type": "requests"}}, status=429)
  with pytest.raises(ModelRateLimitError, match="rate limited"):
    await collect(model(server), request(user("Hi")))
  assert len(server.requests) == 3


async def test_server_errors_exhaust_retries(server, retry_waits):
  for _ in range(3):
    server.reply({"error": {"message": "The server had an error", "type": "server_error"}}, status=500)
  with pytest.raises(ModelServerError, match=r"HTTP 500.*gave up after 3 attempt") as info:
    await collect(model(server), request(user("Hi")))
  assert info.value.attempts == 3
  assert len(server.requests) == 3
  assert len(retry_waits) == 2 and all(0 <= w <= 0.05 for w in retry_waits)


async def test_streaming_request_is_retried_before_the_first_chunk(server, retry_waits):
  server.reply({"error": {"message": "overloaded"}}, status=503)
  server.stream([chunk({"content": "ok"}), chunk(finish="stop")], done=True)
  responses = await collect(model(server), request(user("Hi")), stream=True)
  assert responses[-1].content.parts[0].text == "ok"
  assert len(retry_waits) == 1


async def test_rejected_key_names_the_fix(server):
  server.reply({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                          "code": "invalid_api_key"}}, status=401)
  with pytest.raises(ModelAuthError, match=r"Set OPENAI_API_KEY or pass LiteLlm\('openai/gpt-4o-mini', api_key="):
    await collect(model(server), request(user("Hi")))
  assert len(server.requests) == 1


async def test_missing_api_key_names_the_fix(server):
  llm = LiteLlm(model="openai/gpt-4o-mini", api_base=server.url + "/v1", retry_options=FAST)
  with pytest.raises(ModelAuthError, match="Set OPENAI_API_KEY"):
    await collect(llm, request(user("Hi")))
  assert server.requests == []


async def test_response_schema_becomes_response_format(server):
  class Answer(BaseModel):
    city: str

  server.reply(completion('{"city": "Paris"}'))
  await collect(model(server), request(user("Hi"), tools=False, response_schema=Answer,
                                       response_mime_type="application/json"))
  body = server.requests[0].json
  assert body["response_format"]["type"] == "json_schema"
  assert body["response_format"]["json_schema"]["schema"]["properties"]["city"]["type"] == "string"
  assert "tools" not in body


async def test_a_list_schema_and_a_gemini_style_dict_schema_still_constrain_the_answer(server):
  """response_schema=list[Model] was silently dropped; an ADK-style dict with 'OBJECT' went out uppercase."""
  class City(BaseModel):
    name: str

  server.reply(completion('[{"name": "Paris"}]'))
  server.reply(completion('{"a": "x"}'))
  llm = model(server)
  await collect(llm, request(user("Hi"), tools=False, response_schema=list[City],
                             response_mime_type="application/json"))
  await collect(llm, request(user("Hi"), tools=False, response_mime_type="application/json", response_schema={
      "type": "OBJECT", "properties": {"a": {"type": "STRING"}}}))
  listed, mapped = (r.json["response_format"] for r in server.requests)
  assert listed["type"] == "json_schema"
  assert listed["json_schema"]["schema"]["type"] == "array"
  items = listed["json_schema"]["schema"]["items"]
  assert items == {"$ref": "#/$defs/City"} and "City" in listed["json_schema"]["schema"]["$defs"]
  assert mapped["json_schema"]["schema"] == {"type": "object", "properties": {"a": {"type": "string"}}}


async def test_schema_parameters_are_converted_to_json_schema(server):
  decl = types.FunctionDeclaration(name="add", parameters=types.Schema(
      type=types.Type.OBJECT, properties={"a": types.Schema(type=types.Type.INTEGER),
                                          "tags": types.Schema(type=types.Type.ARRAY,
                                                               items=types.Schema(type=types.Type.STRING))},
      required=["a"]))
  server.reply(completion("ok"))
  req = LlmRequest(contents=[user("Hi")], config=types.GenerateContentConfig(
      tools=[types.Tool(function_declarations=[decl])]))
  await collect(model(server), req)
  params = server.requests[0].json["tools"][0]["function"]["parameters"]
  assert params == {"type": "object", "required": ["a"], "properties": {
      "a": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}}}


async def test_schema_defs_refs_and_additional_properties_reach_the_model_as_json_schema(server):
  """A types.Schema with nested models ($defs/$ref) and maps arrives in JSON-schema spelling, not field names."""
  decl = types.FunctionDeclaration(name="book", parameters=types.Schema(
      type=types.Type.OBJECT, required=["guest"],
      properties={"guest": types.Schema(ref="#/$defs/Guest"),
                  "notes": types.Schema(type=types.Type.OBJECT,
                                        additional_properties=types.Schema(type=types.Type.STRING))},
      defs={"Guest": types.Schema(type=types.Type.OBJECT, required=["name"], properties={
          "name": types.Schema(type=types.Type.STRING),
          "age": types.Schema(any_of=[types.Schema(type=types.Type.INTEGER), types.Schema(type=types.Type.NULL)])})}))
  server.reply(completion("ok"))
  req = LlmRequest(contents=[user("Hi")], config=types.GenerateContentConfig(
      tools=[types.Tool(function_declarations=[decl])]))
  await collect(model(server), req)
  params = server.requests[0].json["tools"][0]["function"]["parameters"]
  assert params == {"type": "object", "required": ["guest"], "properties": {
      "guest": {"$ref": "#/$defs/Guest"},
      "notes": {"type": "object", "additionalProperties": {"type": "string"}}},
      "$defs": {"Guest": {"type": "object", "required": ["name"], "properties": {
          "name": {"type": "string"}, "age": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}}}}


async def test_extra_kwargs_reach_litellm(server):
  server.reply(completion("ok"))
  await collect(model(server, temperature=0.7, user="u-1"), request(user("Hi"), tools=False))
  body = server.requests[0].json
  assert body["temperature"] == 0.7 and body["user"] == "u-1"


async def test_real_endpoints_are_blocked_in_tests():
  with pytest.raises(RealModelCallBlocked):
    await collect(LiteLlm(model="openai/gpt-4o-mini", api_key="sk"), request(user("Hi")))


async def test_timeout_is_reported(server):
  from adk_nb.models._retry import ModelTimeoutError

  server.hang()
  with pytest.raises(ModelTimeoutError, match="did not answer within 0.2 s"):
    await collect(model(server, retry=RetryOptions(attempts=1, timeout=0.2)), request(user("Hi")))


async def test_http_options_headers_and_body_reach_the_provider(server):
  server.reply(completion("ok"))
  llm = model(server, extra_headers={"X-Team": "billing", "X-Trace": "old"})
  await collect(llm, request(user("Hi"), tools=False, http_options=types.HttpOptions(
      headers={"X-Trace": "t-42"}, extra_body={"metadata": {"run": "r1"}})))
  got = server.requests[0]
  headers = {k.lower(): v for k, v in got.headers.items()}
  assert headers["x-team"] == "billing" and headers["x-trace"] == "t-42"  # the request's header wins
  assert got.json["metadata"] == {"run": "r1"}


def test_cached_prompt_tokens_in_each_providers_shape():
  from adk_nb.models.lite_llm import usage_metadata

  counts = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
  for usage, cached in (({"prompt_tokens_details": {"cached_tokens": 6}}, 6),  # OpenAI, Azure
                        ({"prompt_tokens_details": [{"cached_tokens": 5}, {"cached_tokens": 2}]}, 7),
                        ({"cached_prompt_tokens": 4}, 4), ({"cached_tokens": 3}, 3), ({}, None)):
    assert usage_metadata({**counts, **usage}).cached_content_token_count == cached


def test_each_kind_of_media_goes_as_the_content_item_chat_models_take():
  from adk_nb.models.lite_llm import content_to_messages

  def sent(*parts):
    return content_to_messages(types.Content(role="user", parts=list(parts)))[0]["content"]

  blob = lambda mime, data=b"ab": types.Part(inline_data=types.Blob(mime_type=mime, data=data))  # noqa: E731
  assert sent(blob("text/plain", "café".encode())) == "café"  # one text-like part: the text itself
  assert sent(blob("text/plain", b"\xff")) == "\xff"  # not UTF-8: Latin-1, nothing replaced
  items = sent(types.Part(text="see"), blob("image/png"), blob("audio/mpeg"), blob("video/mp4"),
               blob("application/pdf"))
  assert items == [
      {"type": "text", "text": "see"},
      {"type": "image_url", "image_url": {"url": "data:image/png;base64,YWI="}},
      {"type": "input_audio", "input_audio": {"data": "YWI=", "format": "mp3"}},
      {"type": "video_url", "video_url": {"url": "data:video/mp4;base64,YWI="}},
      {"type": "file", "file": {"file_data": "data:application/pdf;base64,YWI="}}]
  by_uri = sent(types.Part(text="and"), types.Part(file_data=types.FileData(file_uri="gs://b/report.pdf")),
                types.Part(file_data=types.FileData(file_uri="https://x.example/cat.png")))
  assert by_uri[1:] == [{"type": "file", "file": {"file_id": "gs://b/report.pdf", "format": "application/pdf"}},
                        {"type": "image_url", "image_url": {"url": "https://x.example/cat.png"}}]
