"""The generator `Runner.run_async` returns, which lets go of the session when a caller drops it."""

from __future__ import annotations

from typing import Any, Optional

from .sessions.base_session_service import TurnClaim


class TurnHold:
  """Where a turn puts its claim, shared by the turn's generator and the stream that wraps it
  (the generator must not refer to the stream, or dropping the stream would free nothing)."""

  __slots__ = ("claim",)

  def __init__(self) -> None:
    self.claim: Optional[TurnClaim] = None


class TurnStream:
  """The turn's events, as an async generator (`async for`, `aclose`, `asend`, `athrow`).

  A caller that stops reading early (`break` out of `async for`, as google-adk's tutorials do
  after the final response) drops the stream: the turn's claim then dies at once, so the next
  turn on the session is not refused while asyncio gets round to closing the abandoned
  generator (whose cleanup then tells the store).
  """

  __slots__ = ("_events", "_hold")

  def __init__(self, events: Any, hold: TurnHold) -> None:
    self._events = events
    self._hold = hold

  def __aiter__(self) -> "TurnStream":
    return self

  def __anext__(self) -> Any:
    return self._events.__anext__()

  def asend(self, value: Any) -> Any:
    return self._events.asend(value)

  def athrow(self, *args: Any) -> Any:
    return self._events.athrow(*args)

  def aclose(self) -> Any:
    return self._events.aclose()

  def __del__(self) -> None:
    claim = self._hold.claim
    if claim is not None:
      claim.drop()
