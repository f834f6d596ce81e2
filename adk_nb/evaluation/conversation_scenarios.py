"""`ConversationScenario`: a case played by a simulated user instead of fixed turns (google-adk's format).

`evaluate` plays a scenario case with `simulation.LlmBackedUserSimulator`: the starting prompt first, then
messages a model writes from the plan and the dialogue so far (and the scenario's persona, if it has one),
until it says `</finished>` or reaches the turn cap.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import ConfigDict, Field, field_validator

from ._base import EvalBaseModel
from .simulation.user_simulator_personas import UserPersona


class ConversationScenario(EvalBaseModel):
  """What the simulated user says first and the plan it follows afterwards."""

  model_config = ConfigDict(extra="allow")  # fields of later google-adk releases are kept as they are

  starting_prompt: str
  """The simulated user's first message."""
  conversation_plan: str = ""
  """What the simulated user wants, in order, and when it is done."""
  user_persona: Optional[UserPersona] = None
  """Who the simulated user is: a UserPersona, or the id of a pre-built one ('EXPERT', 'NOVICE', 'EVALUATOR')."""

  @field_validator("user_persona", mode="before")
  @classmethod
  def _persona_by_id(cls, value: Any) -> Any:
    if isinstance(value, str):
      from .simulation.pre_built_personas import get_default_persona_registry

      return get_default_persona_registry().get_persona(value)
    return value


class ConversationScenarios(EvalBaseModel):
  """A list of scenarios (for files holding several)."""

  scenarios: list[ConversationScenario] = Field(default_factory=list)
  """The scenarios."""


class ConversationGenerationConfig(EvalBaseModel):
  """Options for having a model write conversation scenarios (google-adk's shape; adk_nb has no generator)."""

  count: int
  """How many scenarios to write."""
  generation_instruction: Optional[str] = None
  """What the scenarios should be about."""
  environment_context: Optional[str] = None
  """What data the agent's tools can reach, so scenarios ask about things that exist."""
  model_name: str
  """The model that writes them (e.g. 'gemini-2.5-flash')."""


__all__ = ["ConversationGenerationConfig", "ConversationScenario", "ConversationScenarios"]
