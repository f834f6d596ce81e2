"""`UserSimulatorProvider`: the simulated user for each eval case (google-adk's dispatch).

A case with a fixed `conversation` gets a `StaticUserSimulator`; a case with a `conversation_scenario` gets
the simulator registered (`register_user_simulator`) for the type of the simulator options, by default the
model-driven `LlmBackedUserSimulator`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from .llm_backed_user_simulator import LlmBackedUserSimulator, LlmBackedUserSimulatorConfig
from .static_user_simulator import StaticUserSimulator
from .user_simulator import _SIMULATOR_BY_CONFIG_TYPE, BaseUserSimulatorConfig, UserSimulator

if TYPE_CHECKING:  # eval_case imports this package (through conversation_scenarios)
  from ..eval_case import EvalCase


class UserSimulatorProvider:
  """Makes one user simulator per eval case run from the simulator options and the case.

  Args:
    user_simulator_config: the options (`user_simulator_config` of an EvalConfig, read into its class);
      None means LlmBackedUserSimulator's defaults.
    model: adk_nb only: the model object the LlmBackedUserSimulator asks (e.g. a ScriptedModel in tests);
      by default the options' model name goes through the model registry.
  """

  def __init__(self, user_simulator_config: Optional[BaseUserSimulatorConfig] = None, *, model: Any = None):
    if user_simulator_config is None:
      user_simulator_config = LlmBackedUserSimulatorConfig()
    elif not isinstance(user_simulator_config, BaseUserSimulatorConfig):
      raise ValueError(f"Expect config of type `{BaseUserSimulatorConfig}`.")
    self._user_simulator_config = user_simulator_config
    self._model = model

  def provide(self, eval_case: "EvalCase") -> UserSimulator:
    """A fresh simulator for `eval_case`: StaticUserSimulator for fixed turns, else the registered one.

    ValueError when the case has both or neither of `conversation` and `conversation_scenario`, or when no
    simulator is registered for the options' class.
    """
    if eval_case.conversation is not None:
      if eval_case.conversation_scenario is not None:
        raise ValueError("This eval case has both a conversation and a conversation_scenario; a simulated user "
                         "plays one of them. Remove the other.")
      return StaticUserSimulator(static_conversation=eval_case.conversation)
    if eval_case.conversation_scenario is None:
      raise ValueError("This eval case has neither a conversation nor a conversation_scenario, so there is "
                       "nothing for a simulated user to play. Add one of them.")
    config_type = type(self._user_simulator_config)
    simulator_type = _SIMULATOR_BY_CONFIG_TYPE.get(config_type)
    if simulator_type is None:
      registered = sorted(t.__name__ for t in _SIMULATOR_BY_CONFIG_TYPE)
      raise ValueError(f"No simulator is registered for user_simulator_config of type `{config_type.__name__}`; "
                       f"call register_user_simulator({config_type.__name__}, YourSimulator) first (registered "
                       f"now: {', '.join(registered) or 'none'}).")
    if simulator_type is LlmBackedUserSimulator:
      return LlmBackedUserSimulator(config=self._user_simulator_config,
                                    conversation_scenario=eval_case.conversation_scenario, model=self._model)
    return simulator_type(config=self._user_simulator_config, conversation_scenario=eval_case.conversation_scenario)


def config_for_type(raw: dict) -> BaseUserSimulatorConfig:
  """Reads a test_config.json's `user_simulator_config` into the registered options class its `type` names
  (no `type`: LlmBackedUserSimulatorConfig, as google-adk reads configs that predate the field)."""
  kind = raw.get("type") or "llm_backed"
  for config_type in _SIMULATOR_BY_CONFIG_TYPE:
    if config_type.model_fields["type"].default == kind:
      return config_type.model_validate({**raw, "type": kind})
  known = sorted(str(t.model_fields["type"].default) for t in _SIMULATOR_BY_CONFIG_TYPE)
  raise ValueError(f"user_simulator_config has type {kind!r}, which no simulator is registered for; known types: "
                   f"{known}. Register yours with register_user_simulator() before evaluating.")


__all__ = ["UserSimulatorProvider"]
