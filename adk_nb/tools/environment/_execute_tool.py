"""Execute: runs a shell command in the environment's working directory."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Optional

from ...features import experimental
from ._common import _EnvironmentTool, _error
from ._constants import DEFAULT_TIMEOUT, MAX_OUTPUT_CHARS
from ._utils import truncate

if TYPE_CHECKING:
  from ...environment import BaseEnvironment
  from ..tool_context import ToolContext

logger = logging.getLogger(__name__)

_DESCRIPTION = (
    "Runs a shell command in the working directory: programs, test suites, builds, searches such as find. "
    "It is the wrong tool for looking at a file's contents: ReadFile gives a better result than cat, head or tail. "
    "For example Execute(\"pytest -q\") is a good use; Execute(\"cat notes.txt\") is not.")


@experimental
class ExecuteTool(_EnvironmentTool):
  """Runs the model's shell command (30 s at most) and answers its output, exit code and any timeout."""

  _parameters = {
      "type": "object",
      "properties": {
          "command": {"type": "string",
                      "description": "What to run in the shell; steps that need the previous one go in one command joined by &&."},
      },
      "required": ["command"],
  }

  def __init__(self, environment: "BaseEnvironment", *, max_output_chars: Optional[int] = None) -> None:
    super().__init__(environment, name="Execute", description=_DESCRIPTION)
    self._max_output_chars = MAX_OUTPUT_CHARS if max_output_chars is None else max_output_chars

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    """`{'status': 'ok', 'stdout', 'stderr'}`; 'error' with `exit_code` on a non-zero exit, `error` on a timeout."""
    command = args.get("command", "")
    if not command:
      return _error("No `command` was given: say what to run.")
    try:
      outcome = await self._environment.execute(command, timeout=DEFAULT_TIMEOUT)
    except Exception as e:  # the model reads what went wrong and may try another way
      logger.exception("Execute failed: %s", e)
      return _error(str(e))
    answer: dict[str, Any] = {"status": "ok"}
    if outcome.stdout:
      answer["stdout"] = truncate(outcome.stdout, self._max_output_chars)
    if outcome.stderr:
      answer["stderr"] = truncate(outcome.stderr, self._max_output_chars)
    if outcome.exit_code != 0:
      answer["status"] = "error"
      answer["exit_code"] = outcome.exit_code
    if outcome.timed_out:
      answer["status"] = "error"
      answer["error"] = f"Stopped: the command was still running after {DEFAULT_TIMEOUT} seconds."
    return answer
