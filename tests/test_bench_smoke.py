"""The benchmark's adk_nb side runs every workload to the end in --quick mode (timings are never asserted)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
WORKLOADS_PY = REPO_ROOT / "bench" / "workloads.py"


def _run(workload: str, n: int) -> dict:
  done = subprocess.run(
      [sys.executable, str(WORKLOADS_PY), "--framework", "adk_nb", "--workload", workload, "--n", str(n), "--quick"],
      capture_output=True, text=True, cwd=REPO_ROOT, timeout=120,
  )
  assert done.returncode == 0, done.stderr[-4000:]
  return json.loads(done.stdout.strip().splitlines()[-1])


def _is_time(value) -> bool:
  return isinstance(value, float) and math.isfinite(value) and value > 0


@pytest.mark.parametrize("workload, events_per_run", [("tool_turns", 3), ("tool_turns_on_loop", 3),
                                                     ("sequential_runs", 3)])
def test_history_workloads_report_each_checkpoint(workload, events_per_run):
  result = _run(workload, 20)
  assert result["runs"] == 20
  assert set(result["ms_at"]) == {"5", "10", "20"}
  assert all(_is_time(ms) for ms in result["ms_at"].values())
  # The agents did the work: call, tool response, answer / three answers (plus, on adk_nb,
  # the user's message, which its Runner yields too).
  assert result["events_per_run"] in (events_per_run, events_per_run + 1)
  assert result["peak_rss_mb"] >= result["rss_after_import_mb"] > 0


def test_parallel_workload_reports_a_median():
  result = _run("parallel_runs", 2)
  assert result["runs"] == 2
  assert _is_time(result["median_ms"])
  assert result["events_per_run"] in (8, 9)  # one answer per child (+ the user's message on adk_nb)


def test_the_server_bench_runs_adk_nb_on_sqlite(tmp_path):
  out = tmp_path / "server.json"
  done = subprocess.run([sys.executable, str(REPO_ROOT / "bench" / "bench_server.py"), "--only", "adk_nb",
                         "--replicas", "", "--requests", "12", "--concurrency", "2", "--turns", "3", "--json", str(out)],
                        capture_output=True, text=True, cwd=REPO_ROOT, timeout=300)
  assert done.returncode == 0, done.stderr[-4000:]
  (result,) = json.loads(out.read_text())["results"]
  assert (result["framework"], result["store"], result["replicas"]) == ("adk_nb", "sqlite", 1)
  assert result["requests"] == 12 and result["failures"] == 0  # every /run answered 200 with the scripted answer
  assert _is_time(result["rps"]) and _is_time(result["p95_ms"])


def test_the_surface_check_finds_and_fixes_a_drifted_readme_table():
  sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
  import adk_surface

  table = {
      "adk_nb.a": {"has": ["X"], "lacks": ["Y"], "module_missing": False},
      "adk_nb.b": {"has": ["Z"], "lacks": [], "module_missing": False},
      "adk_nb.c": {"has": [], "lacks": ["W"], "module_missing": True},
      "adk_nb.d": {"has": [], "lacks": ["V"], "module_missing": False},
  }
  readme = "\n".join([
      "| `google.adk.a` | `X`, `Y` | planned: issue 9 |",   # X arrived
      "| `google.adk.b` | whole module (1 names) | planned |",  # the whole module arrived
      "| `google.adk.c` | whole module (1 names) | absent: why |",  # in step
  ])
  assert adk_surface.readme_drift(table, readme) == [
      "google.adk.a: row lists X, which adk_nb now has",
      "google.adk.b: row says the whole module; adk_nb has it, lacking nothing",
      "google.adk.d: lacks V but has no row",
  ]
  fixed = adk_surface.fix_readme(table, readme)
  assert fixed.split("\n") == ["| `google.adk.a` | `Y` | planned: issue 9 |",
                               "| `google.adk.c` | whole module (1 names) | absent: why |"]
  assert adk_surface.readme_drift(table, fixed) == ["google.adk.d: lacks V but has no row"]
