"""Evaluation: ADK eval sets and metrics, run concurrently, results as pandas frames and plotly charts.

    results = await evaluate(agent, "tests/weather.evalset.json")
    results.cases          # one row per case x run
    results.compare(old)   # deltas and regressed / fixed labels
    results.plot()         # plotly figure
    EvalResults.open(run_id)   # a stored run (.adk_nb/eval/<run id>/), also mid-run or after a kill

`AgentEvaluator.evaluate(...)` is ADK's pytest entry point; `adk-nb eval AGENT_DIR EVALSET...`
is the command line.
"""

from __future__ import annotations

from .eval_case import EvalCase, IntermediateData, Invocation, InvocationEvent, InvocationEvents, SessionInput
from .eval_config import EvalConfig
from .eval_metrics import (BaseCriterion, EvalMetric, EvalMetricResult, EvalStatus, JudgeModelOptions,
                           LlmAsAJudgeCriterion, PrebuiltMetrics, ToolTrajectoryCriterion)
from .eval_result import EvalCaseResult, EvalSetResult
from .eval_set import EvalSet
from .evaluator import EvaluationResult, PerInvocationResult
from .formats import EvalFileError, load_eval_config, load_eval_set, save_eval_set
from .result_store import ResultStore, list_runs
from ..utils.lazy import lazy_exports

__all__ = [
    "AgentEvaluator", "BaseCriterion", "LocalExecutor", "RayExecutor", "EvalCase", "EvalCaseResult", "EvalConfig", "EvalFileError", "EvalMetric",
    "EvalMetricResult", "EvalResults", "EvalSet", "EvalSetResult", "EvalStatus", "EvaluationResult",
    "IntermediateData", "Invocation", "InvocationEvent", "InvocationEvents", "JudgeModelOptions",
    "LlmAsAJudgeCriterion", "PerInvocationResult", "PrebuiltMetrics", "ResultStore", "SessionInput",
    "ToolTrajectoryCriterion", "eval_case_from_session", "evaluate", "list_runs", "load_eval_config", "load_eval_set",
    "save_eval_set",
]


# Lazy: running and reporting pull in the runner and agents only when used.
__getattr__ = lazy_exports(__name__, {
    "evaluate": "._evaluate", "EvalResults": ".results", "AgentEvaluator": ".agent_evaluator",
    "RayExecutor": ".executors", "LocalExecutor": ".executors", "eval_case_from_session": ".from_session"})
