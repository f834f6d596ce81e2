"""per_turn_user_simulator_quality_v1: does the simulated user stick to its scenario, turn by turn?

As in google-adk: the first user message must be the scenario's starting prompt, word for word (1 or 0, no
judge). Each later user message goes to a judge model with the plan, the dialogue before it and the persona
if any; `num_samples` verdicts per message, the majority wins and a tie fails. Last, the judge is asked
whether saying the stop signal right after the final turn was right; if not, the last turn's result is
replaced by that failing verdict (a conversation cut off by the turn cap is judged this way too). The score
is the share of turns that passed. The metric needs a conversation scenario: on a case with fixed turns it
raises, and the case reports it as not evaluated. The judge prompt is adk_nb's own.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any, ClassVar, Optional

from google.genai import types
from pydantic import ValidationError

from ..conversation_scenarios import ConversationScenario
from ..eval_case import Invocation
from ..eval_metrics import EvalMetric, EvalStatus, LlmBackedUserSimulatorCriterion
from ..evaluator import EvaluationResult, Evaluator, PerInvocationResult
from ..llm_as_judge import AutoRaterScore
from ..llm_as_judge_utils import Label, get_eval_status, get_text_from_content
from .per_turn_user_simulator_quality_prompts import get_per_turn_user_simulator_quality_prompt

# The value of "is_valid" in the judge's JSON, quoted or not, possibly in a list; up to the next , ] } or newline.
_IS_VALID = re.compile(r'"is_valid"\s*:\s*\[?\s*"?([^",\]\}\n]*)"?\s*\]?\s*[,\n\}]')
_INVALID = {Label.INVALID.value, Label.ALMOST.value, Label.FALSE.value, *Label.PARTIALLY_VALID.value}
_VALID = {Label.VALID.value, Label.TRUE.value}


def _parse_llm_response(response: str) -> Label:
  """VALID, INVALID or NOT_FOUND from the judge's reply ("is_valid": true / "valid" / "partially" ...)."""
  match = _IS_VALID.search(response or "")
  if match is None:
    return Label.NOT_FOUND
  label = match.group(1).strip().lower()
  if label in _INVALID:
    return Label.INVALID
  if label in _VALID:
    return Label.VALID
  return Label.NOT_FOUND


def _failed_reasons(response: str) -> Optional[str]:
  """The reasoning of the criteria the judge marked as not passing, joined; None when it gave none."""
  start, end = (response or "").find("{"), (response or "").rfind("}")
  try:
    verdict = json.loads(response[start:end + 1]) if start >= 0 else None
  except ValueError:
    return None
  criteria = verdict.get("criteria") if isinstance(verdict, dict) else None
  reasons = [f"{c.get('name')}: {c.get('reasoning')}" for c in criteria or []
             if isinstance(c, dict) and c.get("passes") is False and c.get("reasoning")]
  return "; ".join(reasons) or None


def _format_conversation_history(invocations: list[Invocation]) -> str:
  """The turns as 'user: ...' and '<role>: ...' paragraphs (turns without text left out)."""
  lines = []
  for invocation in invocations:
    if invocation.user_content is not None and invocation.user_content.parts:
      lines.append(f"user: {get_text_from_content(invocation.user_content)}")
    if invocation.final_response is not None:
      lines.append(f"{invocation.final_response.role}: {get_text_from_content(invocation.final_response)}")
  return "\n\n".join(lines)


def _get_stop_signal_invocation(stop_signal: str) -> Invocation:
  """A stand-in turn whose user message is the stop signal, to ask whether ending there was right."""
  return Invocation(invocation_id="stop_signal_proxy_invocation",
                    user_content=types.Content(parts=[types.Part(text=stop_signal)]))


