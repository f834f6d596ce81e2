"""EditFile: replaces one exact, unique piece of an existing file."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...features import experimental
from ._common import _EnvironmentTool, _error

if TYPE_CHECKING:
  from ...environment import BaseEnvironment
  from ..tool_context import ToolContext


@experimental
class EditFileTool(_EnvironmentTool):
  """Replaces `old_string` with `new_string` in a file; refuses when it is missing or not unique.

  Line breaks in `old_string` match both `\\n` and `\\r\\n` in the file, so a model that was shown
  a Windows file can still edit it.
  """

  _parameters = {
      "type": "object",
      "properties": {
          "path": {"type": "string", "description": "Path of the file to edit within the environment."},
          "old_string": {"type": "string", "description": "The exact text to find and replace. Must not be empty."},
          "new_string": {"type": "string", "description": "The replacement text."},
      },
      "required": ["path", "old_string", "new_string"],
  }

  def __init__(self, environment: "BaseEnvironment") -> None:
    super().__init__(environment, name="EditFile", description=(
        "Replace an exact substring in an existing file with new text. The old_string must appear exactly "
        "once in the file. To create new files, use the WriteFile tool."))

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    """`{'status': 'ok', 'message': 'Edited PATH'}`; an error (file untouched) when the text is not found once."""
    path = args.get("path", "")
    old_string = args.get("old_string", "")
    new_string = args.get("new_string", "")
    if not path:
      return _error("`path` is required.")
    if not old_string:
      return _error("`old_string` cannot be empty. To create a new file, use the WriteFile tool.")
    try:
      text = (await self._environment.read_file(path)).decode("utf-8", "replace")
    except FileNotFoundError:
      return _error(f"File not found: {path}")
    except Exception as e:
      return _error(str(e))
    pattern = re.compile(re.escape(old_string.replace("\r\n", "\n")).replace("\n", "\r?\n"))
    count = len(pattern.findall(text))
    if count == 0:
      return _error("`old_string` not found in file. Read the file first to verify contents.")
    if count > 1:
      return _error(f"`old_string` appears {count} times. Provide more surrounding context to make it unique.")
    try:
      await self._environment.write_file(path, pattern.sub(lambda _: new_string, text, count=1))
    except Exception as e:
      return _error(str(e))
    return {"status": "ok", "message": f"Edited {path}"}
