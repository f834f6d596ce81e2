"""diff_runs: two runs aligned step by step in a DataFrame; one-sided steps; what it accepts."""

from __future__ import annotations

import subprocess
import sys

import pytest
from google.genai import types

from adk_nb.events import Event
from adk_nb.inspect import diff_runs
from adk_nb.inspect.diff import COLUMNS


def say(author: str, text: str, inv: str = "inv") -> Event:
  return Event(invocation_id=inv, author=author,
               content=types.Content(role="user" if author == "user" else "model", parts=[types.Part(text=text)]))


def test_a_step_only_one_run_has_stands_alone_and_the_rest_still_lines_up():
  a = [say("user", "hi"), say("bot", "hello"), say("user", "bye", "inv2"), say("bot", "see you", "inv2")]
  b = [say("user", "hi"), say("bot", "hello"), say("bot", "anything else?"), say("user", "bye", "inv2"),
       say("bot", "see you", "inv2")]
  frame = diff_runs(a, b)
  assert list(frame.columns) == COLUMNS
  assert list(zip(frame.a, frame.b, frame.same)) == [
      ("hi", "hi", True), ("hello", "hello", True), ("", "anything else?", False), ("bye", "bye", True),
      ("see you", "see you", True)]
  assert list(frame.step) == [0, 1, 2, 3, 4]


def test_long_texts_differing_only_at_the_end_are_not_the_same():
  head = "x" * 2000
  frame = diff_runs([say("bot", head + "a")], [say("bot", head + "b")])
  assert list(frame.same) == [False]


def test_anything_but_runs_is_refused_with_what_is_accepted():
  with pytest.raises(TypeError, match="list of Events, a Session or a LiveRun"):
    diff_runs("run one", [])


def test_importing_the_diff_module_does_not_import_pandas():
  code = "import sys, adk_nb.inspect.diff; print('pandas' in sys.modules)"
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
  assert out.stdout.strip() == "False"


def test_the_diff_view_marks_differences_in_words_and_escapes_what_runs_said():
  from adk_nb.notebook import diff_view

  view = diff_view([say("user", "hi"), say("bot", "<img src=x onerror=alert(1)>")],
                   [say("user", "hi"), say("bot", "fine")], "original", "fork")
  html = view._repr_html_()
  assert "First divergence at step 1." in html and "≠" in html and "(first divergence)" in html
  assert "<img" not in html and "&lt;img" in html and "<th>original</th>" in html
  assert view.frame.same.tolist() == [True, False]
