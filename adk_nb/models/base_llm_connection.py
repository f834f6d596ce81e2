"""The interface of a live (bidirectional streaming) model connection.

adk_nb has no live runs (README "Compatibility"): no adapter returns a connection and
`BaseLlm.connect` raises `NotImplementedError`. The interface exists so code written against
google-adk that subclasses it (test doubles, custom adapters) imports and can be used on its own.
"""

from __future__ import annotations

from typing import AsyncGenerator

from google.genai import types

from .llm_response import LlmResponse


class BaseLlmConnection:
  """A live connection to a model: send history, content and realtime blobs; receive responses."""

  async def send_history(self, history: list[types.Content]) -> None:
    """Sends the conversation so far; the model answers when the last content is the user's."""
    raise NotImplementedError(f"{type(self).__name__} does not implement send_history")

  async def send_content(self, content: types.Content) -> None:
    """Sends one user turn (text or function responses)."""
    raise NotImplementedError(f"{type(self).__name__} does not implement send_content")

  async def send_realtime(self, blob: types.Blob) -> None:
    """Sends a chunk of realtime media (audio, video)."""
    raise NotImplementedError(f"{type(self).__name__} does not implement send_realtime")

  async def receive(self) -> AsyncGenerator[LlmResponse, None]:
    """Yields the model's responses as they arrive."""
    raise NotImplementedError(f"{type(self).__name__} does not implement receive")
    yield  # pragma: no cover

  async def close(self) -> None:
    """Closes the connection."""
    raise NotImplementedError(f"{type(self).__name__} does not implement close")


__all__ = ["BaseLlmConnection"]
