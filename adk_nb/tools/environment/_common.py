"""What the four environment tools share: an environment, a declaration built from a JSON schema, error telemetry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

from ..base_tool import BaseTool

if TYPE_CHECKING:
  from ...environment import BaseEnvironment


class _EnvironmentTool(BaseTool):
  """A tool acting on one environment; answers `{'status': 'error', 'error': ...}` instead of raising."""

  _parameters: dict[str, Any] = {}

  def __init__(self, environment: "BaseEnvironment", *, name: str, description: str) -> None:
    super().__init__(name=name, description=description)
    self._environment = environment

  def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
    return types.FunctionDeclaration(name=self.name, description=self.description,
                                     parameters_json_schema=self._parameters)

  def _detect_error_in_response(self, response: Any) -> Optional[str]:
    """'TOOL_ERROR' when the answer reports a failure (google-adk's telemetry hook)."""
    if isinstance(response, dict) and response.get("status") == "error":
      return "TOOL_ERROR"
    return None


def _error(message: str, **extra: Any) -> dict[str, Any]:
  return {"status": "error", "error": message, **extra}
