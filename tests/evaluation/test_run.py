"""Running eval sets: fresh seeded sessions, multi-turn, num_runs, bounded concurrency, timeouts, errors."""

import asyncio

import pytest

from adk_nb import Agent
from adk_nb.evaluation import EvalCase, EvalSet, EvalStatus, evaluate
from adk_nb.models import ScriptedModel, call

CRITERIA = {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}


async def test_cases_run_in_fresh_seeded_sessions_turn_by_turn(make_weather_agent, make_weather_set):
  results = await evaluate(make_weather_agent(), make_weather_set(), CRITERIA, progress=False, keep_sessions=True)
  cases = results.cases.set_index("eval_id")
  assert cases.loc["hello_then_paris", "status"] == "passed" and cases.loc["hello_then_paris", "turns"] == 2
  assert cases.loc["fahrenheit", "final_response"] == "It is 21 degrees F in Austin."  # state seeded from session_input
  assert cases.loc["rome_expected_roma", "status"] == "failed"
  assert cases.loc["rome_expected_roma", "tool_trajectory_avg_score"] == 0.0
  assert cases.loc["rome_expected_roma", "response_match_score"] == 1.0
  sessions = {r.eval_id: r.session_details for r in results.case_results}
  assert sessions["fahrenheit"].user_id == "u1" and sessions["hello_then_paris"].user_id == "test_user_id"
  assert len({s.id for s in sessions.values()}) == 3
  assert [e.author for e in sessions["hello_then_paris"].events][:2] == ["user", "weather"]
  assert not results.passed and results.counts()["passed"] == 2


async def test_sessions_are_dropped_after_each_case(make_weather_agent, make_weather_set):
  from adk_nb.runners import Runner
  from adk_nb.sessions import InMemorySessionService

  runner = Runner(agent=make_weather_agent(), app_name="w", session_service=InMemorySessionService())
  results = await evaluate(runner, make_weather_set(), CRITERIA, progress=False)
  assert results.case_results[0].session_details is None
  listed = await runner.session_service.list_sessions(app_name="w")
  assert listed.sessions == []


async def test_num_runs_repeats_every_case(make_weather_agent, make_weather_set):
  results = await evaluate(make_weather_agent(), make_weather_set(), CRITERIA, num_runs=3, progress=False)
  assert len(results.case_results) == 9
  assert sorted(results.cases["run"].unique()) == [0, 1, 2]
  assert results.runs["pass_rate"].tolist() == [pytest.approx(2 / 3)] * 3


async def test_concurrency_is_bounded(make_turn):
  active, peak = 0, 0

  async def slow_tool(n: int) -> int:
    """Counts how many cases are inside the tool at once."""
    nonlocal active, peak
    active += 1
    peak = max(peak, active)
    for _ in range(20):
      await asyncio.sleep(0)  # yield to the other cases (not a timing wait)
    active -= 1
    return n

  def script(request):
    part = request.contents[-1].parts[0]
    return "done" if part.function_response else call("slow_tool", n=1)

  agent = Agent(name="a", model=ScriptedModel(script), tools=[slow_tool])
  es = EvalSet(eval_set_id="c", eval_cases=[EvalCase(eval_id=f"c{i}", conversation=[
      make_turn("go", "done", [("slow_tool", {"n": 1})])]) for i in range(12)])
  results = await evaluate(agent, es, CRITERIA, concurrency=3, progress=False)
  assert results.passed
  assert 1 < peak <= 3


async def test_a_case_that_raises_or_hangs_never_stops_the_others(make_weather_agent, make_turn):
  never = asyncio.Event()

  async def wait_forever() -> str:
    """Never returns."""
    await never.wait()
    return "unreachable"

  weather = make_weather_agent()

  def script(request):
    part = request.contents[-1].parts[0]
    if part.text == "hang":
      return call("wait_forever")
    return weather.model._fn(request)

  agent = Agent(name="weather", model=ScriptedModel(script), tools=[*weather.tools, wait_forever])
  es = EvalSet(eval_set_id="mixed", eval_cases=[
      EvalCase(eval_id="boom", conversation=[make_turn("boom", "x")]),
      EvalCase(eval_id="hang", conversation=[make_turn("hang", "x")]),
      EvalCase(eval_id="scenario", conversation_scenario={"starting_prompt": "hi"}),
      EvalCase(eval_id="ok", conversation=[make_turn("weather Oslo", "It is 21 degrees C in Oslo.",
                                                     [("get_weather", {"city": "Oslo"})])]),
  ])
  # The limit is per case and counts while the others share the loop: 2 s leaves a loaded machine room to
  # finish the three that end by themselves (0.5 s did not always); only the hanging case ends by it.
  results = await evaluate(agent, es, CRITERIA, timeout=2, progress=False)
  by_id = {r.eval_id: r for r in results.case_results}
  assert by_id["ok"].final_eval_status == EvalStatus.PASSED
  assert by_id["boom"].error_type == "agent_error" and "the model exploded" in by_id["boom"].error_message
  assert by_id["hang"].error_type == "timeout" and by_id["hang"].final_eval_status == EvalStatus.FAILED
  # a scenario case without user_simulator_model asks the default simulator model, which tests never reach
  assert by_id["scenario"].error_type is not None and by_id["scenario"].final_eval_status == EvalStatus.FAILED
  status = results.cases.set_index("eval_id")["status"].to_dict()
  assert status == {"boom": "error", "hang": "timeout", "scenario": "error", "ok": "passed"}
  assert any("the model exploded" in line for line in results.failures())


