"""How a run's events reach the HTTP response that asked for them, with a bound on what waits in between.

A run started by `/run` or `/run_sse` is a task that outlives its request (a client that disconnects
does not cancel the run: its events are stored as they happen). Between the two sits an
`EventChannel` holding at most `MAX_BUFFERED_EVENTS` events. The policy when a client reads slower
than the run produces:

- while the client is connected, the run waits for it (it blocks on the full channel after each
  committed event, as google-adk's SSE endpoint does, which drives the run from the response);
- once the client is gone, the channel is abandoned: what it held is dropped, the run goes on at
  full speed, and nothing more is buffered. Every event is in the session either way, so a client
  that reconnects reads them there (GET .../sessions/{id}).

No event is ever dropped while a client is still reading, and memory per run is bounded.
"""

from __future__ import annotations

import asyncio
from typing import Any, Optional

MAX_BUFFERED_EVENTS = 256
"""Events a run may be ahead of its client before it waits for the client to read."""


class EventChannel:
  """One run's events (then an exception, then None for the end) on their way to one response."""

  def __init__(self, limit: int = 0) -> None:
    self._queue: asyncio.Queue = asyncio.Queue(limit or MAX_BUFFERED_EVENTS)
    self._abandoned = False
    self._closing: Optional[asyncio.Task] = None  # kept referenced until it has run

  @property
  def buffered(self) -> int:
    """Items produced and not yet read."""
    return self._queue.qsize()

  async def put(self, item: Any) -> None:
    """Hands `item` to the reader, waiting while the channel is full; returns at once once abandoned."""
    if not self._abandoned:
      await self._queue.put(item)

  def close(self, error: Optional[BaseException] = None) -> None:
    """Ends the run's items (its exception first, if it failed) without waiting: a run's last word never blocks."""
    if self._abandoned:
      return
    last = [error, None] if error is not None else [None]
    if self._queue.maxsize - self._queue.qsize() >= len(last):
      for item in last:
        self._queue.put_nowait(item)
      return

    async def put_after_reader_catches_up() -> None:
      for item in last:
        await self.put(item)

    self._closing = asyncio.get_running_loop().create_task(put_after_reader_catches_up())

  async def get(self) -> Any:
    """The next item (an event, an exception, or None: the run ended)."""
    return await self._queue.get()

  def abandon(self) -> None:
    """The client is gone: drop what is held and every later item, so the run never waits again."""
    self._abandoned = True
    while not self._queue.empty():  # frees a producer blocked in put(); its item is then dropped with the rest
      self._queue.get_nowait()
