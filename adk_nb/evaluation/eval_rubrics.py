"""Rubrics: yes/no properties a judge model checks an agent's answer or tool use against (google-adk's shapes)."""

from __future__ import annotations

from typing import Optional

from ._base import EvalBaseModel


class RubricContent(EvalBaseModel):
  """What a rubric checks."""

  text_property: Optional[str] = None
  """The property, e.g. "The answer gives the temperature in the user's unit."."""


class Rubric(EvalBaseModel):
  """One property to check, with its id."""

  rubric_id: str
  """Unique id of the rubric."""
  rubric_content: RubricContent
  """The property."""
  description: Optional[str] = None
  """How to read the result."""
  type: Optional[str] = None
  """FINAL_RESPONSE_QUALITY or TOOL_USE_QUALITY: which metric a rubric given on a turn belongs to."""


class RubricScore(EvalBaseModel):
  """The judge's verdict on one rubric: 1 (yes), 0 (no) or None (no verdict), with its rationale."""

  rubric_id: str
  """The rubric judged."""
  rationale: Optional[str] = None
  """Why, in the judge's words."""
  score: Optional[float] = None
  """1.0 yes, 0.0 no, None when the judge gave no verdict."""
