"""Eval set, legacy test file and test_config formats; malformed files name the file, case and field."""

import json

import pytest

from adk_nb.evaluation import (EvalConfig, EvalFileError, ToolTrajectoryCriterion, load_eval_config,
                               load_eval_set, save_eval_set)
from adk_nb.evaluation.eval_case import get_all_tool_calls


def write(path, data):
  path.write_text(json.dumps(data) if not isinstance(data, str) else data)
  return path


def test_evalset_roundtrip_and_camel_case(tmp_path, make_weather_set):
  path = save_eval_set(make_weather_set(), tmp_path / "w.evalset.json")
  data = json.loads(path.read_text())
  assert data["eval_set_id"] == "weather" and "eval_cases" in data  # ADK writes snake_case
  again = load_eval_set(path)
  assert again == make_weather_set()
  camel = write(tmp_path / "c.evalset.json", {"evalSetId": "c", "evalCases": [{
      "evalId": "one", "sessionInput": {"appName": "a", "userId": "u", "state": {"k": 1}},
      "conversation": [{"invocationId": "i", "userContent": {"role": "user", "parts": [{"text": "hi"}]},
                        "finalResponse": {"parts": [{"text": "yo"}]},
                        "intermediateData": {"toolUses": [{"name": "f", "args": {"x": 1}}]}}]}]})
  es = load_eval_set(camel)
  case = es.eval_cases[0]
  assert (es.eval_set_id, case.eval_id, case.session_input.state) == ("c", "one", {"k": 1})
  assert get_all_tool_calls(case.conversation[0].intermediate_data)[0].args == {"x": 1}


def test_adk_written_eval_set_with_invocation_events_loads(tmp_path):
  # the shape ADK writes for recorded sessions: intermediate_data.invocation_events
  path = write(tmp_path / "adk.evalset.json", {"eval_set_id": "s", "name": "s", "eval_cases": [{
      "eval_id": "e", "conversation": [{"invocation_id": "x", "user_content": {"parts": [{"text": "hi"}], "role": "user"},
      "final_response": {"parts": [{"text": "done"}], "role": "model"}, "intermediate_data": {"invocation_events": [
          {"author": "a", "content": {"parts": [{"function_call": {"name": "f", "args": {}}}], "role": "model"}}]},
      "creation_timestamp": 1.0}], "session_input": {"app_name": "a", "user_id": "u", "state": {}},
      "creation_timestamp": 1.0}], "creation_timestamp": 1.0})
  case = load_eval_set(path).eval_cases[0]
  assert [c.name for c in get_all_tool_calls(case.conversation[0].intermediate_data)] == ["f"]


def test_legacy_test_json_becomes_one_multi_turn_case(tmp_path):
  path = write(tmp_path / "dice.test.json", [
      {"query": "What can you do?", "expected_tool_use": [], "reference": "I roll dice."},
      {"query": "Roll a 17 sided dice twice", "expected_tool_use": [
          {"tool_name": "roll_die", "tool_input": {"sides": 17}},
          {"tool_name": "roll_die", "tool_input": {"sides": 17}}],
       "expected_intermediate_agent_responses": [{"author": "sub", "text": "rolling"}],
       "reference": "13 and 4."}])
  es = load_eval_set(path, initial_session={"state": {"x": 1}, "app_name": "dice", "user_id": "me"})
  (case,) = es.eval_cases
  assert case.eval_id == str(path) and len(case.conversation) == 2
  second = case.conversation[1]
  assert [(c.name, c.args) for c in second.intermediate_data.tool_uses] == [("roll_die", {"sides": 17})] * 2
  assert second.final_response.parts[0].text == "13 and 4."
  assert second.intermediate_data.intermediate_responses[0][0] == "sub"
  assert case.session_input.state == {"x": 1} and case.session_input.user_id == "me"


