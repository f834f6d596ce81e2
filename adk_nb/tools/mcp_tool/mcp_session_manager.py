"""MCP connections: the connection parameters and the sessions a toolset keeps open.

Lifecycle (one `MCPSessionManager` per toolset):
- a session opens lazily, on the first listing or call, and is reused across turns;
- there is one session per event loop (and per set of request headers): the notebook
  kernel's loop and the worker loop of the sync `Runner.run` never share a session;
- a session whose server died is dropped and the next request opens a new one; a request
  that was in flight when the server died is not retried (it may have run);
- `close()` (called by `Runner.close()` and `McpToolset.close()`), the end of the event
  loop, and interpreter exit all shut the server down: its stdin closes, then the SDK
  terminates its process group. A killed kernel leaves no server either: a stdio server
  reads EOF on stdin and exits.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import sys
import weakref
from typing import Any, Optional, TextIO, Union

from pydantic import BaseModel, ConfigDict, field_validator
from ...errors.adk_nb_error import AdkNbError

logger = logging.getLogger("adk_nb.tools.mcp")

MCP_EXTRA_HINT = 'MCP tools need the official MCP SDK: pip install "adk_nb[mcp]"'


def import_mcp():
  """The `mcp` package, or an ImportError that names the extra to install."""
  try:
    import mcp
  except ImportError as exc:
    raise ImportError(MCP_EXTRA_HINT) from exc
  return mcp


class StdioConnectionParams(BaseModel):
  """Run an MCP server as a subprocess and talk to it over stdin/stdout.

  Args:
    server_params: the SDK's `mcp.StdioServerParameters(command=..., args=[...], env=...)`.
    timeout: seconds to wait for the server to start and for each request's answer.
  """

  model_config = ConfigDict(arbitrary_types_allowed=True)
  server_params: Any
  """`mcp.StdioServerParameters`: the command, its arguments, environment and working folder."""
  timeout: float = 5.0
  """Seconds to wait for start-up and for each request."""

  @field_validator("server_params")
  @classmethod
  def _check_params(cls, value: Any) -> Any:
    if not isinstance(getattr(value, "command", None), str):
      raise ValueError("server_params must be mcp.StdioServerParameters(command='...', args=[...]).")
    return value


class SseConnectionParams(BaseModel):
  """Connect to an MCP server over HTTP with server-sent events (the older HTTP transport)."""

  url: str
  """The SSE endpoint, e.g. 'http://127.0.0.1:8000/sse'."""
  headers: Optional[dict[str, Any]] = None
  """Headers sent with every request (merged under the header_provider's)."""
  timeout: float = 5.0
  """Seconds for connecting and for each request."""
  sse_read_timeout: float = 60 * 5.0
  """Seconds to wait for the next event on the stream."""


class StreamableHTTPConnectionParams(BaseModel):
  """Connect to an MCP server over streamable HTTP (the current HTTP transport)."""

  url: str
  """The MCP endpoint, e.g. 'http://127.0.0.1:8000/mcp'."""
  headers: Optional[dict[str, Any]] = None
  """Headers sent with every request (merged under the header_provider's)."""
  timeout: float = 5.0
  """Seconds for connecting and for each request."""
  sse_read_timeout: float = 60 * 5.0
  """Seconds to wait for the next event on a streamed answer."""
  terminate_on_close: bool = True
  """Ask the server to end the session when the toolset closes."""


ConnectionParams = Union[StdioConnectionParams, SseConnectionParams, StreamableHTTPConnectionParams]


STARTUP_TIMEOUT = 60.0
"""Seconds a server may take to start (a first `npx`/`uvx` run downloads the server)."""


def startup_timeout(params: "ConnectionParams") -> float:
  return max(params.timeout, STARTUP_TIMEOUT)


class McpConnectionError(AdkNbError, ConnectionError):
  """An MCP server could not be started or reached; the message names the server and the fix."""


def describe_server(params: ConnectionParams) -> str:
  """A short name for the server in error messages: its command line or URL."""
  if isinstance(params, StdioConnectionParams):
    sp = params.server_params
    words = [sp.command, *list(getattr(sp, "args", []) or [])]
    text = " ".join(str(w) for w in words)
    return f"stdio server `{text if len(text) <= 120 else text[:117] + '...'}`"
  return f"server at {params.url}"


def normalize_params(params: Any) -> ConnectionParams:
  """Accepts the SDK's StdioServerParameters directly, as google-adk does."""
  if isinstance(params, (StdioConnectionParams, SseConnectionParams, StreamableHTTPConnectionParams)):
    return params
  if isinstance(getattr(params, "command", None), str):
    return StdioConnectionParams(server_params=params)
  raise TypeError(
      "connection_params must be StdioConnectionParams(server_params=StdioServerParameters(...)), "
      f"StreamableHTTPConnectionParams(url=...) or SseConnectionParams(url=...), not {type(params).__name__}."
  )


class _Connection:
  """One initialized ClientSession, owned by a task on one event loop.

  The SDK's transports are anyio context managers that must be entered and left by the
  same task, so a dedicated task holds them open until `close()`.
  """

  def __init__(self, params: ConnectionParams, headers: Optional[dict[str, str]], errlog: TextIO) -> None:
    self.params = params
    self.headers = headers
    self.errlog = errlog
    self.session: Any = None
    self._read_stream: Any = None
    self._task: Optional[asyncio.Task] = None
    self._stop: Optional[asyncio.Event] = None
    self.broken = False
    self.loop: Optional[asyncio.AbstractEventLoop] = None

  async def open(self) -> None:
    loop = self.loop = asyncio.get_running_loop()
    ready: asyncio.Future = loop.create_future()
    self._stop = asyncio.Event()
    self._task = loop.create_task(self._hold(ready), name=f"mcp session: {describe_server(self.params)}")
    limit = startup_timeout(self.params)
    try:
      await asyncio.wait_for(asyncio.shield(ready), timeout=limit)
    except asyncio.TimeoutError:
      await self.close()
      raise McpConnectionError(
          f"MCP {describe_server(self.params)} did not finish starting within {limit:g} s; check that the "
          "command starts an MCP server (it must not print anything but protocol messages to stdout)."
      ) from None
    except BaseException:
      await self.close()
      raise

  async def _hold(self, ready: asyncio.Future) -> None:
    mcp = import_mcp()
    try:
      async with contextlib.AsyncExitStack() as stack:
        read, write = await stack.enter_async_context(self._transport(mcp))
        # No session-wide read timeout: start-up gets its own allowance, requests params.timeout.
        session = await stack.enter_async_context(mcp.ClientSession(read, write))
        await session.initialize()
        self.session, self._read_stream = session, read
        if not ready.done():
          ready.set_result(None)
        await self._stop.wait()
    except BaseException as exc:  # noqa: BLE001 - reported to whoever waits for the start
      self.broken = True
      if not ready.done():
        ready.set_exception(_start_error(self.params, exc))
      elif not isinstance(exc, (asyncio.CancelledError, GeneratorExit)):
        logger.debug("MCP session for %s ended: %r", describe_server(self.params), exc)
      if isinstance(exc, asyncio.CancelledError):
        raise
    finally:
      self.broken = True

  def _transport(self, mcp):
    params = self.params
    if isinstance(params, StdioConnectionParams):
      return mcp.stdio_client(params.server_params, errlog=_with_fileno(self.errlog))
    headers = {**(params.headers or {}), **(self.headers or {})}
    if isinstance(params, SseConnectionParams):
      from mcp.client.sse import sse_client

      return sse_client(params.url, headers=headers, timeout=params.timeout,
                        sse_read_timeout=params.sse_read_timeout)
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    client = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(params.timeout, read=params.sse_read_timeout))
    return _owning(client, streamable_http_client(params.url, http_client=client,
                                                  terminate_on_close=params.terminate_on_close))

  @property
  def alive(self) -> bool:
    """False once the server is known to be gone (its output stream ended) or the task ended."""
    if self.broken or self._task is None or self._task.done():
      return False
    state = getattr(self._read_stream, "_state", None)
    if getattr(self._read_stream, "_closed", False) or getattr(state, "open_send_channels", 1) == 0:
      return False
    return True

  async def close(self) -> None:
    self.broken = True
    task = self._task
    if task is None or task.done():
      return
    self._stop.set()
    try:
      # The SDK's shutdown is bounded (stdin close, then SIGTERM/SIGKILL of the process group).
      await asyncio.wait_for(asyncio.shield(task), timeout=15)
    except asyncio.TimeoutError:
      task.cancel()
    except Exception:  # noqa: BLE001 - the server's own failure; nothing left to release
      pass


