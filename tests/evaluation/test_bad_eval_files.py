"""Eval files that cannot be read give an EvalFileError naming the file and the fix."""

from __future__ import annotations

import json

import pytest

from adk_nb.evaluation import AgentEvaluator
from adk_nb.evaluation.formats import EvalFileError, load_eval_config, load_eval_set

GOOD = {"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": []}]}


def test_invalid_utf8_names_the_file_the_line_and_the_fix(tmp_path):
  path = tmp_path / "bad.evalset.json"
  path.write_bytes(b'{\n "eval_set_id": "caf\xe9"}')
  with pytest.raises(EvalFileError, match=r"bad\.evalset\.json.*not UTF-8 text: byte 0xe9 at line 2.*save the file as UTF-8"):
    load_eval_set(path)
  config = tmp_path / "test_config.json"
  config.write_bytes(b"\xff\xfe{}")
  with pytest.raises(EvalFileError, match="test_config.json.*not UTF-8"):
    load_eval_config(config)


def test_a_byte_order_mark_is_accepted(tmp_path):
  path = tmp_path / "bom.evalset.json"
  path.write_bytes(b"\xef\xbb\xbf" + json.dumps(GOOD).encode())
  assert [c.eval_id for c in load_eval_set(path).eval_cases] == ["c"]


def test_absurdly_deep_json_is_an_eval_file_error_not_a_recursion_error(tmp_path):
  path = tmp_path / "deep.evalset.json"
  path.write_text("[" * 100_000 + "]" * 100_000)
  with pytest.raises(EvalFileError, match=r"deep\.evalset\.json.*nested too deeply"):
    load_eval_set(path)


def test_a_folder_given_as_a_file_is_named(tmp_path):
  with pytest.raises(EvalFileError, match="cannot be read"):
    load_eval_set(tmp_path)


def test_an_unreadable_initial_session_file_names_its_path(tmp_path):
  old = tmp_path / "old.test.json"
  old.write_text(json.dumps([{"query": "hi", "expected_tool_use": [], "reference": "hello"}]))
  session = tmp_path / "session.json"
  session.write_bytes(b"{\"state\": \"\xff\"}")
  with pytest.raises(EvalFileError, match=r"session\.json.*not UTF-8"):
    AgentEvaluator.migrate_eval_data_to_new_schema(str(old), str(tmp_path / "new.evalset.json"), str(session))