async def test_a_metric_that_raises_is_not_evaluated_and_others_still_score(make_weather_agent, make_weather_set):
  def broken(actual, expected):
    raise ZeroDivisionError("oops")

  results = await evaluate(make_weather_agent(), make_weather_set(),
                           {"criteria": {"response_match_score": 0.8, "broken": 0.5}}, metrics={"broken": broken},
                           progress=False)
  first = results.case_results[0]
  statuses = {m.metric_name: m.eval_status for m in first.overall_eval_metric_results}
  assert statuses == {"response_match_score": EvalStatus.PASSED, "broken": EvalStatus.NOT_EVALUATED}
  assert "ZeroDivisionError" in first.overall_eval_metric_results[1].details.model_extra["error"]


async def test_user_metric_and_unknown_metric(make_weather_agent, make_weather_set):
  def mentions_degrees(actual, expected):
    return "degrees" in (actual.final_response.parts[0].text if actual.final_response else "")

  results = await evaluate(make_weather_agent(), make_weather_set(), {"criteria": {"mentions_degrees": 0.5}},
                           metrics=[mentions_degrees], progress=False)
  assert results.cases.set_index("eval_id")["mentions_degrees"].to_dict() == {
      "hello_then_paris": 0.5, "fahrenheit": 1.0, "rome_expected_roma": 1.0}
  with pytest.raises(ValueError, match="Unknown metric 'nope'.*metrics="):
    await evaluate(make_weather_agent(), make_weather_set(), {"criteria": {"nope": 1.0}}, progress=False)


async def test_judge_metric_runs_with_a_scripted_judge(make_weather_agent, make_weather_set):
  judge = ScriptedModel(lambda request: '{"is_the_agent_response_valid": "valid"}')
  config = {"criteria": {"final_response_match_v2": {"threshold": 1.0, "judge_model_options": {"num_samples": 1}}}}
  results = await evaluate(make_weather_agent(), make_weather_set(), config, judge_model=judge, progress=False)
  assert results.passed
  assert len(judge.requests) == 4  # one per turn


async def test_actual_turns_carry_the_invocation_id(make_weather_agent, make_weather_set):
  results = await evaluate(make_weather_agent(), make_weather_set(), CRITERIA, progress=False)
  ids = [t.actual_invocation.invocation_id for r in results.case_results for t in r.eval_metric_result_per_invocation]
  assert all(ids) and len(set(ids)) == len(ids)


async def test_metric_results_keep_the_configured_criterion_with_its_options(make_weather_agent, make_weather_set):
  """Each result carries the criterion as configured (type and options), one shared object, not a re-parsed copy."""
  config = {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER"},
                         "response_match_score": 0.8}}
  results = await evaluate(make_weather_agent(), make_weather_set(), config, progress=False)
  case = results.case_results[0]
  overall = {m.metric_name: m for m in case.overall_eval_metric_results}
  trajectory = overall["tool_trajectory_avg_score"].criterion
  assert type(trajectory).__name__ == "ToolTrajectoryCriterion"
  assert trajectory.match_type.name == "IN_ORDER" and trajectory.threshold == 1.0
  per_turn = [m.criterion for t in case.eval_metric_result_per_invocation for m in t.eval_metric_results
              if m.metric_name == "tool_trajectory_avg_score"]
  assert per_turn and all(c is trajectory for c in per_turn)
  dumped = overall["tool_trajectory_avg_score"].model_dump(mode="json", by_alias=True)
  assert dumped["criterion"] == {"threshold": 1.0, "matchType": 1, "ignoreArgs": False}


async def test_the_final_answer_is_not_repeated_in_the_intermediate_events(make_weather_agent, make_weather_set):
  """As ADK records a turn: the answer is on final_response only; its event stays (author, tokens) without content."""
  results = await evaluate(make_weather_agent(), make_weather_set(), CRITERIA, progress=False)
  paris = results.case_results[0].eval_metric_result_per_invocation[1].actual_invocation
  events = paris.intermediate_data.invocation_events
  assert paris.final_response.parts[0].text == "It is 21 degrees C in Paris."
  assert [bool(e.content and e.content.parts[0].function_call) for e in events] == [True, False, False]
  assert events[1].content.parts[0].function_response.name == "get_weather"
  assert events[-1].author == "weather" and events[-1].content is None
  texts = [p.text for e in events if e.content for p in e.content.parts if p.text]
  assert texts == []
