"""Metric names, criteria (thresholds and options) and metric results, in ADK's shapes."""

from __future__ import annotations

from enum import Enum
from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, alias_generators, field_validator

from ._base import EvalBaseModel
from .eval_case import Invocation
from .eval_rubrics import Rubric


class EvalStatus(Enum):
  """Whether a metric (or a case) passed; stored as ADK's integers."""

  PASSED = 1
  FAILED = 2
  NOT_EVALUATED = 3
  INFORMATIONAL = 4


class PrebuiltMetrics(Enum):
  """Names of the metrics adk_nb computes itself."""

  TOOL_TRAJECTORY_AVG_SCORE = "tool_trajectory_avg_score"
  RESPONSE_MATCH_SCORE = "response_match_score"
  FINAL_RESPONSE_MATCH_V2 = "final_response_match_v2"
  TOOL_TRAJECTORY_PRECISION = "tool_trajectory_precision"
  TOOL_TRAJECTORY_RECALL = "tool_trajectory_recall"
  TOOL_TRAJECTORY_F1 = "tool_trajectory_f1"
  RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1 = "rubric_based_final_response_quality_v1"
  RUBRIC_BASED_TOOL_USE_QUALITY_V1 = "rubric_based_tool_use_quality_v1"
  HALLUCINATIONS_V1 = "hallucinations_v1"
  SAFETY_V1 = "safety_v1"
  PER_TURN_USER_SIMULATOR_QUALITY_V1 = "per_turn_user_simulator_quality_v1"


class BaseCriterion(BaseModel):
  """A metric's pass threshold, plus any metric-specific options (extra keys are kept)."""

  model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True, extra="allow")

  threshold: float
  """The score a case must reach (>=) to pass this metric."""


class JudgeModelOptions(EvalBaseModel):
  """Which model judges answers, and how often it is asked."""

  judge_model: str = "gemini-2.5-flash"
  """The judge's model name (or pass a BaseLlm as `judge_model=` to `evaluate`)."""
  judge_model_config: Optional[types.GenerateContentConfig] = None
  """Generation config sent to the judge."""
  num_samples: int = Field(default=5, ge=1)
  """How many times the judge is asked per turn; the majority verdict wins."""


class LlmAsAJudgeCriterion(BaseCriterion):
  """Criterion of a metric scored by a judge model."""

  judge_model_options: JudgeModelOptions = Field(default_factory=JudgeModelOptions)
  """The judge model and sampling."""


class LlmBackedUserSimulatorCriterion(LlmAsAJudgeCriterion):
  """Criterion of per_turn_user_simulator_quality_v1: the judge, and the simulated user's stop signal."""

  stop_signal: str = "</finished>"
  """What the simulated user says to end the conversation (keep it equal to the simulator's)."""


class RubricsBasedCriterion(BaseCriterion):
  """Criterion of the rubric metrics: the judge, and rubrics that apply to every turn."""

  judge_model_options: JudgeModelOptions = Field(default_factory=JudgeModelOptions)
  """The judge model and sampling."""
  rubrics: list[Rubric] = Field(default_factory=list)
  """Rubrics checked on every turn (turns may add their own in `rubrics`)."""


class HallucinationsCriterion(BaseCriterion):
  """Criterion of hallucinations_v1."""

  judge_model_options: JudgeModelOptions = Field(default_factory=JudgeModelOptions)
  """The judge model (num_samples is not used: each answer is segmented and labelled once)."""
  evaluate_intermediate_nl_responses: bool = False
  """Check the text the agent wrote before its final answer too."""


class ToolTrajectoryCriterion(BaseCriterion):
  """Criterion of the trajectory metrics: how actual tool calls are matched to expected ones."""

  class MatchType(Enum):
    """How the actual tool calls must match the expected ones."""

    EXACT = 0
    """Same calls, same order, nothing extra."""
    IN_ORDER = 1
    """Every expected call appears, in order; extra calls in between are allowed."""
    ANY_ORDER = 2
    """Every expected call appears, in any order; extra calls are allowed."""

  match_type: MatchType = MatchType.EXACT
  """EXACT, IN_ORDER or ANY_ORDER (names, any case, or ADK's integers)."""
  ignore_args: bool = False
  """Compare tool names only."""

  @field_validator("match_type", mode="before")
  @classmethod
  def _match_type_by_name(cls, value: Any) -> Any:
    if isinstance(value, str):
      key = value.strip().upper().replace("-", "_").replace(" ", "_")
      if key in cls.MatchType.__members__:
        return cls.MatchType[key]
      raise ValueError(f"unknown match_type {value!r}; use EXACT, IN_ORDER or ANY_ORDER")
    return value


class EvalMetric(EvalBaseModel):
  """A metric to compute, with its criterion."""

  metric_name: str
  """The metric's name."""
  threshold: Optional[float] = None
  """The pass threshold (ADK's older spelling; `criterion.threshold` wins)."""
  criterion: Optional[SerializeAsAny[BaseCriterion]] = None
  """Threshold and options."""
  custom_function_path: Optional[str] = None
  """'package.module.function' of a user metric."""


class EvalMetricResultDetails(EvalBaseModel):
  """Extra detail behind a score (rubric scores in ADK; the judge's verdicts here)."""

  model_config = ConfigDict(extra="allow")

  rubric_scores: Optional[list[Any]] = None
  """Rubric scores (ADK compatibility)."""


class EvalMetricResult(EvalMetric):
  """A metric's score and pass/fail status."""

  score: Optional[float] = None
  """The score; None when it could not be computed."""
  eval_status: EvalStatus
  """PASSED / FAILED / NOT_EVALUATED / INFORMATIONAL."""
  details: EvalMetricResultDetails = Field(default_factory=EvalMetricResultDetails)
  """Extra detail."""


class EvalMetricResultPerInvocation(EvalBaseModel):
  """The actual and expected turn, with every metric's result for that turn."""

  actual_invocation: Invocation
  """What the agent did."""
  expected_invocation: Optional[Invocation] = None
  """What the case expected."""
  eval_metric_results: list[EvalMetricResult] = []
  """One result per metric."""


def metric_threshold(metric: EvalMetric) -> Optional[float]:
  """The threshold of a metric: its criterion's, else its own, else None (informational)."""
  if metric.criterion is not None:
    return metric.criterion.threshold
  return metric.threshold


def criterion_of(metric: EvalMetric, kind: type, default_threshold: float) -> Any:
  """The metric's criterion as `kind`: as given, converted from another criterion class, or (none given)
  a `kind` with the metric's own threshold, else `default_threshold`."""
  crit = metric.criterion
  if isinstance(crit, kind):
    return crit
  if crit is None:
    return kind(threshold=metric.threshold if metric.threshold is not None else default_threshold)
  return kind.model_validate(crit.model_dump())


class MetricInfo(EvalBaseModel):
  """What a metric is, for listings (google-adk's `MetricInfo`, without the value-range details)."""

  metric_name: str
  """The name used in criteria."""
  description: str = ""
  """One line on what it measures."""
