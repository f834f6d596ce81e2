"""Rubric metrics judged by a model: `rubric_based_final_response_quality_v1` and `rubric_based_tool_use_quality_v1`.

The judge gets the user's message, the agent's answer (or its tool calls and results) and the rubrics, and
answers each rubric with an `ID:` / `Property:` / `Rationale:` / `Verdict: yes|no` block. It is asked
`num_samples` times per turn; each rubric takes the majority verdict (a tie counts as no, as in google-adk),
the turn scores the share of rubrics met, the case the mean over turns. Rubrics come from the criterion
and from each expected turn's `rubrics` of the metric's type. A reply that does not give one block per
property it names is not counted.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, Optional

from .eval_case import Invocation, content_text, get_all_tool_calls_with_responses
from .eval_metrics import EvalMetric, RubricsBasedCriterion, criterion_of, metric_threshold
from .eval_rubrics import Rubric, RubricScore
from .evaluator import EvaluationResult, PerInvocationResult, status_of

RUBRIC_PROMPT = """You grade an AI agent's {subject} against rubrics. Each rubric is a property that either
holds (yes) or does not (no) for what the agent did. Judge only from what is shown.

User's message:
{prompt}

{shown}

Rubrics:
{rubrics}

For every rubric, in order, write exactly these four lines:
ID: <the rubric's id>
Property: <the rubric's property, copied>
Rationale: <one sentence>
Verdict: yes or no"""

_BLOCK = re.compile(r"(?m)^\s*(ID|Property|Rationale|Verdict):\s*(.*)$")


def parse_rubric_reply(text: str) -> list[tuple[Optional[str], str, str, Optional[float]]]:
  """(id, property, rationale, 1/0/None) per block of a judge reply; [] when the blocks are incomplete."""
  blocks: list[dict[str, str]] = []
  for key, value in _BLOCK.findall(text or ""):
    if not blocks or key == "ID" or (key == "Property" and "Property" in blocks[-1]):
      blocks.append({})
    blocks[-1][key] = value.strip()
  if not blocks or any({"Property", "Rationale", "Verdict"} - set(b) for b in blocks):
    return []
  out = []
  for b in blocks:
    verdict = b["Verdict"].lower()
    score = 1.0 if "yes" in verdict else 0.0 if "no" in verdict else None
    out.append((b.get("ID") or None, b["Property"], b["Rationale"], score))
  return out


def _norm(text: Optional[str]) -> str:
  return " ".join((text or "").lower().split()).rstrip(".")


def _tool_use(invocation: Invocation) -> str:
  lines = []
  for call, response in get_all_tool_calls_with_responses(invocation.intermediate_data):
    lines.append(f"- {call.name}({call.args or {}}) -> {response.response if response else 'no response'}")
  return "\n".join(lines) or "(no tool calls)"


def _criterion(metric: EvalMetric) -> RubricsBasedCriterion:
  return criterion_of(metric, RubricsBasedCriterion, 0.5)


def _rubrics_for(crit: RubricsBasedCriterion, expected: Optional[Invocation], kind: str) -> list[Rubric]:
  rubrics = {r.rubric_id: r for r in crit.rubrics}
  for raw in (expected.rubrics or []) if expected is not None else []:
    rubric = raw if isinstance(raw, Rubric) else Rubric.model_validate(raw)
    if rubric.type in (None, kind):
      if rubric.rubric_id in rubrics:
        raise ValueError(f"Rubric id {rubric.rubric_id!r} is given twice (criterion and turn); give each rubric "
                         "its own rubric_id.")
      rubrics[rubric.rubric_id] = rubric
  if not rubrics:
    raise ValueError(f"{kind.lower()} metrics need rubrics: add 'rubrics' to the criterion or to the expected turns.")
  return list(rubrics.values())


def majority(samples: list[list[RubricScore]], rubrics: list[Rubric]) -> list[RubricScore]:
  """Each rubric's majority verdict over the samples (a tie is a no; None when no sample gave a verdict)."""
  out = []
  for rubric in rubrics:
    votes = [s for sample in samples for s in sample if s.rubric_id == rubric.rubric_id]
    yes = [s for s in votes if s.score == 1.0]
    no = [s for s in votes if s.score == 0.0]
    if yes or no:
      out.append(yes[0] if len(yes) > len(no) else no[0])
    elif votes:
      out.append(votes[0])
  return out


