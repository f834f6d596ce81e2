"""The interface every tool implements."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

if TYPE_CHECKING:
  from ..models.llm_request import LlmRequest
  from .tool_context import ToolContext


class BaseTool:
  """A capability offered to a model: a declaration plus `run_async`."""

  def __init__(self, *, name: str, description: str, is_long_running: bool = False,
               custom_metadata: Optional[dict[str, Any]] = None) -> None:
    self.name = name
    """The name the model calls."""
    self.description = description
    """What the tool does, as the model reads it."""
    self.is_long_running = is_long_running
    """True when a call may stay pending after the turn ends (answered later)."""
    self.custom_metadata = custom_metadata

  def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
    """The declaration sent to the model; None for tools that only edit the request."""
    return None

  def validate_args(self, args: dict[str, Any]) -> dict[str, Any]:
    """Checks arguments (e.g. a person's edit before approving) against the declared parameters.

    Returns the arguments as the tool will receive them; raises `ToolArgumentsError` (a
    ValueError) naming every problem. The default reads the declaration's JSON schema, which
    covers MCP and OpenAPI tools; FunctionTool validates against the Python signature. A tool
    whose declaration has no JSON schema accepts any dict.
    """
    from ._function_schema import ToolArgumentsError
    from ._json_schema import schema_problems

    if not isinstance(args, dict):
      raise ToolArgumentsError(f"Arguments for `{self.name}` must be a JSON object, got {type(args).__name__}.")
    declaration = self._get_declaration()
    schema = None if declaration is None else declaration.parameters_json_schema
    problems = schema_problems(schema, args) if isinstance(schema, dict) else []
    if problems:
      raise ToolArgumentsError(f"Invalid arguments for `{self.name}`: {'; '.join(problems)}. Call `{self.name}` "
                               "again with arguments that match its schema.")
    return args

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    """Runs the tool; the result becomes the function response."""
    raise NotImplementedError(f"{type(self).__name__} does not implement run_async")

  async def process_llm_request(self, *, tool_context: "ToolContext", llm_request: "LlmRequest") -> None:
    """Adds this tool to the request (its declaration, by default)."""
    llm_request.append_tools([self])

  def __repr__(self) -> str:
    return f"{type(self).__name__}(name={self.name!r})"
