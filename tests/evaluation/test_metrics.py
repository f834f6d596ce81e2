"""Each metric against hand-computed values, ADK's documented examples, every match type."""

import pytest
from google.genai import types

from adk_nb.evaluation import (EvalMetric, EvalStatus, EvaluationResult, IntermediateData, Invocation,
                               JudgeModelOptions, LlmAsAJudgeCriterion, ToolTrajectoryCriterion)
from adk_nb.evaluation.metrics import (final_response_match_v2, lcs_length, parse_verdict, response_match_score,
                                       run_metric, tool_trajectory_avg_score, tool_trajectory_f1,
                                       tool_trajectory_precision, tool_trajectory_recall, trajectory_match,
                                       trajectory_prf)
from adk_nb.models import ScriptedModel

EXACT, IN_ORDER, ANY_ORDER = (ToolTrajectoryCriterion.MatchType.EXACT, ToolTrajectoryCriterion.MatchType.IN_ORDER,
                              ToolTrajectoryCriterion.MatchType.ANY_ORDER)


def calls(*names):
  return [types.FunctionCall(name=n, args={"q": n}) for n in names]


def inv(tools=(), answer="", query="q"):
  return Invocation(user_content=types.Content(role="user", parts=[types.Part(text=query)]),
                    final_response=types.Content(role="model", parts=[types.Part(text=answer)]),
                    intermediate_data=IntermediateData(tool_uses=list(tools)))


# ADK's documented examples (ToolTrajectoryCriterion.MatchType docstrings).
def test_in_order_adk_examples():
  actual = calls("T1", "T1.1", "T2", "T2.1", "T2.2", "T3", "T3.1")
  assert trajectory_match(actual, calls("T1", "T2", "T3"), IN_ORDER)
  assert not trajectory_match(actual, calls("T1", "T2", "T3", "T4"), IN_ORDER)
  assert not trajectory_match(calls("T2", "T1", "T3"), calls("T1", "T2", "T3"), IN_ORDER)


def test_any_order_adk_examples():
  assert trajectory_match(calls("T2", "T2.1", "T1", "T1.1", "T1.2", "T3", "T3.1"), calls("T1", "T2", "T3"), ANY_ORDER)
  assert not trajectory_match(calls("T1", "T1.1", "T2", "T2.1", "T2.2", "T3", "T3.1"),
                              calls("T1", "T2", "T3", "T4"), ANY_ORDER)
  # each actual call satisfies one expected call only
  assert not trajectory_match(calls("T1"), calls("T1", "T1"), ANY_ORDER)


def test_exact_needs_same_calls_same_order_nothing_extra():
  assert trajectory_match(calls("a", "b"), calls("a", "b"), EXACT)
  assert not trajectory_match(calls("b", "a"), calls("a", "b"), EXACT)
  assert not trajectory_match(calls("a", "b", "c"), calls("a", "b"), EXACT)
  assert trajectory_match([], [], EXACT)
  for mt in (IN_ORDER, ANY_ORDER):
    assert trajectory_match(calls("x"), [], mt)  # nothing expected: anything goes
    assert not trajectory_match([], calls("x"), mt)


def test_ignore_args_compares_names_only():
  a = [types.FunctionCall(name="get", args={"city": "Rome"})]
  e = [types.FunctionCall(name="get", args={"city": "Roma"})]
  for mt in (EXACT, IN_ORDER, ANY_ORDER):
    assert not trajectory_match(a, e, mt)
    assert trajectory_match(a, e, mt, ignore_args=True)


def test_tool_trajectory_avg_score_averages_per_turn_matches():
  metric = EvalMetric(metric_name="tool_trajectory_avg_score", threshold=0.5,
                      criterion=ToolTrajectoryCriterion(threshold=0.5, match_type="IN_ORDER"))
  actual = [inv(calls("a", "x", "b")), inv(calls("c")), inv(calls("a")), inv([])]
  expected = [inv(calls("a", "b")), inv(calls("d")), inv(calls("a")), inv([])]
  result = tool_trajectory_avg_score(metric, actual, expected)
  assert [p.score for p in result.per_invocation_results] == [1.0, 0.0, 1.0, 1.0]
  assert result.overall_score == 0.75
  assert result.overall_eval_status == EvalStatus.PASSED
  assert [p.eval_status for p in result.per_invocation_results][1] == EvalStatus.FAILED


