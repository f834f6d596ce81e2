"""What a user simulator is: something that says the user's next message, or why there is none."""

from __future__ import annotations

import enum
from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, ValidationError, alias_generators, model_validator

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
  """Plays the user of one eval case; make one per case run.

  Args:
    config: the simulator's options, read into `config_type` (ValueError when they do not fit it).
    config_type: the options class this simulator needs.
  """

  def __init__(self, config: Optional[BaseUserSimulatorConfig] = None,
               config_type: type[BaseUserSimulatorConfig] = BaseUserSimulatorConfig):
    try:
      # Unset fields are left out, so a base config holding another kind's fields takes that kind's `type`.
      self._config = config_type.model_validate((config or config_type()).model_dump(exclude_unset=True))
    except ValidationError as exc:
      raise ValueError(f"Expect config of type `{config_type}`.") from exc

  async def get_next_user_message(self, events: list[Any]) -> NextUserMessage:
    """The next message to send to the agent, given the conversation's events so far (user and agent)."""
    raise NotImplementedError

  def get_simulation_evaluator(self) -> Optional[Any]:
    """An Evaluator that judges how well the simulated user did, or None when there is nothing to judge."""
    raise NotImplementedError


_SIMULATOR_BY_CONFIG_TYPE: dict[type[BaseUserSimulatorConfig], type[UserSimulator]] = {}
"""Which simulator class plays cases for which options class (see `register_user_simulator`)."""


def register_user_simulator(config_type: type[BaseUserSimulatorConfig], simulator_type: type[UserSimulator]) -> None:
  """Makes `UserSimulatorProvider` (and so `evaluate`) use `simulator_type` when the simulator options are a
  `config_type`; the simulator is built as `simulator_type(config=..., conversation_scenario=...)`.

  Give `config_type` a `type` default of its own (e.g. `type: str = "my_simulator"`): a test_config.json whose
  `user_simulator_config` has that `type` is then read into `config_type`.
  """
  _SIMULATOR_BY_CONFIG_TYPE[config_type] = simulator_type
