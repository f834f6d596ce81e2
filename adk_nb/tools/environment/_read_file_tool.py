"""ReadFile: returns a file's lines, numbered, optionally a range of them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ...features import experimental
from ._common import _EnvironmentTool, _error
from ._constants import MAX_OUTPUT_CHARS
from ._utils import truncate

if TYPE_CHECKING:
  from ...environment import BaseEnvironment
  from ..tool_context import ToolContext


@experimental
class ReadFileTool(_EnvironmentTool):
  """Reads a file of the environment; each line is prefixed with its 1-based number and a tab."""

  _parameters = {
      "type": "object",
      "properties": {
          "path": {"type": "string", "description": "Which file to show, relative to the working directory."},
          "start_line": {"type": "integer", "description": "Number of the first line wanted, counting from 1 (included). Omit to start at the top."},
          "end_line": {"type": "integer",
                       "description": "Number of the last line wanted (included). Omit to read to the end."},
      },
      "required": ["path"],
  }

  def __init__(self, environment: "BaseEnvironment", *, max_output_chars: Optional[int] = None) -> None:
    super().__init__(environment, name="ReadFile", description=(
        "Shows a file of the environment, each line preceded by its number; a range of lines may be asked for."))
    self._max_output_chars = MAX_OUTPUT_CHARS if max_output_chars is None else max_output_chars

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    """`{'status': 'ok', 'content'}` (plus `total_lines` when a part was asked for), or an error naming the problem."""
    path = args.get("path", "")
    if not path:
      return _error("No `path` was given: name the file to read.")
    start_line, end_line = args.get("start_line"), args.get("end_line")
    for name, value in (("start_line", start_line), ("end_line", end_line)):
      if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        return _error(f"`{name}` has to be a whole number (or left out).")
    try:
      data = await self._environment.read_file(path)
    except FileNotFoundError:
      return _error(f"No file at {path}.")
    except Exception as e:
      return _error(str(e))
    # Lines are cut as bytes, so a bad byte in one line never shifts the numbering.
    lines = data.splitlines(keepends=True)
    total = len(lines)
    start = max(1, start_line or 1)
    end = min(total, end_line or total)
    if start > total:
      return _error(f"The file has only {total} lines, fewer than `start_line` {start}.", total_lines=total)
    if start > end:
      return _error(f"`end_line` ({end}) comes before `start_line` ({start}).", total_lines=total)
    numbered = "".join(f"{number:6d}\t{line.decode('utf-8', 'replace')}"
                       for number, line in enumerate(lines[start - 1:end], start))
    answer: dict[str, Any] = {"status": "ok", "content": truncate(numbered, self._max_output_chars)}
    if start > 1 or end < total:
      answer["total_lines"] = total
    return answer