def test_test_config_number_and_object_forms(tmp_path):
  path = write(tmp_path / "test_config.json", {"criteria": {
      "tool_trajectory_avg_score": {"threshold": 0.9, "match_type": "ANY_ORDER", "ignore_args": True},
      "response_match_score": 0.6, "tool_trajectory_f1": 0.5}})
  metrics = {m.metric_name: m for m in load_eval_config(path).eval_metrics()}
  traj = metrics["tool_trajectory_avg_score"].criterion
  assert isinstance(traj, ToolTrajectoryCriterion)
  assert (traj.threshold, traj.match_type, traj.ignore_args) == (0.9, ToolTrajectoryCriterion.MatchType.ANY_ORDER, True)
  assert metrics["response_match_score"].criterion.threshold == 0.6
  assert isinstance(metrics["tool_trajectory_f1"].criterion, ToolTrajectoryCriterion)  # number form, typed
  camel = EvalConfig.model_validate({"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "matchType": 1}}})
  assert camel.eval_metrics()[0].criterion.match_type == ToolTrajectoryCriterion.MatchType.IN_ORDER
  assert load_eval_config(tmp_path / "missing.json").criteria == {"tool_trajectory_avg_score": 1.0,
                                                                   "response_match_score": 0.8}


@pytest.mark.parametrize("data,case,field,words", [
    ({"eval_set_id": "s", "eval_cases": [{"eval_id": "ok", "conversation": []},
                                         {"eval_id": "bad", "conversation": [{"final_response": {"parts": []}}]}]},
     "'bad' (eval_cases[1])", "conversation[0].user_content", "Field required"),
    ({"eval_set_id": "s", "eval_cases": [{"eval_id": "typo", "conversation": [
        {"user_content": {"parts": [{"text": "hi"}]}, "intermediate_data": {"tool_uses": [{"nme": "f"}]}}]}]},
     "'typo' (eval_cases[0])", "conversation[0].intermediate_data.tool_uses[0].nme", "Extra inputs"),
    ({"eval_set_id": "s", "eval_cases": [{"conversation": []}]}, "eval_cases[0]", "eval_id", "Field required"),
    ({"eval_set_id": "s", "eval_cases": [{"eval_id": "x"}]}, "'x' (eval_cases[0])", None, "exactly one of"),
    ({"eval_set_id": "s"}, None, "eval_cases", "eval_cases"),
])
def test_malformed_eval_set_names_file_case_and_field(tmp_path, data, case, field, words):
  path = write(tmp_path / "broken.evalset.json", data)
  with pytest.raises(EvalFileError) as info:
    load_eval_set(path)
  err = info.value
  assert err.path == str(path) and err.case == (f"{case}" if case else None) and err.field == field
  assert str(path) in str(err) and words in str(err)


def test_invalid_json_and_bad_legacy_and_bad_config(tmp_path):
  with pytest.raises(EvalFileError, match=r"not valid JSON.*line 1"):
    load_eval_set(write(tmp_path / "x.evalset.json", "{oops"))
  with pytest.raises(EvalFileError, match=r"\[1\]\.expected_tool_use\[0\]\.tool_name"):
    load_eval_set(write(tmp_path / "l.test.json", [{"query": "a"}, {"query": "b", "expected_tool_use": [{"x": 1}]}]))
  with pytest.raises(EvalFileError, match="criterion 'tool_trajectory_avg_score', field 'match_type'.*IN_ORDER"):
    load_eval_config(write(tmp_path / "test_config.json",
                           {"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "SIDEWAYS"}}}))
  with pytest.raises(EvalFileError, match="file not found"):
    load_eval_set(tmp_path / "nope.evalset.json")


def test_a_misspelt_key_in_test_config_is_named_not_ignored(tmp_path):
  """'criterias' used to load as a config with no criteria, so every case came out not evaluated."""
  with pytest.raises(EvalFileError, match=r"unknown key 'criterias'; a test config has \"criteria\""):
    load_eval_config(write(tmp_path / "test_config.json", {"criterias": {"response_match_score": 0.5}}))
  config = load_eval_config(write(tmp_path / "test_config.json", {
      "criteria": {"response_match_score": 0.5}, "customMetrics": {}, "user_simulator_config": {}}))
  assert config.criteria == {"response_match_score": 0.5}


def test_tool_call_helpers_refuse_unsupported_intermediate_data():
  from adk_nb.evaluation.eval_case import get_all_tool_calls, get_all_tool_responses

  for helper in (get_all_tool_calls, get_all_tool_responses):
    assert helper(None) == []
    with pytest.raises(ValueError, match="Unsupported type for intermediate_data"):
      helper({"tool_uses": []})
