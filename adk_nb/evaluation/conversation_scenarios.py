"""`ConversationScenario`: a case played by a simulated user instead of fixed turns (google-adk's format).

`evaluate` plays a scenario case with `simulation.LlmBackedUserSimulator`: the starting prompt first, then
messages a model writes from the plan and the dialogue so far, until it says `</finished>` or reaches the turn cap.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import ConfigDict, Field

from ._base import EvalBaseModel


class ConversationScenario(EvalBaseModel):
  """What the simulated user says first and the plan it follows afterwards."""

  model_config = ConfigDict(extra="allow")  # user_persona and later additions are kept as they are

  starting_prompt: str
  """The simulated user's first message."""
  conversation_plan: str = ""
  """What the simulated user wants, in order, and when it is done."""
  user_persona: Optional[Any] = None
  """A persona id or description for the simulator (kept, not interpreted)."""


class ConversationScenarios(EvalBaseModel):
  """A list of scenarios (for files holding several)."""

  scenarios: list[ConversationScenario] = Field(default_factory=list)
  """The scenarios."""


__all__ = ["ConversationScenario", "ConversationScenarios"]
