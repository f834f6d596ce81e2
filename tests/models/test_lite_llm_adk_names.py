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
