"""One supervised child process: bounded output, a deadline, and its whole process group ended on exit.

`run_process` is what `UnsafeLocalCodeExecutor` runs each code block with. It reads the child's
stdout and stderr as they come and keeps at most `max_chars` characters of each (the head and the
tail, with a marker saying how much was left out), so a print loop costs CPU, not memory. Whatever
way the run ends (the code returns, fails, times out, or the caller stops waiting), every process in
the child's group is killed before `run_process` returns: nothing the code started outlives its run.

`abandon_on_cancel` is the asyncio side: a run whose awaiting task is cancelled (or whose generator
is closed) has its process group killed at once, and its worker thread then ends.
"""

from __future__ import annotations

import asyncio
import codecs
import contextvars
import dataclasses
import os
import selectors
import signal
import subprocess
import threading
import time
from typing import Any, Callable, Optional, TypeVar

GRACE_SECONDS = 2.0
"""How long a timed-out run has between SIGTERM and SIGKILL, and how long pipes are read after exit."""

_POLL_SECONDS = 0.05
"""Where the OS has no process file descriptor: how often a run's exit is checked while pipes stay open."""

_CHUNK = 1 << 16

T = TypeVar("T")



class _Groups:
  """Process groups started under one `abandon_on_cancel` and not yet reaped (filled on the worker thread)."""

  def __init__(self) -> None:
    self._lock = threading.Lock()
    self._pids: set[int] = set()

  def add(self, pid: int) -> None:
    with self._lock:
      self._pids.add(pid)

  def discard(self, pid: int) -> None:
    """Called before the leader is reaped: until then its group id cannot be reused."""
    with self._lock:
      self._pids.discard(pid)

  def kill_all(self) -> None:
    with self._lock:
      for pid in self._pids:
        kill_group(pid)


_live_groups: contextvars.ContextVar[Optional[_Groups]] = contextvars.ContextVar(
    "adk_nb_code_process_groups", default=None)


class CappedText:
  """The text of one output stream: its first and last characters, with a marker for what was cut."""

  def __init__(self, max_chars: int, setting: str = "max_output_chars") -> None:
    self._head_room = max_chars - max_chars // 2
    self._tail_room = max_chars // 2
    self._setting = setting
    self._head: list[str] = []
    self._tail = ""
    self.left_out = 0
    """How many characters fell between the kept head and tail."""
    self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

  def feed(self, data: bytes, final: bool = False) -> None:
    """Adds bytes read from the stream (`final` at end of stream, to flush a cut multi-byte character)."""
    text = self._decoder.decode(data, final)
    if self._head_room and text:
      kept = text[:self._head_room]
      self._head.append(kept)
      self._head_room -= len(kept)
      text = text[len(kept):]
    if not text:
      return
    tail = self._tail + text
    cut = len(tail) - self._tail_room
    if cut > 0:
      self.left_out += cut
      tail = tail[cut:]
    self._tail = tail

  def text(self) -> str:
    """What was kept; the marker names the count left out and the setting that keeps more."""
    head = "".join(self._head)
    if not self.left_out:
      return head + self._tail
    marker = (f"\n...[{self.left_out} characters of output left out; raise {self._setting} on the "
              f"code executor to keep more]...\n")
    return head + marker + self._tail


@dataclasses.dataclass
class Finished:
  """How a supervised run ended."""

  stdout: str
  stderr: str
  returncode: int
  timed_out: bool


def run_process(argv: list[str], stdin: bytes, env: dict[str, str], timeout: Optional[float],
                max_chars: int) -> Finished:
  """Runs `argv` in a new process group with `stdin` as its input; see the module docstring."""
  child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=env, start_new_session=True)
  groups = _live_groups.get()
  if groups is not None:
    groups.add(child.pid)
  try:
    out, err = CappedText(max_chars), CappedText(max_chars)
    timed_out = _supervise(child, stdin, timeout, out, err)
    return Finished(out.text(), err.text(), child.returncode, timed_out)
  finally:
    # Every exit (success, error, timeout, an exception here) ends what the code started.
    kill_group(child.pid)
    if child.poll() is None:
      child.kill()
    if groups is not None:
      groups.discard(child.pid)
    child.wait()
    for pipe in (child.stdin, child.stdout, child.stderr):
      try:
        pipe.close()
      except OSError:  # stdin's unwritten rest to a dead child
        pass


