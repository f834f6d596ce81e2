"""google-adk's private converter names in models.lite_llm do the same conversions as adk_nb's codecs."""

from google.genai import types

from adk_nb.models.lite_llm import (
    _content_to_message_param,
    _FINISH_REASON_MAPPING,
    _function_declaration_to_tool_param,
    _get_completion_inputs,
    _get_content,
    _get_provider_from_model,
    _message_to_generate_content_response,
    _safe_json_serialize,
    _schema_to_dict,
    _to_litellm_role,
    to_messages,
)
from adk_nb.testing import WEATHER, llm_request, user_message


async def test_a_content_becomes_one_message_or_a_list_of_tool_messages():
  assert await _content_to_message_param(user_message("Hi")) == {"role": "user", "content": "Hi"}
  answers = types.Content(role="user", parts=[
      types.Part(function_response=types.FunctionResponse(id="c1", name="f", response={"ok": 1})),
      types.Part(function_response=types.FunctionResponse(id="c2", name="f", response={"ok": 2}))])
  assert await _content_to_message_param(answers) == [
      {"role": "tool", "tool_call_id": "c1", "content": '{"ok": 1}'},
      {"role": "tool", "tool_call_id": "c2", "content": '{"ok": 2}'}]
  assert await _content_to_message_param(types.Content(role="user", parts=[])) is None
  image = types.Part(inline_data=types.Blob(mime_type="image/png", data=b"x"))
  assert await _get_content([types.Part(text="see"), image]) == [
      {"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,eA=="}}]


async def test_completion_inputs_are_what_the_adapter_sends():
  request = llm_request("openai/gpt-4o-mini", user_message("Hi"), tools=[WEATHER], system_instruction="Be brief.",
                        temperature=0.3, response_mime_type="application/json")
  messages, tools, response_format, params = await _get_completion_inputs(request, model="openai/gpt-4o-mini")
  assert messages == to_messages(request)
  assert tools == [_function_declaration_to_tool_param(WEATHER)]
  assert tools[0]["function"]["parameters"]["properties"] == {"city": {"type": "string"}}
  assert response_format == {"type": "json_object"} and params == {"temperature": 0.3}


def test_small_helpers():
  assert _to_litellm_role("model") == "assistant" and _to_litellm_role(None) == "user"
  assert _get_provider_from_model("OpenAI/gpt-4o") == "openai" and _get_provider_from_model("gpt-4o") == "openai"
  assert _get_provider_from_model("mystery") == ""
  assert _FINISH_REASON_MAPPING["length"] == types.FinishReason.MAX_TOKENS
  assert _safe_json_serialize({"a": "é"}) == '{"a": "é"}' and _safe_json_serialize({1, 2}).startswith("{")
  assert _schema_to_dict({"type": "OBJECT", "properties": {"n": {"type": "INTEGER"}}}) == {
      "type": "object", "properties": {"n": {"type": "integer"}}}


def test_a_message_becomes_a_response_with_its_tool_calls():
  message = {"role": "assistant", "content": "Checking.", "tool_calls": [
      {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]}
  response = _message_to_generate_content_response(message, model_version="gpt-4o-mini")
  text, call = response.content.parts
  assert text.text == "Checking." and (call.function_call.name, call.function_call.args) == (
      "get_weather", {"city": "Paris"})
  assert response.model_version == "gpt-4o-mini" and not response.partial


def test_a_streamed_chunk_reads_as_google_adks_chunks_reasoning_text_calls_then_usage():
  from adk_nb.models.lite_llm import (FunctionChunk, ReasoningChunk, TextChunk, UsageMetadataChunk,
                                      _model_response_to_chunk)

  chunk = {"choices": [{"index": 0, "finish_reason": "tool_calls", "delta": {
      "reasoning_content": "Paris first.", "content": "Checking.",
      "tool_calls": [{"index": 0, "id": "c1", "type": "function",
                      "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]}}],
           "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}
  assert list(_model_response_to_chunk(chunk)) == [
      (ReasoningChunk(parts=[types.Part(text="Paris first.", thought=True)]), "tool_calls"),
      (TextChunk(text="Checking."), "tool_calls"),
      (FunctionChunk(id="c1", name="get_weather", args='{"city": "Paris"}', index=0), "tool_calls"),
      (UsageMetadataChunk(prompt_tokens=7, completion_tokens=3, total_tokens=10), None)]
  assert list(_model_response_to_chunk({"choices": [{"index": 0, "finish_reason": "stop", "delta": {}}]})) == [
      (None, "stop")]


def test_reasoning_in_each_providers_shape_becomes_thought_parts():
  from adk_nb.models.lite_llm import (_aggregate_streaming_thought_parts, _convert_reasoning_value_to_parts,
                                      _extract_reasoning_value)

  blocks = [{"type": "thinking", "thinking": "Step 1."}, {"type": "redacted", "data": "xx"}]
  assert _extract_reasoning_value({"thinking_blocks": blocks, "reasoning_content": "flat"}) is blocks
  assert _extract_reasoning_value({"reasoning": "vllm's key"}) == "vllm's key"
  assert _convert_reasoning_value_to_parts(blocks) == [types.Part(text="Step 1.", thought=True)]
  assert _convert_reasoning_value_to_parts("plain") == [types.Part(text="plain", thought=True)]
  streamed = [types.Part(text="a", thought=True), types.Part(text="b", thought=True)]
  assert _aggregate_streaming_thought_parts(streamed) == [types.Part(text="ab", thought=True)]


def test_response_format_and_the_user_turn_are_what_the_adapter_sends():
  import pydantic

  from adk_nb.models.lite_llm import _append_fallback_user_content_if_missing, _to_litellm_response_format
  from adk_nb.models.lite_llm import generation_args

  class Answer(pydantic.BaseModel):
    city: str

  sent = generation_args(types.GenerateContentConfig(response_schema=Answer))["response_format"]
  assert _to_litellm_response_format(Answer, "openai/gpt-4o") == sent
  assert _to_litellm_response_format({"type": "OBJECT", "title": "Pick", "properties": {}}, "m") == {
      "type": "json_schema", "json_schema": {"name": "Pick", "schema": {"type": "object", "title": "Pick",
                                                                       "properties": {}}}}
  request = llm_request("openai/gpt-4o-mini")
  _append_fallback_user_content_if_missing(request)
  assert [c.role for c in request.contents] == ["user"]
  assert to_messages(request)[-1]["role"] == "user"


def test_provider_and_file_names_and_what_adk_nb_does_not_do():
  import pytest

  from adk_nb.models.lite_llm import (_is_anthropic_model, _is_anthropic_route, _looks_like_openai_file_id,
                                      _parse_tool_calls_from_text, _redact_file_uri_for_log)

  assert _is_anthropic_model("bedrock/anthropic.claude-3-5-sonnet") and not _is_anthropic_model("openai/gpt-4o")
  assert _is_anthropic_route("vertex_ai", "claude-sonnet-4") and not _is_anthropic_route("vertex_ai", "gemini-2.5")
  assert _looks_like_openai_file_id("file-abc") and not _looks_like_openai_file_id("gs://b/x.pdf")
  assert _redact_file_uri_for_log("gs://bucket/secret/report.pdf") == "gs://<redacted>/report.pdf"
  with pytest.raises(NotImplementedError, match="plain text.*README's Compatibility section"):
    _parse_tool_calls_from_text('{"name": "f", "arguments": {}}')
