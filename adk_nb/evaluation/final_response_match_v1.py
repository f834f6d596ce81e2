"""`RougeEvaluator`: google-adk's class for `response_match_score` (ROUGE-1 F-measure of the final answer).

Calls `adk_nb.evaluation.metrics.response_match_score`, so scores equal adk_nb's own runner's (and
ADK's: the tokenizer follows rouge-score's, without the dependency).
"""

from __future__ import annotations

from typing import Any, Optional

from .eval_case import Invocation
from .eval_metrics import EvalMetric
from .evaluator import EvaluationResult, Evaluator
from ._rouge import RougeScore, rouge1
from .metrics import response_match_score


class RougeEvaluator(Evaluator):
  """Scores each turn's final response against the expected one with ROUGE-1; the case score is the mean."""

  def __init__(self, eval_metric: EvalMetric):
    self._eval_metric = eval_metric

  def evaluate_invocations(self, actual_invocations: list[Invocation],
                           expected_invocations: Optional[list[Invocation]] = None,
                           conversation_scenario: Any = None) -> EvaluationResult:
    if expected_invocations is None:
      raise ValueError("response_match_score needs the expected invocations.")
    return response_match_score(self._eval_metric, actual_invocations, expected_invocations)


__all__ = ["RougeEvaluator"]


def _calculate_rouge_1_scores(candidate: str, reference: str) -> RougeScore:
  """ROUGE-1 precision, recall and F-measure of `candidate` against `reference` (google-adk's private
  helper name, which its tests and some evaluation code call)."""
  return rouge1(candidate, reference)
