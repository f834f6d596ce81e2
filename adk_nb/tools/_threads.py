"""Synchronous tool functions run on worker threads, so they neither block the loop nor ignore a cancel.

google-adk 2.13 calls a sync tool on the event loop unless `RunConfig.tool_thread_pool_config`
is set. adk_nb always uses a thread: on the loop, `time.sleep(30)` in a tool stalls every
parallel branch and a kernel interrupt cannot stop it. What differs from running on the loop:

- A cancel (kernel interrupt, `run.cancel()`, a failing sibling) returns at once; the thread
  cannot be stopped and finishes in the background. Its result and state writes are dropped,
  and the next run answers the call as interrupted, outcome unknown (as for a killed process).
- Several sync calls of one model turn run at the same time, as async tools already do.
- State writes from the thread (`tool_context.state[k] = v`) go to the call's `state_delta`
  at once, in order, and the tool reads them back; the session's merged view gets them on the
  loop's thread when the call returns (so a cancelled call leaves no trace in it).

A tool that must run on the loop's thread (one that touches widgets, say) is written `async def`.
As in google-adk's pool, argument checks and callbacks stay on the loop and only the function
moves; unlike it, a sync `require_confirmation` predicate also stays on the loop (it should be quick).

Quick tools skip the hand-off. Handing a call to a thread and back costs 50-200 us of CPU on a
virtual machine (two thread wake-ups and the GIL changing hands), far more than a lookup that
returns in microseconds. So a sync tool whose first QUICK_CALLS calls each returned within
QUICK_SECONDS runs on the loop's thread from then on (in a copy of the context, as on a thread);
one call there that takes over SLOW_SECONDS sends it back to threads for good. A tool that blocks
(sleeps, waits on the network) is slow from its first calls and never leaves the threads. A tool that
runs an event loop of its own (`asyncio.run`) is refused one by asyncio on the loop's thread: that call
is made again on a thread (what the tool did before reaching asyncio runs twice, once), and the tool
stays there. Setting
`RunConfig.tool_thread_pool_config` keeps every call on the pool.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, Optional

from ..sessions.state import State

if TYPE_CHECKING:
  from .tool_context import ToolContext

logger = logging.getLogger("adk_nb.tools")

QUICK_SECONDS = 0.002
"""A call that returns within this many seconds counts as quick."""
QUICK_CALLS = 3
"""After this many quick calls in a row on threads, a sync tool runs on the loop's thread."""
SLOW_SECONDS = 0.05
"""A call on the loop's thread that takes longer sends its tool back to threads for good."""

DEFAULT_MAX_WORKERS = 4
"""Threads per event loop when `RunConfig.tool_thread_pool_config` is not set (ADK's default size)."""

_pools: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, ThreadPoolExecutor]]" = (
    weakref.WeakKeyDictionary())
_pools_lock = threading.Lock()  # loops on other threads (Runner.run's worker) reach the registry too


def tool_pool(max_workers: int = DEFAULT_MAX_WORKERS) -> ThreadPoolExecutor:
  """The running loop's pool for tool calls (its own, so blocked tools never starve the loop's default executor)."""
  loop = asyncio.get_running_loop()
  with _pools_lock:
    pools = _pools.setdefault(loop, {})
    pool = pools.get(max_workers)
    if pool is None:
      pool = pools[max_workers] = ThreadPoolExecutor(max_workers, thread_name_prefix="adk_nb_tool")
      weakref.finalize(loop, pool.shutdown, wait=False)
    return pool


class _ThreadState(State):
  """The state view a tool's thread writes: into the call's delta only, remembering the keys."""

  __slots__ = ("written", "original")

  def __init__(self, original: State):
    super().__init__(original._value, original._delta)
    self.original = original
    self.written: list[str] = []

  def __setitem__(self, key: str, value: Any) -> None:
    self._delta[key] = value
    self.written.append(key)


async def call_in_thread(func: Callable[..., Any], args: list[Any], kwargs: dict[str, Any],
                         tool_context: Optional["ToolContext"] = None) -> Any:
  """`func(*args, **kwargs)` on the loop's tool pool, with the caller's context variables."""
  pool = tool_pool(_max_workers(tool_context))
  state = _detach_state(tool_context)
  context = contextvars.copy_context()
  try:
    result = await asyncio.get_running_loop().run_in_executor(pool, lambda: context.run(func, *args, **kwargs))
  except asyncio.CancelledError:
    raise  # the thread runs on; its writes stay in the abandoned call's delta, never in the session
  except BaseException:
    _reattach_state(tool_context, state)
    raise
  _reattach_state(tool_context, state)
  return result