def test_lcs_precision_recall_f1_hand_computed():
  # actual a b c d, expected a c e: LCS = a c = 2; P = 2/4, R = 2/3, F1 = 2PR/(P+R) = 4/7
  assert lcs_length(calls("a", "b", "c", "d"), calls("a", "c", "e")) == 2
  p, r, f = trajectory_prf(calls("a", "b", "c", "d"), calls("a", "c", "e"))
  assert (p, r) == (0.5, pytest.approx(2 / 3))
  assert f == pytest.approx(4 / 7)
  assert trajectory_prf([], []) == (1.0, 1.0, 1.0)
  assert trajectory_prf(calls("a"), []) == (0.0, 1.0, 0.0)
  assert trajectory_prf([], calls("a")) == (0.0, 0.0, 0.0)
  assert trajectory_prf(calls("b", "a"), calls("a", "b"))[0] == 0.5  # order matters, unlike ANY_ORDER


def test_prf_metrics_average_over_turns():
  metric = EvalMetric(metric_name="tool_trajectory_f1", threshold=0.5)
  actual = [inv(calls("a", "b", "c", "d")), inv(calls("x"))]
  expected = [inv(calls("a", "c", "e")), inv(calls("x"))]
  assert tool_trajectory_precision(metric, actual, expected).overall_score == pytest.approx((0.5 + 1) / 2)
  assert tool_trajectory_recall(metric, actual, expected).overall_score == pytest.approx((2 / 3 + 1) / 2)
  assert tool_trajectory_f1(metric, actual, expected).overall_score == pytest.approx((4 / 7 + 1) / 2)


def test_response_match_score_is_mean_rouge1_f():
  metric = EvalMetric(metric_name="response_match_score", threshold=0.8)
  actual = [inv(answer="the quick brown fox"), inv(answer="running dogs")]
  expected = [inv(answer="the quick brown dog"), inv(answer="the dog runs")]
  result = response_match_score(metric, actual, expected)
  assert [p.score for p in result.per_invocation_results] == [pytest.approx(0.75), pytest.approx(0.8)]
  assert result.overall_score == pytest.approx(0.775)
  assert result.overall_eval_status == EvalStatus.FAILED


async def test_llm_judge_majority_of_samples_with_scripted_judge():
  judge = ScriptedModel([
      '{"reasoning": "same facts", "is_the_agent_response_valid": "valid"}',
      'is_the_agent_response_valid: invalid',
      'Verdict: valid',
      # second turn: no majority for valid
      '{"is_the_agent_response_valid": "invalid"}', "I cannot tell", '{"is_the_agent_response_valid": "valid"}',
  ])
  metric = EvalMetric(metric_name="final_response_match_v2", criterion=LlmAsAJudgeCriterion(
      threshold=0.5, judge_model_options=JudgeModelOptions(num_samples=3)))
  actual = [inv(answer="21 degrees in Paris", query="weather Paris?"), inv(answer="no idea")]
  expected = [inv(answer="It is 21 degrees in Paris."), inv(answer="It rains in Rome.")]
  result = await final_response_match_v2(metric, actual, expected, judge_model=judge)
  assert [p.score for p in result.per_invocation_results] == [1.0, 0.0]  # 2 of 3 valid; 1 of 2 parsed = tie
  assert result.overall_score == 0.5 and result.overall_eval_status == EvalStatus.PASSED
  assert result.per_invocation_results[0].details["verdicts"] == ["valid", "invalid", "valid"]
  judge.assert_complete()
  sent = judge.requests[0].contents[0].parts[0].text
  assert "weather Paris?" in sent and "It is 21 degrees in Paris." in sent and "21 degrees in Paris" in sent


def test_parse_verdict():
  assert parse_verdict('{"is_the_agent_response_valid": "valid"}') is True
  assert parse_verdict('"is_the_agent_response_valid":"INVALID"') is False
  assert parse_verdict("nothing here") is None


async def test_user_metric_plain_function_per_turn_sync_and_async():
  def polite(actual, expected):
    return "please" in actual.final_response.parts[0].text

  async def short(actual, expected):
    return 1.0 if len(actual.final_response.parts[0].text) < 12 else 0.0

  actual = [inv(answer="yes please"), inv(answer="no")]
  expected = [inv(), inv()]
  r1 = await run_metric(EvalMetric(metric_name="polite", threshold=0.5), polite, actual, expected)
  assert r1.overall_score == 0.5 and r1.overall_eval_status == EvalStatus.PASSED
  r2 = await run_metric(EvalMetric(metric_name="short"), short, actual, expected)
  assert r2.overall_score == 1.0 and r2.overall_eval_status == EvalStatus.INFORMATIONAL  # no threshold


async def test_adk_style_custom_metric_function():
  def count_turns(eval_metric, actual_invocations, expected_invocations, conversation_scenario):
    return EvaluationResult(overall_score=len(actual_invocations), overall_eval_status=EvalStatus.PASSED)

  result = await run_metric(EvalMetric(metric_name="turns", threshold=1), count_turns, [inv(), inv()], [inv(), inv()])
  assert result.overall_score == 2
