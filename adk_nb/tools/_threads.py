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
- A tool may run an event loop of its own (`asyncio.run`): its thread has none running.

Where a call runs is decided by the tool's declaration only, never by how long calls took:
a tool that must run on the loop's thread (one that touches widgets, or a lookup so quick that
the 50-200 us hand-off to a thread and back dominates) is written `async def`, or wrapped as
`FunctionTool(func, run_on_loop=True)`. As in google-adk's pool, argument checks and callbacks
stay on the loop and only the function moves; unlike it, a sync `require_confirmation`
predicate also stays on the loop (it should be quick).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, Optional

from ..sessions.state import State

if TYPE_CHECKING:
  from .tool_context import ToolContext

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


def _max_workers(tool_context: Optional["ToolContext"]) -> int:
  """The pool size RunConfig.tool_thread_pool_config sets; else the default."""
  ctx = getattr(tool_context, "_invocation_context", None)
  config = getattr(getattr(ctx, "run_config", None), "tool_thread_pool_config", None)
  workers = getattr(config, "max_workers", None)
  # Only a real ToolThreadPoolConfig counts: a context stand-in (a test's mock) gets the default.
  if isinstance(workers, int) and workers >= 1:
    return workers
  return DEFAULT_MAX_WORKERS


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
