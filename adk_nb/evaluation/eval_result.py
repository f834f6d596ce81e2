"""Results of an eval run in ADK's `EvalSetResult` shape, so ADK tools and adk_nb read each other's files."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, alias_generators

from .eval_metrics import EvalMetricResult, EvalMetricResultPerInvocation, EvalStatus


class EvalCaseResult(BaseModel):
  """One run of one case: final status, every metric overall and per turn.

  Beyond ADK (ignored by ADK readers): `run` numbers repeated runs, `error_type` and
  `error_message` say why a case that could not finish failed ('timeout' or the exception).
  """

  model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True)

  eval_set_file: Optional[str] = None
  """Deprecated ADK field; the eval set id."""
  eval_set_id: str = ""
  """The eval set id."""
  eval_id: str = ""
  """The case id."""
  final_eval_status: EvalStatus
  """PASSED when every thresholded metric passed; FAILED otherwise or when the run errored."""
  overall_eval_metric_results: list[EvalMetricResult] = Field(default_factory=list)
  """Each metric over the whole case."""
  eval_metric_result_per_invocation: list[EvalMetricResultPerInvocation] = Field(default_factory=list)
  """Each turn: actual vs expected and each metric's result."""
  session_id: str = ""
  """The session the case ran in."""
  session_details: Optional[Any] = None
  """The whole session (kept only with keep_sessions=True)."""
  user_id: Optional[str] = None
  """The user the case ran as."""
  run: int = 0
  """Which of the `num_runs` repeats this is (0-based)."""
  error_type: Optional[str] = None
  """'timeout', or the exception's class name, when the run could not finish."""
  error_message: Optional[str] = None
  """What went wrong, when the run could not finish."""


class EvalSetResult(BaseModel):
  """Every case result of one eval run."""

  model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True)

  eval_set_result_id: str
  """Unique id of this result."""
  eval_set_result_name: Optional[str] = None
  """File-safe name of this result."""
  eval_set_id: str
  """The eval set that was run."""
  eval_case_results: list[EvalCaseResult] = Field(default_factory=list)
  """Case results, in eval-set order, run by run."""
  creation_timestamp: float = 0.0
  """When the run finished."""
