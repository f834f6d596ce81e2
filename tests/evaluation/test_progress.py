"""What a user sees of an eval run's progress: tqdm's bar or widget, or plain lines in logs."""

import io
import os

import pytest

from adk_nb.evaluation import evaluate
from adk_nb.evaluation._progress import make_progress

CRITERIA = {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}


def test_terminal_bar_shows_the_count_and_passed_failed_error():
  out = io.StringIO()
  bar = make_progress(4, "bar", label="weather", stream=out)
  for status in ("passed", "failed", "error"):
    bar.advance(status)
  bar.close()  # e.g. the run was interrupted: the last state is drawn
  last = out.getvalue().rstrip("\n").split("\r")[-1]
  assert last.startswith("weather:  75%|") and "3/4" in last
  assert "1 passed · 1 failed · 1 error" in last
  assert "\x1b[31m" in last  # the bar is red once a case run failed


def test_terminal_bar_stays_uncoloured_while_all_pass():
  out = io.StringIO()
  bar = make_progress(2, "bar", label="weather", stream=out)
  bar.advance("passed")
  bar.advance("passed")
  bar.close()
  last = out.getvalue().rstrip("\n").split("\r")[-1]
  assert "2/2" in last and "2 passed · 0 failed · 0 error" in last and "\x1b[" not in last


def test_terminal_bar_is_drawn_on_a_terminal_that_reports_no_width():
  if not hasattr(os, "openpty"):
    pytest.skip("needs a pseudo-terminal")
  main, side = os.openpty()  # a fresh pseudo-terminal reports 0 columns
  with os.fdopen(side, "w") as terminal:
    bar = make_progress(2, "bar", label="weather", stream=terminal)
    bar.advance("passed")
    bar.close()
  chunks = []
  while True:  # everything written, until the closed side reads as the end (EIO on Linux)
    try:
      chunk = os.read(main, 65536)
    except OSError:
      break
    if not chunk:
      break
    chunks.append(chunk)
  os.close(main)
  drawn = b"".join(chunks).decode()
  assert "1/2" in drawn and "1 passed · 0 failed · 0 error" in drawn


def test_text_mode_prints_one_readable_line_at_each_tenth():
  out = io.StringIO()
  bar = make_progress(20, "text", label="weather", stream=out)
  for i in range(20):
    bar.advance("failed" if i == 4 else "timeout" if i == 9 else "not_evaluated" if i == 19 else "passed")
  bar.close()
  lines = out.getvalue().splitlines()
  assert "\r" not in out.getvalue()
  assert [line.split()[2] for line in lines] == [f"{n}/20" for n in range(2, 21, 2)]
  assert lines[0].startswith("weather:  10% 2/20 [") and lines[0].endswith("2 passed · 0 failed · 0 error]")
  assert lines[-1].startswith("weather: 100% 20/20") and lines[-1].endswith(
      "17 passed · 1 failed · 1 error · 1 not evaluated]")


def test_text_mode_prints_the_last_count_when_a_run_stops_early():
  out = io.StringIO()
  bar = make_progress(40, "text", stream=out)
  for _ in range(5):
    bar.advance("passed")
  bar.close()
  assert [line.split()[2] for line in out.getvalue().splitlines()] == ["4/40", "5/40"]


def test_a_resumed_run_starts_at_the_case_runs_already_finished():
  out = io.StringIO()
  bar = make_progress(10, "bar", label="nightly", stream=out, finished={"passed": 5, "failed": 1, "error": 0})
  bar.close()
  assert "6/10" in out.getvalue() and "5 passed · 1 failed · 0 error" in out.getvalue()

  out = io.StringIO()
  lines = make_progress(10, "text", label="nightly", stream=out, finished={"passed": 6})
  lines.advance("passed")
  lines.close()
  assert len(out.getvalue().splitlines()) == 1  # 60% had been printed by the stopped run
  assert out.getvalue().startswith("nightly:  70% 7/10 [") and "7 passed" in out.getvalue()


def test_notebook_widget_counts_and_turns_red_on_a_failure():
  bar = make_progress(4, "widget", label="weather", finished={"passed": 1})
  _, widget, status = bar.bar.container.children
  assert widget.value == 1 and widget.max == 4 and widget.style.bar_color in (None, "")
  bar.advance("passed")
  bar.advance("failed")
  bar.close()
  assert widget.value == 3 and widget.style.bar_color == "red"
  text = status.value.replace("\u2007", " ")
  assert "3/4" in text and "2 passed · 1 failed · 0 error" in text


def test_progress_false_counts_without_showing_anything(capsys):
  bar = make_progress(3, False)
  bar.advance("passed")
  bar.close()
  assert bar.text().startswith("eval 1/3 · 1 passed · 0 failed · 0 error")
  assert capsys.readouterr() == ("", "")


def test_auto_mode_writes_lines_when_stderr_is_not_a_terminal():
  out = io.StringIO()  # a log file or CI: not a tty
  bar = make_progress(10, True, stream=out)
  for _ in range(10):
    bar.advance("passed")
  bar.close()
  assert len(out.getvalue().splitlines()) == 10 and "\r" not in out.getvalue()


async def test_evaluate_reports_progress_lines_in_a_log(make_weather_agent, make_weather_set, tmp_path, capsys):
  await evaluate(make_weather_agent(), make_weather_set(), CRITERIA, progress="text", results_dir=tmp_path)
  lines = capsys.readouterr().err.splitlines()
  assert lines[-1].startswith("weather: 100% 3/3 [") and "2 passed · 1 failed · 0 error" in lines[-1]
