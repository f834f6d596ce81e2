"""The queue a client feeds a live (bidirectional streaming) run with.

The queue itself works; adk_nb does not run live sessions (`Runner.run_live` raises
`NotImplementedError`, README "Compatibility"), so nothing consumes it inside adk_nb yet.
"""

from __future__ import annotations

import asyncio
from typing import Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict


class LiveRequest(BaseModel):
  """One message to a live agent: content (turn by turn), a realtime blob, an activity signal or close."""

  model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

  content: Optional[types.Content] = None
  """A whole turn sent to the model."""
  blob: Optional[types.Blob] = None
  """Realtime media (audio, video frames)."""
  activity_start: Optional[types.ActivityStart] = None
  """The user started speaking (only with client-side voice activity detection)."""
  activity_end: Optional[types.ActivityEnd] = None
  """The user stopped speaking (only with client-side voice activity detection)."""
  close: bool = False
  """Ends the live run."""


class LiveRequestQueue:
  """FIFO of `LiveRequest`s: the client puts, the live run gets."""

  def __init__(self) -> None:
    self._queue: asyncio.Queue[LiveRequest] = asyncio.Queue()
    self._closed = False

  @property
  def closed(self) -> bool:
    """True once `close()` was called (or a request with `close=True` was sent)."""
    return self._closed

  def close(self) -> None:
    self.send(LiveRequest(close=True))

  def send_content(self, content: types.Content) -> None:
    self.send(LiveRequest(content=content))

  def send_realtime(self, blob: types.Blob) -> None:
    self.send(LiveRequest(blob=blob))

  def send_activity_start(self) -> None:
    self.send(LiveRequest(activity_start=types.ActivityStart()))

  def send_activity_end(self) -> None:
    self.send(LiveRequest(activity_end=types.ActivityEnd()))

  def send(self, req: LiveRequest) -> None:
    if req.close:
      self._closed = True
    self._queue.put_nowait(req)

  async def get(self) -> LiveRequest:
    """The next request, waiting until one arrives."""
    return await self._queue.get()


__all__ = ["LiveRequest", "LiveRequestQueue"]
