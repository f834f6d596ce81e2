"""`UnsafeLocalCodeExecutor`: runs the model's Python in a child process on this machine."""

from __future__ import annotations

import logging
import os
import re
import sys
from typing import TYPE_CHECKING, Any, Optional

from pydantic import Field

from ._local_process import run_process
from .base_code_executor import BaseCodeExecutor
from .code_execution_utils import CodeExecutionInput, CodeExecutionResult

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext

logger = logging.getLogger("adk_nb.code_executors")

UNSAFE_WARNING = (
    "UnsafeLocalCodeExecutor runs code written by a model on this machine, with this process's user, "
    "files, network and environment variables (API keys included); there is no sandbox. Use it only "
    "with code you would run yourself, or run the agent in a container.")

DEFAULT_MAX_OUTPUT_CHARS = 100_000
"""How many characters of each output stream a run keeps by default (as MCP's `max_result_chars`)."""

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

  The child gets this interpreter, its import path and its environment, in its own process group.
  What it prints is read as it comes and capped at `max_output_chars` per stream (the head and the
  tail are kept, with a marker saying how much was left out), so a print loop cannot fill memory.
  A run past `timeout_seconds` (default 300) is stopped (SIGTERM, then SIGKILL) and reported as
  failed, keeping what it printed. However a run ends (success, error, timeout, or the agent's
  run cancelled), every process in its group is killed: nothing the code started outlives it.
  A run fails when it exits with a non-zero status (the traceback is its stderr); warnings on
  stderr of a run that exits 0 do not count. Nothing carries over between runs (`stateful` is
  always False). Logs `UNSAFE_WARNING` when made: there is no sandbox.
  """

  stateful: bool = Field(default=False, frozen=True)
  optimize_data_file: bool = Field(default=False, frozen=True)
  timeout_seconds: Optional[float] = 300
  """Wall-clock limit for one run in seconds (None: wait for ever)."""
  max_output_chars: int = Field(default=DEFAULT_MAX_OUTPUT_CHARS, gt=0)
  """The most characters of stdout, and of stderr, kept from one run (half from the start, half from the end)."""

  def __init__(self, **data: Any) -> None:
    for flag in ("stateful", "optimize_data_file"):
      if data.get(flag):
        raise ValueError(f"UnsafeLocalCodeExecutor cannot be {flag}=True: each run is a fresh process.")
    if os.name != "posix":
      raise NotImplementedError("UnsafeLocalCodeExecutor needs a POSIX system (process groups and pipe polling "
                                "bound and stop each run); on Windows, run the agent under WSL or in a container.")
    super().__init__(**data)
    logger.warning(UNSAFE_WARNING)

  def execute_code(self, invocation_context: Optional["InvocationContext"],
                   code_execution_input: CodeExecutionInput) -> CodeExecutionResult:
    code = code_execution_input.code
    env = {**os.environ, "PYTHONIOENCODING": "utf-8",
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    run_as_main = bool(re.search(r"""if\s+__name__\s*==\s*['"]__main__['"]""", code))
    run = run_process([sys.executable, "-c", _CHILD, "__main__" if run_as_main else ""],
                      code.encode("utf-8", "replace"), env, self.timeout_seconds, self.max_output_chars)
    stderr = run.stderr
    if run.timed_out:
      note = f"Code execution timed out after {self.timeout_seconds:g} seconds and was stopped."
      stderr = f"{stderr}\n{note}" if stderr else note
    elif run.returncode == 0:
      stderr = ""
    elif not stderr:
      stderr = f"Code execution ended with exit status {run.returncode}."
    return CodeExecutionResult(stdout=run.stdout, stderr=stderr, exit_code=run.returncode)


__all__ = ["DEFAULT_MAX_OUTPUT_CHARS", "UNSAFE_WARNING", "UnsafeLocalCodeExecutor"]
