"""A simulated user that says the user messages of an eval case's fixed conversation, in order."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from .user_simulator import BaseUserSimulatorConfig, NextUserMessage, Status, UserSimulator

if TYPE_CHECKING:  # eval_case imports this package (through conversation_scenarios)
  from ..eval_case import StaticConversation


class StaticUserSimulator(UserSimulator):
  """Replays `static_conversation`'s user messages one per call, then says the conversation is over."""

  def __init__(self, *, static_conversation: "StaticConversation"):
    super().__init__(BaseUserSimulatorConfig(), config_type=BaseUserSimulatorConfig)
    self.static_conversation = static_conversation
    self.invocation_idx = 0
    """How many of the messages were said so far."""

  async def get_next_user_message(self, events: list[Any]) -> NextUserMessage:
    """The next scripted user message, or STOP_SIGNAL_DETECTED once all were said (`events` is not read)."""
    if self.invocation_idx >= len(self.static_conversation):
      return NextUserMessage(status=Status.STOP_SIGNAL_DETECTED)
    message = self.static_conversation[self.invocation_idx].user_content
    self.invocation_idx += 1
    return NextUserMessage(status=Status.SUCCESS, user_message=message)

  def get_simulation_evaluator(self) -> Optional[Any]:
    """None: a fixed script has nothing to judge."""
    return None


__all__ = ["StaticUserSimulator"]