def _with_fileno(stream: TextIO) -> TextIO:
  """A stream a subprocess can write to.

  In a Jupyter kernel sys.stderr is the kernel's output stream, which has no file descriptor;
  the server's stderr then goes to the kernel process's own stderr (the Jupyter server's log).
  """
  try:
    stream.fileno()
    return stream
  except (AttributeError, OSError, ValueError):
    fallback = sys.__stderr__
    try:
      fallback.fileno()
      return fallback
    except (AttributeError, OSError, ValueError):
      return open(os.devnull, "w")


@contextlib.asynccontextmanager
async def _owning(client, transport):
  """Enters the streamable-HTTP transport and closes its HTTP client afterwards."""
  async with client:
    async with transport as streams:
      yield streams


def _start_error(params: ConnectionParams, exc: BaseException) -> BaseException:
  name = describe_server(params)
  if isinstance(exc, asyncio.CancelledError):
    return exc
  if isinstance(exc, FileNotFoundError):
    command = params.server_params.command if isinstance(params, StdioConnectionParams) else ""
    return McpConnectionError(f"MCP {name} could not start: command {command!r} was not found. "
                              "Pass the full path, or install the server so it is on PATH.")
  inner = getattr(exc, "exceptions", None)  # anyio wraps failures in an exception group
  if isinstance(inner, (list, tuple)) and len(inner) == 1:
    return _start_error(params, inner[0])
  text = str(exc) or type(exc).__name__
  if "Connection closed" in text and isinstance(params, StdioConnectionParams):
    return McpConnectionError(f"MCP {name} exited before it finished starting; run the command in a terminal "
                              "to see its error output.")
  return McpConnectionError(f"MCP {name} could not be reached: {type(exc).__name__}: {text}")


