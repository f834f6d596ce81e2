"""What a metric returns: a score per turn and overall (ADK's `EvaluationResult`)."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, Field

from .eval_case import Invocation
from .eval_metrics import EvalStatus


class PerInvocationResult(BaseModel):
  """A metric's score for one turn."""

  actual_invocation: Invocation
  """What the agent did."""
  expected_invocation: Optional[Invocation] = None
  """What was expected."""
  score: Optional[float] = None
  """The score; None when not computed."""
  eval_status: EvalStatus = EvalStatus.NOT_EVALUATED
  """The turn's pass/fail."""
  details: dict[str, Any] = Field(default_factory=dict)
  """Extra detail (e.g. the judge's verdicts)."""


class EvaluationResult(BaseModel):
  """A metric's result for a case: the overall score and status, and each turn's."""

  overall_score: Optional[float] = None
  """Mean of the turn scores (None when none was computed)."""
  overall_eval_status: EvalStatus = EvalStatus.NOT_EVALUATED
  """PASSED when the overall score reaches the threshold."""
  per_invocation_results: list[PerInvocationResult] = Field(default_factory=list)
  """One per turn."""


def status_of(score: Optional[float], threshold: Optional[float]) -> EvalStatus:
  """PASSED when score >= threshold; INFORMATIONAL without a threshold; NOT_EVALUATED without a score."""
  if score is None:
    return EvalStatus.NOT_EVALUATED
  if threshold is None:
    return EvalStatus.INFORMATIONAL
  return EvalStatus.PASSED if score >= threshold else EvalStatus.FAILED


class Evaluator:
  """A metric as an object: `evaluate_invocations(actual, expected)` returns an EvaluationResult.

  google-adk's interface for metric evaluators (`metric_evaluator_registry` hands them out). adk_nb's
  own runner calls metric functions (`adk_nb.evaluation.metrics`); the built-in evaluator classes wrap
  those functions, so both paths give the same numbers.
  """

  def evaluate_invocations(self, actual_invocations: list[Invocation],
                           expected_invocations: Optional[list[Invocation]] = None,
                           conversation_scenario: Any = None) -> EvaluationResult:
    raise NotImplementedError(f"{type(self).__name__} must implement evaluate_invocations.")
