"""BasePlugin: cross-cutting hooks that run for every agent, model and tool of a Runner."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

if TYPE_CHECKING:
  from ..agents.base_agent import BaseAgent
  from ..agents.callback_context import CallbackContext
  from ..agents.invocation_context import InvocationContext
  from ..events.event import Event
  from ..models.llm_request import LlmRequest
  from ..models.llm_response import LlmResponse
  from ..tools.base_tool import BaseTool
  from ..tools.tool_context import ToolContext


class BasePlugin:
  """Override any hook. A hook that returns a value (not None) short-circuits, as in ADK.

  Plugin hooks run before the agent's own callbacks, in registration order.
  """

  def __init__(self, name: str):
    self.name = name

  async def on_user_message_callback(
      self, *, invocation_context: "InvocationContext", user_message: types.Content
  ) -> Optional[types.Content]:
    """Sees (and may replace) the user's message before the run starts."""
    return None

  async def before_run_callback(self, *, invocation_context: "InvocationContext") -> Optional[types.Content]:
    """Runs before the root agent; returning Content ends the run with that reply."""
    return None

  async def on_event_callback(
      self, *, invocation_context: "InvocationContext", event: "Event"
  ) -> Optional["Event"]:
    """Sees (and may replace) each event before it is committed and forwarded."""
    return None

  async def after_run_callback(self, *, invocation_context: "InvocationContext") -> None:
    """Runs when the run ends without an error (finished, or paused for an answer)."""
    return None

  async def on_run_error_callback(self, *, invocation_context: "InvocationContext", error: Exception) -> None:
    """Runs instead of after_run_callback when the run fails; a notification only: the error is
    raised to the caller afterwards whatever the plugin does (an error in the plugin is logged)."""
    return None

  async def before_agent_callback(
      self, *, agent: "BaseAgent", callback_context: "CallbackContext"
  ) -> Optional[types.Content]:
    return None

  async def after_agent_callback(
      self, *, agent: "BaseAgent", callback_context: "CallbackContext"
  ) -> Optional[types.Content]:
    return None

  async def before_model_callback(
      self, *, callback_context: "CallbackContext", llm_request: "LlmRequest"
  ) -> Optional["LlmResponse"]:
    return None

  async def after_model_callback(
      self, *, callback_context: "CallbackContext", llm_response: "LlmResponse"
  ) -> Optional["LlmResponse"]:
    return None

  async def on_model_error_callback(
      self, *, callback_context: "CallbackContext", llm_request: "LlmRequest", error: Exception
  ) -> Optional["LlmResponse"]:
    return None

  async def before_tool_callback(
      self, *, tool: "BaseTool", tool_args: dict[str, Any], tool_context: "ToolContext"
  ) -> Optional[dict]:
    return None

  async def after_tool_callback(
      self, *, tool: "BaseTool", tool_args: dict[str, Any], tool_context: "ToolContext", result: dict
  ) -> Optional[dict]:
    return None

  async def on_tool_error_callback(
      self, *, tool: "BaseTool", tool_args: dict[str, Any], tool_context: "ToolContext", error: Exception
  ) -> Optional[dict]:
    return None

  async def close(self) -> None:
    """Releases resources when the Runner closes."""