class MCPSessionManager:
  """The open sessions of one toolset: one per event loop and header set."""

  def __init__(self, connection_params: Any, errlog: TextIO = sys.stderr) -> None:
    self.connection_params: ConnectionParams = normalize_params(connection_params)
    self.errlog = errlog
    self._connections: dict[tuple, _Connection] = {}
    self._locks: dict[int, tuple[asyncio.AbstractEventLoop, asyncio.Lock]] = {}
    _LIVE.add(self)

  @property
  def server_name(self) -> str:
    return describe_server(self.connection_params)

  def _key(self, headers: Optional[dict[str, str]]) -> tuple:
    loop = asyncio.get_running_loop()
    return (id(loop), tuple(sorted((headers or {}).items())))

  async def create_session(self, headers: Optional[dict[str, str]] = None) -> Any:
    """The live session for this loop and headers, opening (or re-opening) it when needed."""
    key = self._key(headers)
    conn = self._connections.get(key)
    if conn is not None and conn.alive and conn.loop is asyncio.get_running_loop():
      return conn.session
    async with self._lock():
      conn = self._connections.get(key)
      if conn is not None and conn.alive and conn.loop is asyncio.get_running_loop():
        return conn.session
      if conn is not None:  # the server died since the last request (or the loop is new): start anew
        await conn.close()
        self._connections.pop(key, None)
      self._purge_closed_loops()
      conn = _Connection(self.connection_params, headers, self.errlog)
      await conn.open()
      self._connections[key] = conn
      return conn.session

  def _lock(self) -> asyncio.Lock:
    """This loop's lock for opening sessions (a loop's id can be reused once it is closed)."""
    loop = asyncio.get_running_loop()
    held = self._locks.get(id(loop))
    if held is None or held[0] is not loop:
      held = self._locks[id(loop)] = (loop, asyncio.Lock())
    return held[1]

  def discard(self, headers: Optional[dict[str, str]] = None) -> None:
    """Marks this loop's session as dead so the next request opens a new one."""
    conn = self._connections.get(self._key(headers))
    if conn is not None:
      conn.broken = True

  def _purge_closed_loops(self) -> None:
    for key, conn in list(self._connections.items()):
      if conn.loop.is_closed():
        self._connections.pop(key, None)

  async def close(self) -> None:
    """Closes the sessions of the running loop (and of other loops, when they still run)."""
    current = asyncio.get_running_loop()
    for key, conn in list(self._connections.items()):
      self._connections.pop(key, None)
      if conn.loop is current:
        await conn.close()
      elif conn.loop.is_running():  # a session opened by the sync Runner.run's worker loop
        future = asyncio.run_coroutine_threadsafe(conn.close(), conn.loop)
        await asyncio.wrap_future(future)
      # A stopped loop's session is closed at interpreter exit (or ended with its loop).

  def _close_at_exit(self) -> None:
    for key, conn in list(self._connections.items()):
      self._connections.pop(key, None)
      loop = conn.loop
      try:
        if loop.is_closed() or conn._task is None or conn._task.done():
          continue
        if loop.is_running():
          asyncio.run_coroutine_threadsafe(conn.close(), loop).result(timeout=15)
        else:
          loop.run_until_complete(conn.close())
      except Exception:  # noqa: BLE001 - best effort at exit; the server still sees stdin close
        logger.debug("Closing MCP session at exit failed", exc_info=True)


_LIVE: "weakref.WeakSet[MCPSessionManager]" = weakref.WeakSet()


@atexit.register
def _close_all_at_exit() -> None:
  for manager in list(_LIVE):
    manager._close_at_exit()


# The names google-adk's older samples use for the same parameters.
SseServerParams = SseConnectionParams
StreamableHTTPServerParams = StreamableHTTPConnectionParams


def __getattr__(name: str) -> Any:
  # The MCP SDK's own parameter class, re-exported where google-adk's samples import it; the SDK
  # is optional, so it is imported on first use of the name.
  if name == "StdioServerParameters":
    return import_mcp().StdioServerParameters
  raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