def _supervise(child: subprocess.Popen, stdin: bytes, timeout: Optional[float], out: CappedText,
               err: CappedText) -> bool:
  """Pumps the pipes until the run has ended and its output is read; returns whether it timed out."""
  selector = selectors.DefaultSelector()
  for pipe, sink in ((child.stdout, out), (child.stderr, err)):
    os.set_blocking(pipe.fileno(), False)
    selector.register(pipe.fileno(), selectors.EVENT_READ, sink)
  pending = memoryview(stdin)
  if pending:
    os.set_blocking(child.stdin.fileno(), False)
    selector.register(child.stdin.fileno(), selectors.EVENT_WRITE, "stdin")
  else:
    child.stdin.close()
  exit_fd = _exit_fd(child.pid)
  if exit_fd is not None:
    selector.register(exit_fd, selectors.EVENT_READ, "exit")
  deadline = None if timeout is None else time.monotonic() + timeout
  timed_out = False
  kill_at = stop_reading_at = None
  try:
    while True:
      now = time.monotonic()
      if child.poll() is not None:
        if stop_reading_at is None:
          kill_group(child.pid)  # the code is done: what it started ends with it, closing the pipes
          stop_reading_at = now + GRACE_SECONDS
      elif deadline is not None and not timed_out and now >= deadline:
        timed_out = True
        kill_group(child.pid, signal.SIGTERM)
        child.terminate()
        kill_at = now + GRACE_SECONDS
      elif kill_at is not None and now >= kill_at:
        kill_group(child.pid)
        child.kill()
        kill_at = None
      readers = sum(1 for key in selector.get_map().values() if isinstance(key.data, CappedText))
      if child.returncode is not None and (not readers or now >= stop_reading_at):
        return timed_out  # past the grace, a process that left the group holds the pipes: stop reading
      for key, _ in selector.select(_wait(now, deadline if not timed_out else None, kill_at, stop_reading_at,
                                          poll=exit_fd is None and child.returncode is None)):
        if key.data == "exit":
          selector.unregister(key.fd)
        elif key.data == "stdin":
          pending = _write_some(child, selector, pending)
        else:
          data = _read_some(key.fd)
          if data:
            key.data.feed(data)
          elif data is not None:
            selector.unregister(key.fd)
            key.data.feed(b"", final=True)
  finally:
    selector.close()
    if exit_fd is not None:
      os.close(exit_fd)


def _wait(now: float, *moments: Optional[float], poll: bool) -> Optional[float]:
  waits = [max(0.0, moment - now) for moment in moments if moment is not None]
  if poll:
    waits.append(_POLL_SECONDS)
  return min(waits) if waits else None


def _read_some(fd: int) -> Optional[bytes]:
  """The next chunk; b"" at end of stream; None when nothing is there after all (still open)."""
  try:
    return os.read(fd, _CHUNK)
  except BlockingIOError:
    return None
  except OSError:
    return b""


def _write_some(child: subprocess.Popen, selector: selectors.BaseSelector, pending: memoryview) -> memoryview:
  try:
    written = os.write(child.stdin.fileno(), pending[:_CHUNK])
  except BlockingIOError:
    return pending
  except OSError:  # the child closed stdin or died: the rest is not wanted
    written = len(pending)
  pending = pending[written:]
  if not pending:
    selector.unregister(child.stdin.fileno())
    try:
      child.stdin.close()
    except OSError:
      pass
  return pending


def _exit_fd(pid: int) -> Optional[int]:
  """A descriptor that becomes readable when `pid` exits (Linux); None elsewhere (then exit is polled)."""
  try:
    return os.pidfd_open(pid)
  except (AttributeError, OSError):
    return None


def kill_group(pid: int, sig: int = getattr(signal, "SIGKILL", signal.SIGTERM)) -> None:
  """Signals every process in the group `pid` leads; a group already gone is not an error."""
  try:
    os.killpg(pid, sig)
  except (OSError, AttributeError):  # group already gone, or no process groups (Windows)
    pass


async def abandon_on_cancel(function: Callable[..., T], *args: Any) -> T:
  """Runs `function(*args)` on a worker thread; if the caller stops waiting, kills the runs it started."""
  groups = _Groups()
  token = _live_groups.set(groups)
  try:
    return await asyncio.to_thread(function, *args)
  finally:
    _live_groups.reset(token)
    groups.kill_all()  # a group is left only when the caller went away while its run was going on
