"""`TrajectoryEvaluator`: google-adk's class for `tool_trajectory_avg_score`.

Per turn, 1.0 when the agent's tool calls match the expected ones (EXACT, IN_ORDER or ANY_ORDER, with
or without arguments), else 0.0; the case's score is the mean. Same numbers as
`adk_nb.evaluation.metrics.tool_trajectory_avg_score`, which it calls.
"""

from __future__ import annotations

from typing import Any, ClassVar, Optional

from .eval_case import Invocation
from .eval_metrics import EvalMetric, PrebuiltMetrics, ToolTrajectoryCriterion
from .evaluator import EvaluationResult, Evaluator
from .metrics import tool_trajectory_avg_score


class TrajectoryEvaluator(Evaluator):
  """Scores tool-call trajectories against the expected ones.

  Args:
    threshold: pass mark for EXACT matching (the older form), or
    eval_metric: an EvalMetric whose criterion (a ToolTrajectoryCriterion) sets threshold and match type.
  """

  criterion_type: ClassVar[type[ToolTrajectoryCriterion]] = ToolTrajectoryCriterion

  def __init__(self, threshold: Optional[float] = None, eval_metric: Optional[EvalMetric] = None):
    if threshold is not None and eval_metric is not None:
      raise ValueError("Pass either threshold=... or eval_metric=..., not both.")
    if eval_metric is None:
      if threshold is None:
        raise ValueError("TrajectoryEvaluator needs threshold=... or eval_metric=EvalMetric(...).")
      eval_metric = EvalMetric(metric_name=PrebuiltMetrics.TOOL_TRAJECTORY_AVG_SCORE.value,
                               criterion=ToolTrajectoryCriterion(threshold=threshold))
    elif eval_metric.criterion is not None:
      try:
        criterion = ToolTrajectoryCriterion.model_validate(eval_metric.criterion.model_dump())
      except ValueError as exc:
        raise ValueError(f"`{eval_metric.metric_name}` expects a criterion of type ToolTrajectoryCriterion "
                         f"(threshold, match_type, ignore_args): {exc}") from None
      eval_metric = eval_metric.model_copy(update={"criterion": criterion})
    self._eval_metric = eval_metric

  def evaluate_invocations(self, actual_invocations: list[Invocation],
                           expected_invocations: Optional[list[Invocation]] = None,
                           conversation_scenario: Any = None) -> EvaluationResult:
    if expected_invocations is None:
      raise ValueError("tool_trajectory_avg_score needs the expected invocations.")
    return tool_trajectory_avg_score(self._eval_metric, actual_invocations, expected_invocations)


__all__ = ["TrajectoryEvaluator"]
