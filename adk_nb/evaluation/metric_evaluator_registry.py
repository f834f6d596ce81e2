"""`MetricEvaluatorRegistry`: metric name -> Evaluator class, as google-adk's eval service looks them up.

Seeded with the metrics adk_nb computes itself: `tool_trajectory_avg_score` (TrajectoryEvaluator),
`response_match_score` (RougeEvaluator) and the other built-ins (trajectory precision / recall / F1,
`final_response_match_v2`), whose evaluators' `evaluate_invocations` is a coroutine because the judge
metric calls a model. Register your own with `register_evaluator(MetricInfo(...), MyEvaluator)`.
"""

from __future__ import annotations

from typing import Any, Optional

from ..errors.not_found_error import NotFoundError
from .eval_case import Invocation
from .eval_metrics import EvalMetric, MetricInfo, PrebuiltMetrics
from .evaluator import EvaluationResult, Evaluator
from .final_response_match_v1 import RougeEvaluator
from .metrics import BUILTIN_METRICS, run_metric
from .simulation.per_turn_user_simulator_quality_v1 import PerTurnUserSimulatorQualityV1
from .trajectory_evaluator import TrajectoryEvaluator


class _BuiltinMetricEvaluator(Evaluator):
  """Wraps one of adk_nb's metric functions; awaitable, as the judge metric calls a model."""

  def __init__(self, eval_metric: EvalMetric):
    self._eval_metric = eval_metric

  async def evaluate_invocations(self, actual_invocations: list[Invocation],
                                 expected_invocations: Optional[list[Invocation]] = None,
                                 conversation_scenario: Any = None) -> EvaluationResult:
    fn = BUILTIN_METRICS[self._eval_metric.metric_name]
    return await run_metric(self._eval_metric, fn, actual_invocations, expected_invocations,
                            conversation_scenario=conversation_scenario)


class MetricEvaluatorRegistry:
  """Which Evaluator class computes which metric; each instance has its own mapping."""

  def __init__(self) -> None:
    self._registry: dict[str, tuple[type, MetricInfo]] = {}
    for name in BUILTIN_METRICS:
      evaluator = {PrebuiltMetrics.TOOL_TRAJECTORY_AVG_SCORE.value: _TrajectoryFromMetric,
                   PrebuiltMetrics.RESPONSE_MATCH_SCORE.value: RougeEvaluator,
                   PrebuiltMetrics.PER_TURN_USER_SIMULATOR_QUALITY_V1.value: PerTurnUserSimulatorQualityV1,
                   }.get(name, _BuiltinMetricEvaluator)
      doc = (BUILTIN_METRICS[name].__doc__ or "").strip().splitlines()
      self.register_evaluator(MetricInfo(metric_name=name, description=doc[0] if doc else ""), evaluator)

  def get_evaluator(self, eval_metric: EvalMetric) -> Evaluator:
    """A new Evaluator for `eval_metric`; NotFoundError when no class is registered for its name."""
    if eval_metric.metric_name not in self._registry:
      raise NotFoundError(f"{eval_metric.metric_name} not found in registry; registered: "
                          f"{', '.join(sorted(self._registry))}.")
    evaluator_type, _ = self._registry[eval_metric.metric_name]
    return evaluator_type(eval_metric=eval_metric)

  def register_evaluator(self, metric_info: MetricInfo, evaluator: type) -> None:
    """Maps `metric_info.metric_name` to `evaluator` (replacing an earlier mapping)."""
    self._registry[str(metric_info.metric_name)] = (evaluator, metric_info)

  def get_registered_metrics(self) -> list[MetricInfo]:
    """What each registered metric is."""
    return [info.model_copy(deep=True) for _, info in self._registry.values()]


class _TrajectoryFromMetric(TrajectoryEvaluator):
  def __init__(self, eval_metric: EvalMetric):
    super().__init__(eval_metric=eval_metric)


DEFAULT_METRIC_EVALUATOR_REGISTRY = MetricEvaluatorRegistry()
"""The registry with adk_nb's built-in metrics."""

__all__ = ["DEFAULT_METRIC_EVALUATOR_REGISTRY", "MetricEvaluatorRegistry"]
