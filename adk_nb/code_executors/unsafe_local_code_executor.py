"""`UnsafeLocalCodeExecutor`: runs the model's Python in a child process on this machine."""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
from typing import TYPE_CHECKING, Any, Optional

from pydantic import Field

from .base_code_executor import BaseCodeExecutor
from .code_execution_utils import CodeExecutionInput, CodeExecutionResult

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext

logger = logging.getLogger("adk_nb.code_executors")

UNSAFE_WARNING = (
    "UnsafeLocalCodeExecutor runs code written by a model on this machine, with this process's user, "
    "files, network and environment variables (API keys included); there is no sandbox. Use it only "
    "with code you would run yourself, or run the agent in a container.")

_GRACE_SECONDS = 2.0
"""How long a timed-out run has between SIGTERM and SIGKILL."""

# The child reads the code from stdin, runs it, and prints a traceback without this wrapper's frame.
_CHILD = r"""
import sys, traceback
name = sys.argv[1]
del sys.argv[1:]
source = sys.stdin.buffer.read().decode("utf-8")
scope = {"__name__": name or "__adk_code__", "__builtins__": __builtins__}
try:
  exec(compile(source, "<code>", "exec"), scope)
except SystemExit:
  raise
except BaseException as error:
  traceback.print_exception(type(error), error, error.__traceback__.tb_next)
  sys.exit(1)
"""


class UnsafeLocalCodeExecutor(BaseCodeExecutor):
  """Runs each code block in a fresh Python process (never inside the notebook kernel).

  The child gets this interpreter, its import path and its environment; it starts its own process
  group, so a run past `timeout_seconds` (default 300) is stopped with everything it started
  (SIGTERM, then SIGKILL) and reported as failed, keeping what it printed. A run fails when it
  exits with a non-zero status (the traceback is its stderr); warnings on stderr of a run that
  exits 0 do not count. Nothing carries over between runs (`stateful` is always False). Logs
  `UNSAFE_WARNING` when made: there is no sandbox.
  """

  stateful: bool = Field(default=False, frozen=True)
  optimize_data_file: bool = Field(default=False, frozen=True)
  timeout_seconds: Optional[float] = 300
  """Wall-clock limit for one run in seconds (None: wait for ever)."""

  def __init__(self, **data: Any) -> None:
    for flag in ("stateful", "optimize_data_file"):
      if data.get(flag):
        raise ValueError(f"UnsafeLocalCodeExecutor cannot be {flag}=True: each run is a fresh process.")
    super().__init__(**data)
    logger.warning(UNSAFE_WARNING)

  def execute_code(self, invocation_context: Optional["InvocationContext"],
                   code_execution_input: CodeExecutionInput) -> CodeExecutionResult:
    code = code_execution_input.code
    env = {**os.environ, "PYTHONIOENCODING": "utf-8",
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    run_as_main = bool(re.search(r"""if\s+__name__\s*==\s*['"]__main__['"]""", code))
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, "__main__" if run_as_main else ""],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        encoding="utf-8", errors="replace", env=env, start_new_session=True)
    try:
      stdout, stderr = child.communicate(code, timeout=self.timeout_seconds)
    except subprocess.TimeoutExpired:
      stdout, stderr = _stop(child)
      note = f"Code execution timed out after {self.timeout_seconds:g} seconds and was stopped."
      return CodeExecutionResult(stdout=stdout, stderr=f"{stderr}\n{note}" if stderr else note,
                                 exit_code=child.returncode)
    if child.returncode == 0:
      stderr = ""
    elif not stderr:
      stderr = f"Code execution ended with exit status {child.returncode}."
    return CodeExecutionResult(stdout=stdout, stderr=stderr, exit_code=child.returncode)


def _signal_group(pid: int, sig: int) -> None:
  try:
    os.killpg(pid, sig)
  except (OSError, AttributeError):  # group already gone, or no process groups (Windows)
    pass


def _stop(child: subprocess.Popen) -> tuple[str, str]:
  """Stops a timed-out run and everything it started; returns what it had printed."""
  _signal_group(child.pid, signal.SIGTERM)
  child.terminate()
  try:
    child.wait(_GRACE_SECONDS)
  except subprocess.TimeoutExpired:
    pass
  # A grandchild may ignore SIGTERM and hold the pipes open: the group is killed either way.
  _signal_group(child.pid, getattr(signal, "SIGKILL", signal.SIGTERM))
  child.kill()
  try:
    return child.communicate(timeout=_GRACE_SECONDS)
  except subprocess.TimeoutExpired:
    return "", ""


__all__ = ["UNSAFE_WARNING", "UnsafeLocalCodeExecutor"]
