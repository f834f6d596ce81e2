"""Personas for a simulated user: who it is and how it behaves (google-adk's `UserPersona` model).

A persona is a description plus behaviors; each behavior has instructions the simulator follows and
violation rubrics a judge (per_turn_user_simulator_quality_v1) checks its messages against.
"""

from __future__ import annotations

import logging
from typing import Sequence

from pydantic import BaseModel, Field

from ...errors.not_found_error import NotFoundError

logger = logging.getLogger("adk_nb.evaluation")


class UserBehavior(BaseModel):
  """One trait of a persona: what the simulated user does, and what would break the trait."""

  name: str = Field(description="A short title of the behavior.")
  description: str = Field(description="What the behavior is; both the simulator and its judge read it.")
  behavior_instructions: list[str] = Field(description="What the simulator is told to do.")
  violation_rubrics: list[str] = Field(description="Any one of these in a simulated message makes it invalid.")

  def get_behavior_instructions_str(self) -> str:
    """The instructions as an indented bullet list."""
    return "\n".join(f"  * {line}" for line in self.behavior_instructions)

  def get_violation_rubrics_str(self) -> str:
    """The violation rubrics as an indented bullet list."""
    return "\n".join(f"  * {line}" for line in self.violation_rubrics)


class UserPersona(BaseModel):
  """Who the simulated user is: an id, a description and its behaviors."""

  id: str = Field(description="The persona's id, as scenarios name it (e.g. 'NOVICE').")
  description: str = Field(description="Who the user is, for the simulator and its judge.")
  behaviors: Sequence[UserBehavior] = Field(description="How the user behaves.")


class UserPersonaRegistry:
  """Personas by id; `ConversationScenario(user_persona="NOVICE")` looks its persona up in the default one."""

  def __init__(self) -> None:
    self._registry: dict[str, UserPersona] = {}

  def get_persona(self, persona_id: str) -> UserPersona:
    """The persona registered under `persona_id`; NotFoundError otherwise."""
    if persona_id not in self._registry:
      raise NotFoundError(f"{persona_id} not found in registry; registered personas: "
                          f"{', '.join(self._registry) or 'none'}.")
    return self._registry[persona_id]

  def register_persona(self, persona_id: str, user_persona: UserPersona) -> None:
    """Registers (or replaces) the persona under `persona_id`."""
    if persona_id in self._registry:
      logger.info("Replacing user persona %s.", persona_id)
    self._registry[persona_id] = user_persona

  def get_registered_personas(self) -> list[UserPersona]:
    """Every registered persona, in registration order."""
    return list(self._registry.values())


__all__ = ["UserBehavior", "UserPersona", "UserPersonaRegistry"]
