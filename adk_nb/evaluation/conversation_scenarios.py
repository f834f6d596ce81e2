"""`ConversationScenario`: a case played by a simulated user instead of fixed turns (google-adk's format).

adk_nb reads and writes scenarios; running them needs a user simulator, which is planned (issue 18):
until then a scenario case fails with an error saying so.
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
