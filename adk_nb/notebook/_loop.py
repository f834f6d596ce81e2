"""Where notebook runs execute: the kernel's running loop, or a private loop outside a kernel."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any, Awaitable, Callable, Optional

logger = logging.getLogger("adk_nb.notebook")

_private_loop: Optional[asyncio.AbstractEventLoop] = None
_private_lock = threading.Lock()


def running_loop() -> Optional[asyncio.AbstractEventLoop]:
  """The loop running in this thread (the kernel's, inside a cell), or None."""
  try:
    return asyncio.get_running_loop()
  except RuntimeError:
    return None


def private_loop() -> asyncio.AbstractEventLoop:
  """The loop sync calls use outside a kernel.

  Like `asyncio.run`, but kept between calls, so a session store opened by `run()` is
  still usable by a later `run.approve()` (database connections belong to one loop).
  """
  global _private_loop
  with _private_lock:
    if _private_loop is None or _private_loop.is_closed():
      _private_loop = asyncio.new_event_loop()
    return _private_loop


def run_sync(coro: Awaitable[Any]) -> Any:
  """Runs `coro` to completion from sync code that has no running loop."""
  return private_loop().run_until_complete(coro)


def spawn(loop: asyncio.AbstractEventLoop, coro: Awaitable[Any], what: str) -> "asyncio.Task[Any]":
  """Starts `coro` as a task on `loop`; its failure is logged through a done-callback, never lost."""
  task = loop.create_task(coro)

  def _report(done: "asyncio.Task[Any]") -> None:
    if done.cancelled():
      return
    exc = done.exception()
    if exc is not None:
      logger.error("%s failed: %s", what, exc, exc_info=exc)

  task.add_done_callback(_report)
  return task


def call_in_loop(loop: Optional[asyncio.AbstractEventLoop], fn: Callable[[], Any]) -> None:
  """Calls `fn` on `loop`: now when already there (or when no loop runs, outside a kernel), else handed over.

  Widget clicks may arrive on another thread (ipykernel subshells); widgets and runs are
  only touched from the loop that owns them.
  """
  if loop is None or running_loop() is loop or not loop.is_running():
    fn()
  else:
    loop.call_soon_threadsafe(fn)
