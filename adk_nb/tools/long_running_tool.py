"""LongRunningFunctionTool: a tool whose answer may arrive after the turn ends."""

from __future__ import annotations

from typing import Any, Callable, Optional

from google.genai import types

from .function_tool import FunctionTool


class LongRunningFunctionTool(FunctionTool):
  """A FunctionTool whose call may stay pending.

  Returning None ends the turn with the call pending (the event lists it in
  `long_running_tool_ids`); a later user message holding a FunctionResponse with that
  call id resumes the same invocation. Returning a value answers at once.
  """

  def __init__(self, func: Callable[..., Any], **kwargs: Any) -> None:
    super().__init__(func, **kwargs)
    self.is_long_running = True

  def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
    decl = super()._get_declaration()
    if decl is None:  # a subclass that declares nothing
      return None
    note = (
        "NOTE: this tool starts work that finishes later. Once a call has answered with a pending or "
        "in-progress status, wait for the final result instead of calling it again."
    )
    if note not in (decl.description or ""):
      decl.description = f"{decl.description}\n\n{note}" if decl.description else note
    return decl
