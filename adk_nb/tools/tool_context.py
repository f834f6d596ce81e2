"""The context a tool receives: state, actions, call id, confirmation, artifacts, memory."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ..agents.callback_context import CallbackContext
from ..events.event_actions import EventActions
from .tool_confirmation import ToolConfirmation

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext


class ToolContext(CallbackContext):
  """Given to a tool (as a `tool_context` parameter) and to tool callbacks.

  State writes and `actions` are attached to the function response event of this call.
  """

  def __init__(
      self,
      invocation_context: "InvocationContext",
      *,
      function_call_id: Optional[str] = None,
      event_actions: Optional[EventActions] = None,
      tool_confirmation: Optional[ToolConfirmation] = None,
  ) -> None:
    super().__init__(invocation_context, event_actions=event_actions)
    self.function_call_id = function_call_id
    """The id of the function call being answered."""
    self.tool_confirmation = tool_confirmation
    """The person's answer, when this call was paused for confirmation and resumed."""

  @property
  def invocation_context(self) -> "InvocationContext":
    return self._invocation_context

  def request_confirmation(self, *, hint: Optional[str] = None, payload: Optional[Any] = None) -> None:
    """Pauses this call until a person approves it; the tool runs again with `tool_confirmation` set."""
    if not self.function_call_id:
      raise ValueError("request_confirmation() needs a function call id; call it from inside a tool.")
    self._event_actions.requested_tool_confirmations[self.function_call_id] = ToolConfirmation(
        hint=hint or "", payload=payload
    )

  async def search_memory(self, query: str):
    """Searches the memory service for this user's past sessions."""
    ctx = self._invocation_context
    if ctx.memory_service is None:
      raise ValueError(
          "No memory service is configured; pass memory_service=InMemoryMemoryService() to the Runner."
      )
    return await ctx.memory_service.search_memory(app_name=ctx.app_name, user_id=ctx.user_id, query=query)
