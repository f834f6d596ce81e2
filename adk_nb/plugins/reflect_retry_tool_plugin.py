"""`ReflectAndRetryToolPlugin`: a failing tool call goes back to the model with advice to reflect and retry.

A tool that raises (or whose result `extract_error_from_result` flags) is answered with a structured
response instead of failing the run: what went wrong, the arguments used, the attempt number and what to
consider before the next call. After `max_retries` consecutive failures of one tool the original
exception is raised (default) or the model is told to stop using the tool. A success resets that tool's
count. Counts are kept per invocation (default) or across all of them (`TrackingScope.GLOBAL`).
"""

from __future__ import annotations

import asyncio
import enum
import json
from typing import Any, Optional

from pydantic import BaseModel

from ..tools.base_tool import BaseTool
from ..tools.tool_context import ToolContext
from .base_plugin import BasePlugin

REFLECT_AND_RETRY_RESPONSE_TYPE = "ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN"
"""`response_type` of every response this plugin writes (so it never handles its own output)."""
GLOBAL_SCOPE_KEY = "__global_reflect_and_retry_scope__"


class TrackingScope(enum.Enum):
  """How long failure counts live."""

  INVOCATION = "invocation"
  """Per invocation (one user turn and all it causes)."""
  GLOBAL = "global"
  """For the plugin's lifetime, across invocations and users."""


class ToolFailureResponse(BaseModel):
  """What the model receives instead of a failed tool's result."""

  response_type: str = REFLECT_AND_RETRY_RESPONSE_TYPE
  error_type: str = ""
  """The exception's class name, or 'ToolError' for an error found in a result."""
  error_details: str = ""
  retry_count: int = 0
  """Consecutive failures of this tool so far (0 once the limit is exceeded)."""
  reflection_guidance: str = ""
  """Advice for the model's next step."""


class ReflectAndRetryToolPlugin(BasePlugin):
  """Turns tool failures into guidance for the model, up to `max_retries` consecutive times per tool.

  Override `extract_error_from_result` to treat some successful results as failures (for example
  `{"status": "error"}`), and `_get_scope_key` to count per user or per session.
  """

  def __init__(self, name: str = "reflect_retry_tool_plugin", max_retries: int = 3,
               throw_exception_if_retry_exceeded: bool = True,
               tracking_scope: TrackingScope = TrackingScope.INVOCATION):
    super().__init__(name)
    if max_retries < 0:
      raise ValueError(f"max_retries must be 0 or more, got {max_retries}.")
    self.max_retries = max_retries
    self.throw_exception_if_retry_exceeded = throw_exception_if_retry_exceeded
    self.scope = tracking_scope
    self._failures: dict[str, dict[str, int]] = {}
    self._lock = asyncio.Lock()

  async def after_tool_callback(self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext,
                                result: Any) -> Optional[dict[str, Any]]:
    if isinstance(result, dict) and result.get("response_type") == REFLECT_AND_RETRY_RESPONSE_TYPE:
      return None
    error = await self.extract_error_from_result(tool=tool, tool_args=tool_args, tool_context=tool_context,
                                                 result=result)
    if error:
      return await self._handle_tool_error(tool, tool_args, tool_context, error)
    async with self._lock:
      self._failures.get(self._get_scope_key(tool_context), {}).pop(tool.name, None)
    return None

  async def extract_error_from_result(self, *, tool: BaseTool, tool_args: dict[str, Any],
                                      tool_context: ToolContext, result: Any) -> Optional[Any]:
    """The error hidden in a successful result, or None. Override to detect `{"error": ...}` results."""
    return None

  async def on_tool_error_callback(self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext,
                                   error: Exception) -> Optional[dict[str, Any]]:
    if isinstance(error, asyncio.CancelledError):
      return None
    return await self._handle_tool_error(tool, tool_args, tool_context, error)

  async def _handle_tool_error(self, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext,
                               error: Any) -> dict[str, Any]:
    if self.max_retries > 0:
      async with self._lock:
        counts = self._failures.setdefault(self._get_scope_key(tool_context), {})
        counts[tool.name] = attempt = counts.get(tool.name, 0) + 1
      if attempt <= self.max_retries:
        return self._reflection(tool, tool_args, error, attempt)
    if self.throw_exception_if_retry_exceeded:
      raise error if isinstance(error, Exception) else Exception(str(error))
    return self._give_up(tool, tool_args, error)

  def _get_scope_key(self, tool_context: ToolContext) -> str:
    """Which failure counter a call uses; override for per-user or per-session counting."""
    if self.scope is TrackingScope.GLOBAL:
      return GLOBAL_SCOPE_KEY
    return tool_context.invocation_id

  @staticmethod
  def _details(error: Any) -> str:
    return f"{type(error).__name__}: {error}" if isinstance(error, Exception) else str(error)

  def _response(self, error: Any, retry_count: int, guidance: str) -> dict[str, Any]:
    return ToolFailureResponse(error_type=type(error).__name__ if isinstance(error, Exception) else "ToolError",
                               error_details=str(error), retry_count=retry_count,
                               reflection_guidance=guidance).model_dump(mode="json")

  def _reflection(self, tool: BaseTool, tool_args: dict[str, Any], error: Any, attempt: int) -> dict[str, Any]:
    arguments = json.dumps(tool_args, indent=2, default=str)
    guidance = (
        f"Calling tool `{tool.name}` failed (attempt {attempt} of {self.max_retries}).\n\n"
        f"Error: {self._details(error)}\n\nArguments you passed:\n{arguments}\n\n"
        "Before trying again, work out why it failed instead of repeating the same call: are the arguments "
        "valid for the tool's schema and well formed; did an earlier step leave the state or resource this "
        "tool needs; is another tool or another order of steps better suited; can the task be split into "
        "smaller steps; is the tool name one of the tools you have? Then make a corrected call or take "
        "another approach."
    )
    return self._response(error, attempt, guidance)

  def _give_up(self, tool: BaseTool, tool_args: dict[str, Any], error: Any) -> dict[str, Any]:
    arguments = json.dumps(tool_args, indent=2, default=str)
    guidance = (
        f"Tool `{tool.name}` failed {self.max_retries} times in a row, so no retries are left.\n\n"
        f"Last error: {self._details(error)}\n\nLast arguments:\n{arguments}\n\n"
        f"Stop using the `{tool.name}` tool for this task. Tell the user what could not be "
        "done and why, or reach the goal another way."
    )
    return self._response(error, 0, guidance)


__all__ = ["REFLECT_AND_RETRY_RESPONSE_TYPE", "ReflectAndRetryToolPlugin", "ToolFailureResponse", "TrackingScope"]
