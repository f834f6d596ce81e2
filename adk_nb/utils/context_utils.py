"""`Aclosing`: close an async generator when the `async with` block ends, even on break or error."""

from __future__ import annotations

from typing import Any


class Aclosing:
  """Async context manager that calls `aclose()` on what it wraps when the block exits.

  `async with Aclosing(agen): async for x in agen: ...` makes sure a generator that was left
  early (a `break`, an exception) runs its `finally` blocks now rather than at garbage collection.
  """

  def __init__(self, thing: Any):
    self.thing = thing

  async def __aenter__(self) -> Any:
    return self.thing

  async def __aexit__(self, *exc_info: Any) -> None:
    await self.thing.aclose()


__all__ = ["Aclosing"]
