"""Scoring stored runs again with other metrics or thresholds, without running the agent again.

Every stored case run keeps, per turn, what the agent did (`actual_invocation`) and what was expected
(`expected_invocation`): that is all a metric reads, so new metrics, changed thresholds or a
different judge can be applied to an old run. A run that ended in an error stays as it was.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any, Union

from .eval_case import EvalCase
from .eval_config import EvalConfig
from .eval_result import EvalCaseResult, EvalSetResult

if TYPE_CHECKING:
  from .results import EvalResults


async def rescore(results: "EvalResults", metrics: Any = None, *, config: Union[EvalConfig, dict, None] = None,
                  judge_model: Any = None, label: Union[str, None] = None) -> "EvalResults":
  """New EvalResults: each case run of `results` scored with `config`'s criteria and `metrics` (as
  `evaluate` takes them). Nothing runs but the metrics; `results` is not changed."""
  from ._run import _final_status, resolve_metrics, score_case
  from .results import EvalResults

  if config is None:
    config = EvalConfig()
  elif isinstance(config, dict):
    config = EvalConfig.model_validate(config)
  resolved = resolve_metrics(config, metrics)
  if not resolved:
    raise ValueError("Nothing to score with: pass metrics=... (functions, as evaluate takes them) or "
                     "config={'criteria': {...}}.")
  cases: list[EvalCaseResult] = []
  for case_result in results.case_results:
    if case_result.error_type is not None:
      cases.append(case_result)
      continue
    turns = case_result.eval_metric_result_per_invocation
    actual = [t.actual_invocation for t in turns]
    expected = [t.expected_invocation for t in turns]
    case = EvalCase(eval_id=case_result.eval_id,
                    conversation=expected if expected and all(e is not None for e in expected) else None)
    overall, per_turn = await score_case(case, actual, resolved, judge_model=judge_model)
    cases.append(case_result.model_copy(update={"overall_eval_metric_results": overall,
                                                "eval_metric_result_per_invocation": per_turn,
                                                "final_eval_status": _final_status(overall)}))
  result = EvalSetResult(eval_set_result_id=f"{results.eval_set_id}-rescored-{uuid.uuid4().hex[:8]}",
                         eval_set_id=results.eval_set_id, eval_case_results=cases)
  return EvalResults(result, label=label or f"{results.label} (rescored)")
