"""The workflow benchmark's adk_nb side runs all four scenarios (timings are never asserted)."""

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_workflow.py"


def test_the_adk_nb_side_runs_every_scenario():
  done = subprocess.run([sys.executable, str(BENCH), "--only", "adk_nb", "--n", "25", "--reps", "1", "--json"],
                        capture_output=True, text=True, timeout=600)
  assert done.returncode == 0, done.stderr[-3000:]
  figures = json.loads(done.stdout)["adk_nb"]
  assert figures["chain"]["events_per_run"] == 20
  assert figures["fan_out"]["events_per_run"] == 67
  assert figures["loop"]["events_per_run"] == 21
  assert set(figures["resume"]["resume_ms_after"]) == {"0", "10", "100", "1000", "10000"}
  assert set(figures["resume"]["resume_cpu_ms_after"]) == set(figures["resume"]["resume_ms_after"])
  assert "load_average_before" in figures and "load_average_after" in figures
