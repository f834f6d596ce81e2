"""A user simulator driven by a model: it sends the scenario's starting prompt, then asks the model for each
next message from the conversation plan and the dialogue so far, until the model says the stop signal or the
turn cap is reached (google-adk's `LlmBackedUserSimulator` protocol; the prompt is adk_nb's own)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, ClassVar, Optional

from google.genai import types
from pydantic import field_validator

from .llm_backed_user_simulator_prompts import (DEFAULT_INSTRUCTIONS, get_llm_backed_user_simulator_prompt,
                                                is_valid_user_simulator_template)
from .user_simulator import BaseUserSimulatorConfig, NextUserMessage, Status, UserSimulator, register_user_simulator

if TYPE_CHECKING:  # conversation_scenarios imports this package (for UserPersona)
  from ..conversation_scenarios import ConversationScenario

logger = logging.getLogger("adk_nb.evaluation")

STOP_SIGNAL = "</finished>"
"""What the simulated user says to end the conversation (as in google-adk)."""


class LlmBackedUserSimulatorConfig(BaseUserSimulatorConfig):
  """Options of the model-driven user simulator."""

  type: str = "llm_backed"
  """The simulator kind."""
  model: str = "gemini-2.5-flash"
  """The simulator's model name (or pass a model object as `evaluate(..., user_simulator_model=...)`)."""
  model_configuration: Optional[types.GenerateContentConfig] = None
  """Generation config sent with each request."""
  max_allowed_invocations: int = 20
  """Most user messages in one conversation, the starting prompt included; -1 for no cap (not advised)."""
  custom_instructions: Optional[str] = None
  """Your own prompt, with {{ stop_signal }}, {{ conversation_plan }} and {{ conversation_history }}
  (and {{ persona }}, or {{ persona.description }} and the like, when scenarios have a persona)."""
  include_function_calls: bool = False
  """Show the agent's tool calls and results to the simulator too."""

  @field_validator("custom_instructions")
  @classmethod
  def _has_placeholders(cls, value: Optional[str]) -> Optional[str]:
    required = ["stop_signal", "conversation_plan", "conversation_history"]
    if value is not None and not is_valid_user_simulator_template(value, required):
      raise ValueError("custom_instructions is missing a placeholder: the template needs {{ stop_signal }}, "
                       "{{ conversation_plan }} and {{ conversation_history }} so the simulator can fill them in.")
    return value


def dialogue(events: list[Any], include_function_calls: bool = False) -> str:
  """The conversation as 'author: text' lines (thoughts left out; tool calls and results on request)."""
  lines = []
  for event in events:
    content = getattr(event, "content", None)
    for part in (content.parts or []) if content else []:
      if part.text and not part.thought:
        lines.append(f"{event.author}: {part.text}")
      elif include_function_calls and part.function_call:
        lines.append(f"{event.author} called tool {part.function_call.name!r} with {part.function_call.args}")
      elif include_function_calls and part.function_response:
        lines.append(f"tool {part.function_response.name!r} returned {part.function_response.response}")
  return "\n\n".join(lines)


class LlmBackedUserSimulator(UserSimulator):
  """Plays one conversation scenario with a model (one instance per case run).

  Args:
    config: the options (a LlmBackedUserSimulatorConfig or a base config holding its fields).
    conversation_scenario: the starting prompt, plan and optional persona.
    model: the model object to ask (default: `config.model` through the model registry).
  """

  config_type: ClassVar[type[BaseUserSimulatorConfig]] = LlmBackedUserSimulatorConfig

  def __init__(self, *, config: Optional[BaseUserSimulatorConfig] = None,
               conversation_scenario: "ConversationScenario", model: Any = None):
    super().__init__(config or LlmBackedUserSimulatorConfig(), config_type=LlmBackedUserSimulatorConfig)
    self.config: LlmBackedUserSimulatorConfig = self._config
    self.scenario = conversation_scenario
    if model is None or isinstance(model, str):
      from ...models.registry import LLMRegistry

      model = LLMRegistry.new_llm(model or self.config.model)
    self.model = model
    self.sent = 0

  @classmethod
  def _summarize_conversation(cls, events: list[Any], include_function_calls: bool = False) -> str:
    """The dialogue as the simulator's model reads it (google-adk's name for `dialogue`)."""
    return dialogue(events, include_function_calls)

  def prompt(self, events: list[Any]) -> str:
    """The request the simulator's model gets for the next message."""
    return get_llm_backed_user_simulator_prompt(
        conversation_plan=self.scenario.conversation_plan,
        conversation_history=dialogue(events, self.config.include_function_calls), stop_signal=STOP_SIGNAL,
        custom_instructions=self.config.custom_instructions, user_persona=self.scenario.user_persona)

  async def get_next_user_message(self, events: list[Any]) -> NextUserMessage:
    cap = self.config.max_allowed_invocations
    if 0 <= cap <= self.sent:
      logger.warning("The simulated user reached max_allowed_invocations=%d; the conversation ends there.", cap)
      return NextUserMessage(status=Status.TURN_LIMIT_REACHED)
    if self.sent == 0:
      text = self.scenario.starting_prompt
    else:
      text = await self._ask(self.prompt(events))
    self.sent += 1
    if STOP_SIGNAL.lower() in text.lower():
      return NextUserMessage(status=Status.STOP_SIGNAL_DETECTED)
    if not text.strip():
      raise RuntimeError("The user simulator's model returned no text; check its model and configuration.")
    return NextUserMessage(status=Status.SUCCESS, user_message=types.Content(role="user", parts=[types.Part(text=text)]))

  async def _ask(self, prompt: str) -> str:
    from ...models.llm_request import LlmRequest

    config = self.config.model_configuration
    request = LlmRequest(model=getattr(self.model, "model", None),
                         contents=[types.Content(role="user", parts=[types.Part(text=prompt)])],
                         config=config.model_copy() if config else types.GenerateContentConfig())
    text = ""
    async for response in self.model.generate_content_async(request, stream=False):
      if response.error_code:
        raise RuntimeError(f"The user simulator's model failed: {response.error_code} {response.error_message or ''}")
      if response.content and response.content.parts and not response.partial:
        text += "".join(p.text or "" for p in response.content.parts if not p.thought)
    return text

  def get_simulation_evaluator(self) -> Optional[Any]:
    """Not provided (as in google-adk): judge the simulated user with the per_turn_user_simulator_quality_v1
    metric instead."""
    raise NotImplementedError("Judge the simulated user with the per_turn_user_simulator_quality_v1 metric.")


register_user_simulator(LlmBackedUserSimulatorConfig, LlmBackedUserSimulator)

__all__ = ["DEFAULT_INSTRUCTIONS", "LlmBackedUserSimulator", "LlmBackedUserSimulatorConfig", "STOP_SIGNAL"]
