"""WriteFile: creates or replaces a whole file."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...features import experimental
from ._common import _EnvironmentTool, _error

if TYPE_CHECKING:
  from ...environment import BaseEnvironment
  from ..tool_context import ToolContext


@experimental
class WriteFileTool(_EnvironmentTool):
  """Writes the model's full text to a file of the environment (parent directories created)."""

  _parameters = {
      "type": "object",
      "properties": {
          "path": {"type": "string", "description": "Where to save the file, relative to the working directory."},
          "content": {"type": "string", "description": "Everything the file should contain (it replaces what was there)."},
      },
      "required": ["path", "content"],
  }

  def __init__(self, environment: "BaseEnvironment") -> None:
    super().__init__(environment, name="WriteFile", description=(
        "Saves a whole file, making it or replacing all of it. Suited to new files and complete rewrites; "
        "a small change to a file that exists is better done with EditFile."))

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    """`{'status': 'ok', 'message': 'PATH saved.'}`, or the error that stopped the write."""
    path = args.get("path", "")
    if not path:
      return _error("No `path` was given: name the file to write.")
    try:
      await self._environment.write_file(path, args.get("content", ""))
    except Exception as e:
      return _error(str(e))
    return {"status": "ok", "message": f"{path} saved."}
