"""What a user simulator is: something that says the user's next message, or why there is none."""

from __future__ import annotations

import enum
from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, alias_generators, model_validator

from .._base import EvalBaseModel


class BaseUserSimulatorConfig(BaseModel):
  """Options of a user simulator (`user_simulator_config` in a test_config.json); `type` names the kind."""

  model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True, extra="allow")

  type: Optional[str] = None
  """Which simulator these options are for ('llm_backed')."""


class Status(enum.Enum):
  """Why `get_next_user_message` did or did not produce a message."""

  SUCCESS = "success"
  TURN_LIMIT_REACHED = "turn_limit_reached"
  STOP_SIGNAL_DETECTED = "stop_signal_detected"
  NO_MESSAGE_GENERATED = "no_message_generated"


class NextUserMessage(EvalBaseModel):
  """The simulated user's next message (status SUCCESS), or the reason the conversation ends."""

  status: Status
  """SUCCESS, or why no message came."""
  user_message: Optional[types.Content] = None
  """The message, when status is SUCCESS."""

  @model_validator(mode="after")
  def _message_iff_success(self) -> "NextUserMessage":
    if (self.status == Status.SUCCESS) != (self.user_message is not None):
      raise ValueError("give user_message exactly when status is SUCCESS")
    return self


class UserSimulator:
  """Plays the user of one conversation scenario; make one per case run."""

  async def get_next_user_message(self, events: list[Any]) -> NextUserMessage:
    """The next message to send to the agent, given the conversation's events so far (user and agent)."""
    raise NotImplementedError
