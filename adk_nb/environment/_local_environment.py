"""LocalEnvironment: shell commands as subprocesses of this machine, files in one local directory."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Optional, Union

from ..features import experimental
from ._base_environment import BaseEnvironment, ExecutionResult, PathLike

logger = logging.getLogger(__name__)

_NOT_STARTED = "LocalEnvironment has no working directory yet: `await environment.initialize()` first."


@experimental
class LocalEnvironment(BaseEnvironment):
  """Runs commands with this machine's shell in a working directory, with the kernel's user rights.

  Without `working_dir`, `initialize()` creates a temporary directory (`adk_workspace_*`) and
  `close()` deletes it; a given `working_dir` is created if missing and never deleted.

  Not a sandbox: commands see your files, network and environment variables (`env_vars` are
  added to them). Each command runs in a process group of its own with standard input closed,
  so a command that waits for input gets end-of-file instead of hanging, and a timeout stops the
  command together with everything it started (SIGTERM to the group, SIGKILL after
  `terminate_grace_seconds`).
  """

  terminate_grace_seconds: float = 5.0
  """How long a timed-out command's group gets to exit after SIGTERM before SIGKILL (google-adk's 5 s)."""
  max_output_bytes: int = 16 * 1024 * 1024
  """Bytes of stdout and of stderr kept per command; the rest is read and counted, not kept (google-adk keeps
  everything: a command printing without end until its timeout could fill the kernel's memory)."""

  def __init__(self, *, working_dir: Optional[Path] = None, env_vars: Optional[dict[str, str]] = None) -> None:
    self._working_dir = Path(working_dir) if working_dir is not None else None
    self._env_vars = env_vars
    self._auto_created = False
    self._is_initialized = False

  @property
  def working_dir(self) -> Path:
    """The directory commands run in; raises RuntimeError before `initialize()` when none was given."""
    if self._working_dir is None:
      raise RuntimeError(_NOT_STARTED)
    return self._working_dir

  async def initialize(self) -> None:
    """Creates the working directory (a temporary one when none was given)."""
    if self._working_dir is None:
      self._working_dir = Path(tempfile.mkdtemp(prefix="adk_workspace_"))
      self._auto_created = True
    else:
      os.makedirs(self._working_dir, exist_ok=True)
    self._is_initialized = True

  async def close(self) -> None:
    """Deletes the working directory if `initialize()` created it; a given one is kept."""
    if self._auto_created and self._working_dir is not None:
      await asyncio.to_thread(shutil.rmtree, self._working_dir, True)
      self._working_dir = None
      self._auto_created = False
    self._is_initialized = False

  async def execute(self, command: str, *, timeout: Optional[float] = None) -> ExecutionResult:
    """Runs `command` with `/bin/sh` in the working directory without blocking the event loop."""
    cwd = self.working_dir
    env = dict(os.environ)
    if self._env_vars:
      env.update(self._env_vars)
    creating = asyncio.ensure_future(asyncio.create_subprocess_shell(
        command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, cwd=cwd, env=env,
        start_new_session=True))  # its own group: a timeout reaches what it started, and nothing else
    try:
      proc = await asyncio.shield(creating)
    except asyncio.CancelledError:
      # The command may already run (and have started children) before its pipes are connected:
      # asyncio would kill the shell alone, so finish creating it and stop its whole group.
      try:
        proc = await creating
      except Exception:
        raise asyncio.CancelledError() from None
      await self._stop(proc, self._collect(proc))
      raise
    # One reader for the whole call: the pipes stay open while any descendant holds them.
    output = self._collect(proc)
    timed_out = False
    try:
      stdout, stderr, _ = await asyncio.wait_for(asyncio.shield(output), timeout)
    except asyncio.TimeoutError:
      timed_out = True
      stdout, stderr = await self._stop(proc, output)
    except asyncio.CancelledError:
      await self._stop(proc, output)
      raise
    return ExecutionResult(exit_code=proc.returncode or 0, stdout=stdout, stderr=stderr, timed_out=timed_out)

  def _collect(self, proc: "asyncio.subprocess.Process") -> "asyncio.Future":
    """(stdout, stderr, exit code) of the command, once its pipes close and it exits."""
    return asyncio.ensure_future(asyncio.gather(
        _read_capped(proc.stdout, self.max_output_bytes), _read_capped(proc.stderr, self.max_output_bytes),
        proc.wait()))

  async def _stop(self, proc: "asyncio.subprocess.Process", output: "asyncio.Future") -> tuple[str, str]:
    """Stops the command's process group (SIGTERM, then SIGKILL) and returns what it had written."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
      _signal_group(proc, sig)
      done, _ = await asyncio.wait([output], timeout=self.terminate_grace_seconds)
      if done:
        break
    else:
      # A descendant left the group (setsid) and still holds the pipes: give up on its output.
      output.cancel()
      logger.warning("A timed-out command's descendant left its process group; its output was not read.")
      _signal_group(proc, signal.SIGKILL)
      await proc.wait()
      return "", ""
    await proc.wait()
    return output.result()[:2]

  async def read_file(self, path: PathLike) -> bytes:
    """The file's bytes; the path must lie inside the working directory (ValueError otherwise)."""
    return await asyncio.to_thread(Path.read_bytes, self._resolve_path(path))

  async def write_file(self, path: PathLike, content: Union[str, bytes]) -> None:
    """Writes the file inside the working directory, creating parent directories; str as UTF-8, newlines kept."""
    await asyncio.to_thread(_write, self._resolve_path(path), content)

  def _resolve_path(self, path: PathLike) -> Path:
    """`path` made absolute against the working directory; refuses one that leads outside it."""
    root = self.working_dir.resolve()
    candidate = Path(path)
    resolved = (candidate if candidate.is_absolute() else root / candidate).resolve()
    if not resolved.is_relative_to(root):
      raise ValueError(f"Path escapes working directory: {path} (give a path inside {root}).")
    return resolved


async def _read_capped(stream: "asyncio.StreamReader", cap: int) -> str:
  """Everything the stream gives until it closes, decoded; past `cap` bytes only counted, and a note says so."""
  kept = bytearray()
  total = 0
  while chunk := await stream.read(1 << 16):
    total += len(chunk)
    if len(kept) < cap:
      kept += chunk[:cap - len(kept)]
  text = kept.decode("utf-8", "replace")
  if total > cap:
    text += f"\n... (output cut: {total} bytes written, the first {cap} kept)"
  return text


def _signal_group(proc: "asyncio.subprocess.Process", sig: int) -> None:
  """Signals the command's whole process group; the command alone where there are no groups."""
  try:
    if hasattr(os, "killpg"):
      os.killpg(proc.pid, sig)
    else:  # pragma: no cover - Windows
      proc.send_signal(sig)
  except (ProcessLookupError, PermissionError):
    pass  # the group is already gone


def _write(path: Path, content: Union[str, bytes]) -> None:
  path.parent.mkdir(parents=True, exist_ok=True)
  if isinstance(content, str):
    with open(path, "w", encoding="utf-8", newline="") as f:
      f.write(content)
  else:
    path.write_bytes(content)