class Pace:
  """How one sync tool's calls have gone: where its next call runs."""

  __slots__ = ("quick", "inline", "settled")

  def __init__(self) -> None:
    self.quick = 0
    """Quick calls in a row so far (on threads)."""
    self.inline = False
    """True once the tool runs on the loop's thread."""
    self.settled = False
    """True once the tool was slow on the loop's thread: it stays on threads."""


async def call_sync_tool(func: Callable[..., Any], args: list[Any], kwargs: dict[str, Any],
                         tool_context: Optional["ToolContext"], pace: Pace) -> Any:
  """A sync tool's call: on the loop's thread once it has proven quick, else on the tool pool."""
  if pace.inline:
    start = time.perf_counter()
    try:
      return contextvars.copy_context().run(func, *args, **kwargs)
    except RuntimeError as exc:
      if not _needs_own_loop(exc):
        raise
      # The tool runs an event loop of its own (asyncio.run, run_until_complete), which asyncio refuses
      # on a thread whose loop is running: the call is made again on a thread, where it always ran
      # before (what the tool did before reaching asyncio ran twice). Threads for good.
      pace.inline, pace.settled = False, True
      logger.info("Tool function %s runs its own event loop: its calls run on worker threads from now on.",
                  getattr(func, "__qualname__", func))
      return await call_in_thread(func, args, kwargs, tool_context)
    finally:
      elapsed = time.perf_counter() - start
      if pace.inline and elapsed > SLOW_SECONDS:
        pace.inline, pace.settled = False, True
        logger.info("Tool function %s took %.0f ms on the event loop's thread: its calls run on worker threads "
                    "from now on.", getattr(func, "__qualname__", func), elapsed * 1000)
  took: list[float] = []

  def timed(*a: Any, **k: Any) -> Any:
    start = time.perf_counter()
    try:
      return func(*a, **k)
    finally:
      took.append(time.perf_counter() - start)

  result = await call_in_thread(timed, args, kwargs, tool_context)
  if not pace.settled and _max_workers(tool_context, configured_only=True) is None:
    pace.quick = pace.quick + 1 if took and took[0] <= QUICK_SECONDS else 0
    pace.inline = pace.quick >= QUICK_CALLS
  return result


def _needs_own_loop(exc: RuntimeError) -> bool:
  """True when asyncio refused to start a loop because this thread's loop is running."""
  tb = exc.__traceback__
  while tb is not None and tb.tb_next is not None:
    tb = tb.tb_next
  return tb is not None and f"{os.sep}asyncio{os.sep}" in tb.tb_frame.f_code.co_filename and (
      "running event loop" in str(exc) or "another loop is running" in str(exc) or "already running" in str(exc))


def _max_workers(tool_context: Optional["ToolContext"], configured_only: bool = False) -> Optional[int]:
  """The pool size RunConfig.tool_thread_pool_config sets; else the default (None if `configured_only`)."""
  ctx = getattr(tool_context, "_invocation_context", None)
  config = getattr(getattr(ctx, "run_config", None), "tool_thread_pool_config", None)
  workers = getattr(config, "max_workers", None)
  # Only a real ToolThreadPoolConfig counts: a context stand-in (a test's mock) gets the default.
  if isinstance(workers, int) and workers >= 1:
    return workers
  return None if configured_only else DEFAULT_MAX_WORKERS


def _detach_state(tool_context: Optional["ToolContext"]) -> Optional[_ThreadState]:
  current = getattr(tool_context, "_state", None)
  if not isinstance(current, State):
    return None
  detached = _ThreadState(current)
  tool_context._state = detached  # type: ignore[union-attr]
  return detached


def _reattach_state(tool_context: Optional["ToolContext"], detached: Optional[_ThreadState]) -> None:
  """Back on the loop's thread: the thread's writes reach the session's merged view, in order."""
  if detached is None:
    return
  for key in dict.fromkeys(detached.written):
    detached._value[key] = detached._delta[key]
  tool_context._state = detached.original  # type: ignore[union-attr]
