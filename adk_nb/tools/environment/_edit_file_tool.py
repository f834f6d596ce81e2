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
          "path": {"type": "string", "description": "Where the file to change lives, relative to the working directory."},
          "old_string": {"type": "string", "description": "Text currently in the file, copied exactly; non-empty, and found only once."},
          "new_string": {"type": "string", "description": "What to put in its place."},
      },
      "required": ["path", "old_string", "new_string"],
  }

  def __init__(self, environment: "BaseEnvironment") -> None:
    super().__init__(environment, name="EditFile", description=(
        "Changes one spot of a file that already exists: the text given as old_string, which has to occur "
        "a single time in the file, becomes new_string. New files are made with WriteFile instead."))

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    """`{'status': 'ok', 'message': 'PATH changed.'}`; an error (file untouched) when the text is not found once."""
    path = args.get("path", "")
    old_string = args.get("old_string", "")
    new_string = args.get("new_string", "")
    if not path:
      return _error("No `path` was given: name the file to edit.")
    if not old_string:
      return _error("An empty `old_string` matches nothing; give the text to replace (WriteFile makes new files).")
    try:
      text = (await self._environment.read_file(path)).decode("utf-8", "replace")
    except FileNotFoundError:
      return _error(f"No file at {path}.")
    except Exception as e:
      return _error(str(e))
    pattern = re.compile(re.escape(old_string.replace("\r\n", "\n")).replace("\n", "\r?\n"))
    count = len(pattern.findall(text))
    if count == 0:
      return _error("The file does not contain `old_string`; nothing was changed. Check its current text with ReadFile.")
    if count > 1:
      return _error(f"`old_string` occurs {count} times, so the edit is ambiguous; nothing was changed. Include neighbouring lines "
                    "until it matches once.")
    try:
      await self._environment.write_file(path, pattern.sub(lambda _: new_string, text, count=1))
    except Exception as e:
      return _error(str(e))
    return {"status": "ok", "message": f"{path} changed."}