def _score_sample(text: str, rubrics: list[Rubric]) -> list[RubricScore]:
  by_id = {r.rubric_id: r for r in rubrics}
  by_text = {_norm(r.rubric_content.text_property): r for r in rubrics}
  scores = []
  for rubric_id, prop, rationale, score in parse_rubric_reply(text):
    rubric = by_id.get(rubric_id or "") or by_text.get(_norm(prop))
    if rubric is not None:
      scores.append(RubricScore(rubric_id=rubric.rubric_id, rationale=rationale, score=score))
  return scores


async def _rubric_metric(metric: EvalMetric, actual: list[Invocation], expected: Optional[list[Invocation]],
                         judge_model: Any, kind: str) -> EvaluationResult:
  from .metrics import _ask_judge, resolve_judge

  crit = _criterion(metric)
  model = resolve_judge(judge_model, crit)
  options = crit.judge_model_options
  threshold = metric_threshold(metric)
  results, turn_scores = [], []
  for i, a in enumerate(actual):
    e = expected[i] if expected and i < len(expected) else None
    rubrics = _rubrics_for(crit, e, kind)
    listed = "\n".join(f"ID: {r.rubric_id}\nProperty: {r.rubric_content.text_property}" for r in rubrics)
    if kind == "FINAL_RESPONSE_QUALITY":
      subject, shown = "final answer", f"Agent's answer:\n{content_text(a.final_response)}"
    else:
      subject, shown = "use of tools", f"Agent's tool calls and their results, in order:\n{_tool_use(a)}"
    prompt = RUBRIC_PROMPT.format(subject=subject, prompt=content_text(a.user_content), shown=shown, rubrics=listed)
    replies = await asyncio.gather(*[_ask_judge(model, prompt, options.judge_model_config)
                                     for _ in range(options.num_samples)])
    voted = majority([_score_sample(r, rubrics) for r in replies], rubrics)
    counted = [s.score for s in voted if s.score is not None]
    score = sum(counted) / len(counted) if counted else None
    if score is not None:
      turn_scores.append(score)
    results.append(PerInvocationResult(
        actual_invocation=a, expected_invocation=e, score=score, eval_status=status_of(score, threshold),
        details={"rubric_scores": [s.model_dump(mode="json") for s in voted],
                 "rationale": "; ".join(f"{s.rubric_id}: {s.rationale}" for s in voted if s.rationale)}))
  overall = sum(turn_scores) / len(turn_scores) if turn_scores else None
  return EvaluationResult(overall_score=overall, overall_eval_status=status_of(overall, threshold),
                          per_invocation_results=results)


async def rubric_based_final_response_quality_v1(metric: EvalMetric, actual: list[Invocation],
                                                 expected: Optional[list[Invocation]], *,
                                                 judge_model: Any = None) -> EvaluationResult:
  """Share of the rubrics a judge model finds met by each final answer (majority over `num_samples`)."""
  return await _rubric_metric(metric, actual, expected, judge_model, "FINAL_RESPONSE_QUALITY")


async def rubric_based_tool_use_quality_v1(metric: EvalMetric, actual: list[Invocation],
                                           expected: Optional[list[Invocation]], *,
                                           judge_model: Any = None) -> EvaluationResult:
  """Share of the rubrics a judge model finds met by each turn's tool calls (majority over `num_samples`)."""
  return await _rubric_metric(metric, actual, expected, judge_model, "TOOL_USE_QUALITY")


rubric_based_final_response_quality_v1.needs_judge = True  # type: ignore[attr-defined]
rubric_based_tool_use_quality_v1.needs_judge = True  # type: ignore[attr-defined]
