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
          "path": {"type": "string", "description": "Path to the file within the environment."},
          "content": {"type": "string", "description": "The full file content to write."},
      },
      "required": ["path", "content"],
  }

  def __init__(self, environment: "BaseEnvironment") -> None:
    super().__init__(environment, name="WriteFile", description=(
        "Create or overwrite a file in the environment. Use for new files or full rewrites. "
        "For small changes to existing files, prefer EditFile."))

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    """`{'status': 'ok', 'message': 'Wrote PATH'}`, or the error that stopped the write."""
    path = args.get("path", "")
    if not path:
      return _error("`path` is required.")
    try:
      await self._environment.write_file(path, args.get("content", ""))
    except Exception as e:
      return _error(str(e))
    return {"status": "ok", "message": f"Wrote {path}"}
