"""`AutoRaterScore`: what one judge-model sample scored (google-adk's model; its `LlmAsJudge` base is not here)."""

from __future__ import annotations

from typing import Optional

from ._base import EvalBaseModel
from .eval_rubrics import RubricScore


class AutoRaterScore(EvalBaseModel):
  """One judge sample's score (None: no verdict could be read), and its rubric verdicts for rubric metrics."""

  score: Optional[float] = None
  """1.0 valid, 0.0 invalid, None when the reply had no verdict."""
  rubric_scores: Optional[list[RubricScore]] = None
  """Per-rubric verdicts (rubric metrics only)."""
  rationale: Optional[str] = None
  """adk_nb only: why, in the judge's words (e.g. the reasoning of the criteria a message failed)."""


__all__ = ["AutoRaterScore"]
