"""`BaseCodeExecutor`: what an agent's code executor is configured with and must do."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Optional

from pydantic import BaseModel

from ._local_process import abandon_on_cancel
from .code_execution_utils import CodeExecutionInput, CodeExecutionResult

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext


class BaseCodeExecutor(BaseModel, abc.ABC):
  """Runs code blocks found in a model's answers; the result goes back to the model.

  After each model answer the agent looks for the first code block (an `executable_code` part, or
  text between one of `code_block_delimiters`), keeps the answer up to that block, runs it with
  `execute_code` and commits the result as a `code_execution_result` part; the model is then
  called again. A result with stderr counts as an error: after `error_retry_attempts` errors in a
  row within one invocation, code in answers is no longer run and the answer stands as given.
  """

  optimize_data_file: bool = False
  """google-adk's CSV pre-processing of attached files (not supported by adk_nb: True is refused)."""
  stateful: bool = False
  """Whether runs of one session share an execution id (for executors that keep interpreter state)."""
  error_retry_attempts: int = 2
  """How many failed runs in a row (per invocation) before code is no longer run."""
  code_block_delimiters: list[tuple[str, str]] = [("```tool_code\n", "\n```"), ("```python\n", "\n```")]
  """(opening, closing) pairs that mark a code block in answer text; the earliest block wins."""
  execution_result_delimiters: tuple[str, str] = ("```tool_output\n", "\n```")
  """How a run's output is framed when it is sent back to the model as text."""
  timeout_seconds: Optional[float] = None
  """Wall-clock limit for one run (None: no limit)."""

  @abc.abstractmethod
  def execute_code(self, invocation_context: "InvocationContext",
                   code_execution_input: CodeExecutionInput) -> CodeExecutionResult:
    """Runs `code_execution_input.code` and returns its output (called on a worker thread)."""


async def execute_off_loop(executor: BaseCodeExecutor, invocation_context: "InvocationContext",
                           code_execution_input: CodeExecutionInput) -> CodeExecutionResult:
  """Runs `executor.execute_code` on a worker thread; if the awaiting task is cancelled (or its
  generator closed) first, the processes the run started are killed (`UnsafeLocalCodeExecutor`'s)."""
  return await abandon_on_cancel(executor.execute_code, invocation_context, code_execution_input)


__all__ = ["BaseCodeExecutor", "execute_off_loop"]
