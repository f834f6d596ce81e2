"""The metrics: ADK's trajectory and ROUGE-1 scores, LCS trajectory precision/recall/F1,
an LLM judge, and user metrics written as plain functions.

A user metric is a function of one turn, `fn(actual: Invocation, expected: Invocation | None)`,
returning a float or bool (or None to skip the turn), sync or async; the case score is the
mean over turns. A function of four arguments `(eval_metric, actual_invocations,
expected_invocations, conversation_scenario)` returning an `EvaluationResult` is treated as
an ADK custom metric.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import re
from typing import Any, Callable, Optional

from google.genai import types

from ._rouge import rouge1
from .eval_case import Invocation, content_text, get_all_tool_calls
from .eval_metrics import (BaseCriterion, EvalMetric, EvalStatus, LlmAsAJudgeCriterion, PrebuiltMetrics,
                           ToolTrajectoryCriterion, criterion_of, metric_threshold)
from .evaluator import EvaluationResult, PerInvocationResult, status_of
from .judge_metrics import hallucinations_v1, safety_v1
from .rubric_metrics import rubric_based_final_response_quality_v1, rubric_based_tool_use_quality_v1
from .simulation.per_turn_user_simulator_quality_v1 import per_turn_user_simulator_quality_v1

MatchType = ToolTrajectoryCriterion.MatchType
UserMetric = Callable[..., Any]


# ---- tool trajectories ------------------------------------------------------------------------

def _same_call(a: types.FunctionCall, b: types.FunctionCall, ignore_args: bool) -> bool:
  return a.name == b.name and (ignore_args or (a.args or {}) == (b.args or {}))


def trajectory_match(actual: list[types.FunctionCall], expected: list[types.FunctionCall],
                     match_type: MatchType = MatchType.EXACT, ignore_args: bool = False) -> bool:
  """Whether the actual tool calls match the expected ones under a match type (ADK's rules)."""
  if match_type == MatchType.EXACT:
    return len(actual) == len(expected) and all(_same_call(a, e, ignore_args) for a, e in zip(actual, expected))
  if match_type == MatchType.IN_ORDER:
    i = 0
    for call in actual:
      if i < len(expected) and _same_call(call, expected[i], ignore_args):
        i += 1
    return i == len(expected)
  if match_type == MatchType.ANY_ORDER:
    left = list(actual)
    for want in expected:
      for k, call in enumerate(left):
        if _same_call(call, want, ignore_args):
          del left[k]
          break
      else:
        return False
    return True
  raise ValueError(f"Unknown match type {match_type!r}; use EXACT, IN_ORDER or ANY_ORDER.")


def lcs_length(actual: list[types.FunctionCall], expected: list[types.FunctionCall], ignore_args: bool = False) -> int:
  """Length of the longest common subsequence of two tool-call lists."""
  prev = [0] * (len(expected) + 1)
  for a in actual:
    row = [0]
    for j, e in enumerate(expected):
      row.append(prev[j] + 1 if _same_call(a, e, ignore_args) else max(prev[j + 1], row[j]))
    prev = row
  return prev[-1]


def trajectory_prf(actual: list[types.FunctionCall], expected: list[types.FunctionCall],
                   ignore_args: bool = False) -> tuple[float, float, float]:
  """(precision, recall, F1) of the actual tool calls by longest common subsequence.

  precision = LCS / len(actual), recall = LCS / len(expected). No calls expected and
  none made scores 1, 1, 1; calls made when none were expected give precision 0 and
  recall 1; no calls made when some were expected give precision 0 and recall 0.
  """
  if not actual and not expected:
    return 1.0, 1.0, 1.0
  lcs = lcs_length(actual, expected, ignore_args)
  precision = lcs / len(actual) if actual else 0.0
  recall = lcs / len(expected) if expected else 1.0
  f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
  return precision, recall, f1


def _criterion(metric: EvalMetric, kind: type[BaseCriterion]) -> Any:
  return criterion_of(metric, kind, 1.0)


def _per_turn(metric: EvalMetric, actual: list[Invocation], expected: Optional[list[Invocation]],
              score: Callable[[Invocation, Optional[Invocation]], Optional[float]],
              turn_status: Optional[Callable[[float], EvalStatus]] = None) -> EvaluationResult:
  if expected is None:
    raise ValueError(f"{metric.metric_name} compares against expected turns; the case has none.")
  if len(actual) != len(expected):
    raise ValueError(f"{metric.metric_name}: {len(actual)} actual turns but {len(expected)} expected.")
  threshold = metric_threshold(metric)
  results, scores = [], []
  for a, e in zip(actual, expected):
    s = score(a, e)
    if s is not None:
      scores.append(s)
    status = turn_status(s) if (turn_status and s is not None) else status_of(s, threshold)
    results.append(PerInvocationResult(actual_invocation=a, expected_invocation=e, score=s, eval_status=status))
  overall = sum(scores) / len(scores) if scores else None
  return EvaluationResult(overall_score=overall, overall_eval_status=status_of(overall, threshold),
                          per_invocation_results=results)


def tool_trajectory_avg_score(metric: EvalMetric, actual: list[Invocation],
                              expected: Optional[list[Invocation]]) -> EvaluationResult:
  """ADK's tool_trajectory_avg_score: 1 per turn whose tool calls match (EXACT/IN_ORDER/ANY_ORDER), averaged."""
  crit = _criterion(metric, ToolTrajectoryCriterion)
  return _per_turn(metric, actual, expected, lambda a, e: float(trajectory_match(
      get_all_tool_calls(a.intermediate_data), get_all_tool_calls(e.intermediate_data),
      crit.match_type, crit.ignore_args)))


def _prf_metric(index: int):
  def metric_fn(metric: EvalMetric, actual: list[Invocation], expected: Optional[list[Invocation]]) -> EvaluationResult:
    crit = _criterion(metric, ToolTrajectoryCriterion)
    return _per_turn(metric, actual, expected, lambda a, e: trajectory_prf(
        get_all_tool_calls(a.intermediate_data), get_all_tool_calls(e.intermediate_data), crit.ignore_args)[index])
  return metric_fn


tool_trajectory_precision = _prf_metric(0)
tool_trajectory_precision.__doc__ = "Share of the agent's tool calls that are in the longest common subsequence with the expected calls."
tool_trajectory_recall = _prf_metric(1)
tool_trajectory_recall.__doc__ = "Share of the expected tool calls found, in order, in the agent's calls (LCS)."
tool_trajectory_f1 = _prf_metric(2)
tool_trajectory_f1.__doc__ = "Harmonic mean of LCS trajectory precision and recall."


def response_match_score(metric: EvalMetric, actual: list[Invocation],
                         expected: Optional[list[Invocation]]) -> EvaluationResult:
  """ADK's response_match_score: ROUGE-1 F-measure of the final answer against the expected one."""
  return _per_turn(metric, actual, expected, lambda a, e: rouge1(
      content_text(a.final_response), content_text(e.final_response)).fmeasure)


# ---- LLM as judge -------------------------------------------------------------------------------

JUDGE_PROMPT = """You check whether an AI agent answered a user correctly.

Compare the agent's answer with the reference answer. The agent's answer is valid when it
gives the same information the reference gives (wording, order and extra politeness do not
matter; missing or contradicting facts do).

User's message:
{prompt}

Reference answer:
{reference}

Agent's answer:
{response}

Reply with one JSON object and nothing else:
{{"reasoning": "<one or two sentences>", "is_the_agent_response_valid": "valid" or "invalid"}}"""

_LABEL = re.compile(r'"?is_the_agent_response_valid"?\s*:\s*"?(valid|invalid)', re.I)


def parse_verdict(text: str) -> Optional[bool]:
  """True/False from a judge reply ('valid'/'invalid'); None when the reply has no verdict."""
  match = _LABEL.search(text or "")
  if match:
    return match.group(1).lower() == "valid"
  words = re.findall(r"\b(valid|invalid)\b", (text or "").lower())
  return words[-1] == "valid" if words else None


async def _ask_judge(model: Any, prompt: str, config: Optional[types.GenerateContentConfig]) -> str:
  from ..models.llm_request import LlmRequest

  request = LlmRequest(model=getattr(model, "model", None),
                       contents=[types.Content(role="user", parts=[types.Part(text=prompt)])],
                       config=config.model_copy() if config else types.GenerateContentConfig())
  text = ""
  async for response in model.generate_content_async(request, stream=False):
    if response.content and response.content.parts and not response.partial:
      text = "".join(p.text or "" for p in response.content.parts if not p.thought)
  return text


def resolve_judge(judge: Any, criterion: LlmAsAJudgeCriterion) -> Any:
  """The judge model: the one passed in, or the criterion's judge_model name via the model registry."""
  if judge is not None and not isinstance(judge, str):
    return judge
  from ..models.registry import LLMRegistry

  return LLMRegistry.new_llm(judge or criterion.judge_model_options.judge_model)


async def final_response_match_v2(metric: EvalMetric, actual: list[Invocation],
                                  expected: Optional[list[Invocation]], *, judge_model: Any = None) -> EvaluationResult:
  """LLM-as-judge: a judge model says whether each final answer agrees with the reference.

  The judge is asked `num_samples` times per turn; the turn scores 1 when most parseable
  verdicts say valid (ties count as invalid), 0 otherwise, None when no verdict parsed.
  """
  crit = _criterion(metric, LlmAsAJudgeCriterion)
  model = resolve_judge(judge_model, crit)
  options = crit.judge_model_options
  if expected is None or len(actual) != len(expected):
    raise ValueError(f"{metric.metric_name} needs one expected turn per actual turn.")
  turn_scores: list[Optional[float]] = []
  verdicts_by_turn = []
  for a, e in zip(actual, expected):
    prompt = JUDGE_PROMPT.format(prompt=content_text(a.user_content), reference=content_text(e.final_response),
                                 response=content_text(a.final_response))
    replies = await asyncio.gather(*[_ask_judge(model, prompt, options.judge_model_config)
                                     for _ in range(options.num_samples)])
    verdicts = [v for v in map(parse_verdict, replies) if v is not None]
    verdicts_by_turn.append(verdicts)
    turn_scores.append(None if not verdicts else float(sum(verdicts) * 2 > len(verdicts)))
  it = iter(turn_scores)
  result = _per_turn(metric, actual, expected, lambda a, e: next(it))
  for per, verdicts in zip(result.per_invocation_results, verdicts_by_turn):
    per.details["verdicts"] = ["valid" if v else "invalid" for v in verdicts]
  return result


# ---- registry ---------------------------------------------------------------------------------

BUILTIN_METRICS: dict[str, Callable[..., Any]] = {
    PrebuiltMetrics.TOOL_TRAJECTORY_AVG_SCORE.value: tool_trajectory_avg_score,
    PrebuiltMetrics.RESPONSE_MATCH_SCORE.value: response_match_score,
    PrebuiltMetrics.TOOL_TRAJECTORY_PRECISION.value: tool_trajectory_precision,
    PrebuiltMetrics.TOOL_TRAJECTORY_RECALL.value: tool_trajectory_recall,
    PrebuiltMetrics.TOOL_TRAJECTORY_F1.value: tool_trajectory_f1,
    PrebuiltMetrics.FINAL_RESPONSE_MATCH_V2.value: final_response_match_v2,
    PrebuiltMetrics.RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1.value: rubric_based_final_response_quality_v1,
    PrebuiltMetrics.RUBRIC_BASED_TOOL_USE_QUALITY_V1.value: rubric_based_tool_use_quality_v1,
    PrebuiltMetrics.HALLUCINATIONS_V1.value: hallucinations_v1,
    PrebuiltMetrics.SAFETY_V1.value: safety_v1,
    PrebuiltMetrics.PER_TURN_USER_SIMULATOR_QUALITY_V1.value: per_turn_user_simulator_quality_v1,
}


def import_function(path: str) -> Callable[..., Any]:
  """The function at 'package.module.function'."""
  module_name, _, name = path.rpartition(".")
  try:
    fn = getattr(importlib.import_module(module_name), name)
  except (ImportError, AttributeError, ValueError) as exc:
    raise ImportError(f"Cannot import the metric function {path!r} ({exc}); give 'package.module.function' "
                      "importable from the working directory.") from exc
  if not callable(fn):
    raise TypeError(f"{path!r} is not a function.")
  return fn


def _n_params(fn: Callable[..., Any]) -> int:
  try:
    return len([p for p in inspect.signature(fn).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty])
  except (TypeError, ValueError):
    return 2


async def run_metric(metric: EvalMetric, fn: Callable[..., Any], actual: list[Invocation],
                     expected: Optional[list[Invocation]], *, judge_model: Any = None,
                     conversation_scenario: Any = None) -> EvaluationResult:
  """Computes one metric for one case run (built-in, ADK custom function, or per-turn user function)."""
  if getattr(fn, "needs_scenario", False):
    return await fn(metric, actual, expected, judge_model=judge_model, conversation_scenario=conversation_scenario)
  if fn is final_response_match_v2 or getattr(fn, "needs_judge", False):
    return await fn(metric, actual, expected, judge_model=judge_model)
  if fn in BUILTIN_METRICS.values():
    return fn(metric, actual, expected)
  if _n_params(fn) >= 4:  # ADK custom metric: (eval_metric, actual, expected, scenario) -> EvaluationResult
    result = fn(metric, actual, expected, conversation_scenario)
    if inspect.isawaitable(result):
      result = await result
    if not isinstance(result, EvaluationResult):
      result = EvaluationResult.model_validate(result.model_dump() if hasattr(result, "model_dump") else result)
    return result
  scores: list[Optional[float]] = []
  pairs = list(zip(actual, expected)) if expected is not None else [(a, None) for a in actual]
  for a, e in pairs:
    value = fn(a, e)
    if inspect.isawaitable(value):
      value = await value
    if value is not None and not isinstance(value, (int, float)):
      raise TypeError(f"Metric {metric.metric_name!r} returned {type(value).__name__}; return a float, a bool or None.")
    scores.append(None if value is None else float(value))
  it = iter(scores)
  return _per_turn(metric, [a for a, _ in pairs], [e or a for a, e in pairs], lambda a, e: next(it))