class PerTurnUserSimulatorQualityV1(Evaluator):
  """Scores how faithfully a simulated user followed its conversation scenario (see the module docstring).

  Args:
    eval_metric: the metric, whose criterion is (or converts to) an LlmBackedUserSimulatorCriterion.
    judge_model: adk_nb only: the judge model object (e.g. a ScriptedModel); by default the criterion's
      `judge_model_options.judge_model` name goes through the model registry when first needed.
  """

  criterion_type: ClassVar[type[LlmBackedUserSimulatorCriterion]] = LlmBackedUserSimulatorCriterion

  def __init__(self, eval_metric: EvalMetric, *, judge_model: Any = None):
    self._eval_metric = eval_metric
    self._criterion = self._deserialize_criterion(eval_metric)
    self._llm_options = self._criterion.judge_model_options
    self._llm_config = self._llm_options.judge_model_config or types.GenerateContentConfig()
    self._stop_signal = self._criterion.stop_signal
    self._judge = judge_model if judge_model is not None and not isinstance(judge_model, str) else None
    self._judge_name = judge_model if isinstance(judge_model, str) else self._llm_options.judge_model

  def _deserialize_criterion(self, eval_metric: EvalMetric) -> LlmBackedUserSimulatorCriterion:
    error = ValueError(f"`{eval_metric.metric_name}` metric expects a criterion of type `{self.criterion_type}`.")
    if eval_metric.criterion is None:
      if eval_metric.threshold is None:
        raise error
      return self.criterion_type(threshold=eval_metric.threshold)
    if isinstance(eval_metric.criterion, self.criterion_type):
      return eval_metric.criterion
    try:
      return self.criterion_type.model_validate(eval_metric.criterion.model_dump())
    except ValidationError as exc:
      raise error from exc

  async def evaluate_invocations(self, actual_invocations: list[Invocation],
                                 expected_invocations: Optional[list[Invocation]] = None,
                                 conversation_scenario: Optional[ConversationScenario] = None) -> EvaluationResult:
    """Scores every user turn of `actual_invocations` against `conversation_scenario` (expected turns unused)."""
    del expected_invocations
    if conversation_scenario is None:
      raise ValueError("per_turn_user_simulator_quality_v1 judges a simulated user: the eval case needs a "
                       "conversation_scenario.")
    if not actual_invocations:
      return EvaluationResult()
    results = [self._evaluate_first_turn(actual_invocations[0], conversation_scenario)]
    for i in range(1, len(actual_invocations)):  # one turn at a time: at most num_samples judge calls at once
      results.append(await self._evaluate_intermediate_turn(
          invocation_at_step=actual_invocations[i], invocation_history=actual_invocations[:i],
          conversation_scenario=conversation_scenario))
    ending = await self._evaluate_stop_signal_turn(invocation_history=actual_invocations,
                                                   conversation_scenario=conversation_scenario)
    if ending.eval_status == EvalStatus.FAILED:  # ending there was wrong: the last turn is marked failed
      results[-1] = ending
    return self._aggregate_conversation_results(results)

  def _format_llm_prompt(self, invocation: Invocation, conversation_scenario: Optional[ConversationScenario],
                         previous_invocations: Optional[list[Invocation]]) -> str:
    if previous_invocations is None:
      raise ValueError("Judging a simulated user's turn needs the turns before it (previous_invocations); "
                       "got None. Pass [] for the first turn.")
    if conversation_scenario is None:
      raise ValueError("Judging a simulated user needs the case's conversation_scenario (its plan); the case "
                       "has none. Give the eval case a conversation_scenario.")
    return get_per_turn_user_simulator_quality_prompt(
        conversation_plan=conversation_scenario.conversation_plan,
        conversation_history=_format_conversation_history(previous_invocations),
        generated_user_response=get_text_from_content(invocation.user_content) or "",
        stop_signal=self._stop_signal, user_persona=conversation_scenario.user_persona)

  def _convert_llm_response_to_score(self, auto_rater_response: Any) -> AutoRaterScore:
    text = get_text_from_content(auto_rater_response.content)
    label = _parse_llm_response(text) if text else Label.NOT_FOUND
    if label == Label.VALID:
      return AutoRaterScore(score=1.0)
    if label == Label.INVALID:
      return AutoRaterScore(score=0.0, rationale=_failed_reasons(text))
    return AutoRaterScore()

  def _aggregate_samples(self, per_invocation_samples: list[PerInvocationResult]) -> PerInvocationResult:
    """The majority verdict among the samples (a tie fails); the first sample when none had a verdict."""
    if not per_invocation_samples:
      raise ValueError("No samples to aggregate into a result.")
    valid = [s for s in per_invocation_samples if s.score == 1.0]
    invalid = [s for s in per_invocation_samples if s.score == 0.0]
    if not valid and not invalid:
      return per_invocation_samples[0]
    return valid[0] if len(valid) > len(invalid) else invalid[0]

  def _aggregate_conversation_results(self, per_invocation_results: list[PerInvocationResult]) -> EvaluationResult:
    """The share of turns that passed, and PASSED when it reaches the threshold."""
    if not per_invocation_results:
      return EvaluationResult(per_invocation_results=per_invocation_results)
    passed = sum(r.score for r in per_invocation_results if r.eval_status == EvalStatus.PASSED and r.score is not None)
    score = passed / len(per_invocation_results)
    return EvaluationResult(overall_score=score, overall_eval_status=get_eval_status(score, self._criterion.threshold),
                            per_invocation_results=per_invocation_results)

  def _evaluate_first_turn(self, first_invocation: Invocation,
                           conversation_scenario: ConversationScenario) -> PerInvocationResult:
    text = get_text_from_content(first_invocation.user_content) if first_invocation.user_content else None
    if text is None:
      return PerInvocationResult(actual_invocation=first_invocation, eval_status=EvalStatus.NOT_EVALUATED)
    score = float(text.strip() == conversation_scenario.starting_prompt.strip())
    return PerInvocationResult(actual_invocation=first_invocation, score=score,
                               eval_status=get_eval_status(score, self._criterion.threshold))

  async def _evaluate_intermediate_turn(self, invocation_at_step: Invocation, invocation_history: list[Invocation],
                                        conversation_scenario: ConversationScenario) -> PerInvocationResult:
    from ...models.llm_request import LlmRequest

    prompt = self._format_llm_prompt(invocation=invocation_at_step, conversation_scenario=conversation_scenario,
                                     previous_invocations=invocation_history)
    request = LlmRequest(model=self._judge_name, config=self._llm_config.model_copy(),
                         contents=[types.Content(role="user", parts=[types.Part(text=prompt)])])
    scores = await asyncio.gather(*[self._sample_llm(request.model_copy(deep=True))
                                    for _ in range(self._llm_options.num_samples)])
    samples = [PerInvocationResult(actual_invocation=invocation_at_step, score=s.score,
                                   eval_status=get_eval_status(s.score, self._criterion.threshold)) for s in scores]
    if not samples:
      return PerInvocationResult(actual_invocation=invocation_at_step, eval_status=EvalStatus.NOT_EVALUATED)
    chosen = self._aggregate_samples(samples)
    chosen.details = {"verdicts": ["valid" if s.score == 1.0 else "invalid" if s.score == 0.0 else "none"
                                   for s in scores]}
    if chosen.score == 0.0:
      chosen.details["rationale"] = next((s.rationale for s in scores if s.score == 0.0 and s.rationale), None)
    return chosen

  async def _evaluate_stop_signal_turn(self, invocation_history: list[Invocation],
                                       conversation_scenario: ConversationScenario) -> PerInvocationResult:
    return await self._evaluate_intermediate_turn(invocation_at_step=_get_stop_signal_invocation(self._stop_signal),
                                                  invocation_history=invocation_history,
                                                  conversation_scenario=conversation_scenario)

  async def _sample_llm(self, llm_request: Any) -> AutoRaterScore:
    """One judge verdict on the request."""
    if self._judge is None:
      from ...models.registry import LLMRegistry

      self._judge = LLMRegistry.new_llm(self._judge_name)
    async for response in self._judge.generate_content_async(llm_request, stream=False):
      if response.content and not response.partial:
        return self._convert_llm_response_to_score(response)
    return AutoRaterScore()


async def per_turn_user_simulator_quality_v1(metric: EvalMetric, actual: list[Invocation],
                                             expected: Optional[list[Invocation]], *, judge_model: Any = None,
                                             conversation_scenario: Optional[ConversationScenario] = None
                                             ) -> EvaluationResult:
  """Share of a simulated user's turns a judge finds faithful to the scenario (first turn: the starting prompt)."""
  return await PerTurnUserSimulatorQualityV1(metric, judge_model=judge_model).evaluate_invocations(
      actual, expected, conversation_scenario)


per_turn_user_simulator_quality_v1.needs_judge = True  # type: ignore[attr-defined]
per_turn_user_simulator_quality_v1.needs_scenario = True  # type: ignore[attr-defined]

__all__ = ["PerTurnUserSimulatorQualityV1"]
