"""EvalConfig: which metrics to compute and their thresholds, as in ADK's `test_config.json`."""

from __future__ import annotations

from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, ValidationError, alias_generators, field_validator

from .eval_metrics import (BaseCriterion, EvalMetric, HallucinationsCriterion, LlmAsAJudgeCriterion,
                           LlmBackedUserSimulatorCriterion, PrebuiltMetrics, RubricsBasedCriterion,
                           ToolTrajectoryCriterion)
from .simulation.user_simulator import BaseUserSimulatorConfig

_TRAJECTORY_METRICS = {
    PrebuiltMetrics.TOOL_TRAJECTORY_AVG_SCORE.value,
    PrebuiltMetrics.TOOL_TRAJECTORY_PRECISION.value,
    PrebuiltMetrics.TOOL_TRAJECTORY_RECALL.value,
    PrebuiltMetrics.TOOL_TRAJECTORY_F1.value,
}
_JUDGE_METRICS = {PrebuiltMetrics.FINAL_RESPONSE_MATCH_V2.value, PrebuiltMetrics.SAFETY_V1.value}
_RUBRIC_METRICS = {PrebuiltMetrics.RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1.value,
                   PrebuiltMetrics.RUBRIC_BASED_TOOL_USE_QUALITY_V1.value}


def criterion_type(metric_name: str) -> type[BaseCriterion]:
  """The criterion class a metric's options are read into."""
  if metric_name in _TRAJECTORY_METRICS:
    return ToolTrajectoryCriterion
  if metric_name in _JUDGE_METRICS:
    return LlmAsAJudgeCriterion
  if metric_name in _RUBRIC_METRICS:
    return RubricsBasedCriterion
  if metric_name == PrebuiltMetrics.HALLUCINATIONS_V1.value:
    return HallucinationsCriterion
  if metric_name == PrebuiltMetrics.PER_TURN_USER_SIMULATOR_QUALITY_V1.value:
    return LlmBackedUserSimulatorCriterion
  return BaseCriterion


class CustomMetricConfig(BaseModel):
  """Where a user metric lives: `{"code_config": {"name": "pkg.module.function"}}`."""

  model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True, extra="allow")

  code_config: dict[str, Any]
  """`{"name": "package.module.function"}`."""
  description: str = ""
  """What the metric measures."""


class EvalConfig(BaseModel):
  """Metrics and thresholds for an eval run.

  `criteria` maps a metric name to a threshold (`0.8`) or an object
  (`{"threshold": 1.0, "match_type": "IN_ORDER", "ignore_args": true}`).
  """

  model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True, extra="allow")

  criteria: dict[str, Union[float, SerializeAsAny[BaseCriterion]]] = Field(default_factory=dict)
  """Metric name -> threshold or criterion object."""
  custom_metrics: Optional[dict[str, CustomMetricConfig]] = None
  """Metric name -> where its function lives."""
  user_simulator_config: Optional[SerializeAsAny[BaseUserSimulatorConfig]] = None
  """Options of the simulated user that plays `conversation_scenario` cases, read into the options class
  registered for their `type` (none: LlmBackedUserSimulatorConfig, whose fields are model,
  max_allowed_invocations, custom_instructions, include_function_calls, model_configuration)."""

  @field_validator("user_simulator_config", mode="before")
  @classmethod
  def _simulator_config_by_type(cls, value: Any) -> Any:
    if isinstance(value, dict):
      from .simulation.user_simulator_provider import config_for_type

      return config_for_type(value)
    return value

  @field_validator("criteria", mode="before")
  @classmethod
  def _typed_criteria(cls, value: Any) -> Any:
    if not isinstance(value, dict):
      return value
    typed = {}
    for name, criterion in value.items():
      if isinstance(criterion, bool) or not isinstance(criterion, (int, float, dict, BaseCriterion)):
        raise ValueError(
            f"criterion {name!r} must be a number (the threshold) or an object with 'threshold', "
            f"got {criterion!r}"
        )
      if isinstance(criterion, (int, float)):
        typed[name] = float(criterion)
      elif isinstance(criterion, dict):
        try:
          typed[name] = criterion_type(name).model_validate(criterion)
        except ValidationError as exc:
          err = exc.errors()[0]
          field = ".".join(str(x) for x in err["loc"])
          raise ValueError(f"criterion {name!r}, field {field!r}: {err['msg'].removeprefix('Value error, ')}") from None
      else:
        typed[name] = criterion
    return typed

  def eval_metrics(self) -> list[EvalMetric]:
    """The metrics to compute, one EvalMetric per criterion, with typed criteria."""
    metrics = []
    for name, criterion in self.criteria.items():
      if isinstance(criterion, (int, float)):
        criterion = criterion_type(name)(threshold=float(criterion))
      elif type(criterion) is BaseCriterion and criterion_type(name) is not BaseCriterion:
        criterion = criterion_type(name).model_validate(criterion.model_dump())
      path = None
      if self.custom_metrics and name in self.custom_metrics:
        path = self.custom_metrics[name].code_config.get("name")
      metrics.append(EvalMetric(metric_name=name, threshold=criterion.threshold, criterion=criterion,
                                custom_function_path=path))
    return metrics


DEFAULT_EVAL_CONFIG = EvalConfig(criteria={"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8})
"""ADK's default when no test_config.json is found."""
_DEFAULT_EVAL_CONFIG = DEFAULT_EVAL_CONFIG  # google-adk's (private) name for it


def get_eval_metrics_from_config(eval_config: EvalConfig) -> list[EvalMetric]:
  """The metrics an EvalConfig asks for, one per criterion (google-adk's name for `EvalConfig.eval_metrics`)."""
  return eval_config.eval_metrics()


def get_evaluation_criteria_or_default(eval_config_file_path: Optional[str]) -> EvalConfig:
  """The EvalConfig in `eval_config_file_path` (a test_config.json), or ADK's default criteria if absent."""
  from .formats import load_eval_config  # formats imports this module

  return load_eval_config(eval_config_file_path)
