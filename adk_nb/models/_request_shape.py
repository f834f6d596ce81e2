"""Request shaping every model adapter shares (Gemini, LiteLLM, Anthropic): what a chat model expects to receive."""

from __future__ import annotations

from google.genai import types


def with_user_turn(contents: list[types.Content]) -> list[types.Content]:
  """The contents to send, ending with a user turn as chat models expect (the request is not changed)."""
  if not contents:
    return [types.Content(role="user", parts=[types.Part(text="Follow the system instruction.")])]
  if contents[-1].role != "user":
    return [*contents, types.Content(role="user", parts=[types.Part(
        text="Continue with the task as instructed; if nothing is left to do, say so briefly.")])]
  return contents
