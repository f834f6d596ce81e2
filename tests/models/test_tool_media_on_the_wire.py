"""An image a tool returns reaches each wire adapter's server after a real agent turn: in the
function response's parts on Gemini, and for litellm (whose tool messages hold text only) in a user
message right after the tool message, as google-adk 2.13's converter sends it (file_data parts are
not sent there, as in google-adk)."""

import base64

from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.models._retry import RetryOptions
from adk_nb.models.google_llm import Gemini
from adk_nb.models.lite_llm import LiteLlm
from adk_nb.testing import run_turn

PNG = b"\x89PNG\r\n\x1a\n-not-a-real-image"
FAST = RetryOptions(attempts=1)


def photograph(subject: str) -> dict:
  """Photographs a subject."""
  return {"subject": subject, "photo": types.Part.from_bytes(data=PNG, mime_type="image/png"),
          "original": types.Part.from_uri(file_uri="gs://photos/1.png", mime_type="image/png")}


async def test_gemini_sends_the_tool_image_in_the_function_response_parts(server, monkeypatch):
  monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
  server.reply({"candidates": [{"content": {"role": "model", "parts": [
      {"functionCall": {"name": "photograph", "args": {"subject": "cat"}, "id": "c1"}}]}, "finishReason": "STOP"}]})
  server.reply({"candidates": [{"content": {"role": "model", "parts": [{"text": "A cat."}]}, "finishReason": "STOP"}]})
  llm = Gemini(model="gemini-2.5-flash", base_url=server.url, retry_options=FAST)
  runner = InMemoryRunner(agent=Agent(name="a", model=llm, tools=[photograph]), app_name="media")
  await run_turn(runner, "Photograph the cat.")

  [answer] = server.requests[1].json["contents"][-1]["parts"]
  assert answer["functionResponse"] == {
      "id": "c1", "name": "photograph", "response": {"subject": "cat"},
      # google-genai writes these nested parts with proto field names (snake_case), which the API's
      # JSON parser accepts as well as camelCase.
      "parts": [{"inline_data": {"data": base64.b64encode(PNG).decode(), "mime_type": "image/png"}},
                {"file_data": {"file_uri": "gs://photos/1.png", "mime_type": "image/png"}}]}


async def test_litellm_sends_the_tool_image_in_a_user_message_after_the_tool_message(server, monkeypatch):
  monkeypatch.delenv("OPENAI_API_KEY", raising=False)
  body = {"id": "x", "object": "chat.completion", "created": 1700000000, "model": "gpt-4o-mini"}
  server.reply({**body, "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
      "role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
          "name": "photograph", "arguments": '{"subject": "cat"}'}}]}}]})
  server.reply({**body, "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": "A cat."}}]})
  llm = LiteLlm(model="openai/gpt-4o-mini", api_base=server.url + "/v1", api_key="sk-test", retry_options=FAST)
  runner = InMemoryRunner(agent=Agent(name="a", model=llm, tools=[photograph]), app_name="media")
  await run_turn(runner, "Photograph the cat.")

  messages = server.requests[1].json["messages"]
  assert messages[-2] == {"role": "tool", "tool_call_id": "c1", "content": '{"subject": "cat"}'}
  assert messages[-1] == {"role": "user", "content": [
      {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(PNG).decode()}}]}
