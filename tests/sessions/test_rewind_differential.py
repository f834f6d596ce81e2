"""rewind_async matches google-adk 2.13 event for event (tests/differential/rewind_scenario.py on both)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support import adk_python as control_python

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = REPO_ROOT / "tests" / "differential" / "rewind_scenario.py"


def _trace(python: str, framework: str) -> dict:
  env = {**os.environ, "PYTHONWARNINGS": "ignore", "PYTHONPATH": str(REPO_ROOT)}
  done = subprocess.run([python, str(SCRIPT), "--framework", framework], capture_output=True, text=True,
                        cwd=REPO_ROOT, env=env, timeout=300)
  assert done.returncode == 0, f"{framework} failed:\n{done.stderr[-4000:]}"
  return json.loads(done.stdout)


def test_rewind_writes_what_google_adk_writes():
  adk_python = control_python("google.adk.sessions._rewind_utils")
  if adk_python is None:
    pytest.skip("google-adk 2.13 is not importable from $ADK_NB_DIFF_ADK_PYTHON or bench/.venv-adk")
  theirs, ours = _trace(adk_python, "google-adk"), _trace(sys.executable, "adk_nb")
  assert sum(e["rewind_before"] is not None for e in theirs["events"]) == 2  # the scenario rewound twice
  for key in ("events", "requests", "state", "artifacts", "error"):
    assert ours[key] == theirs[key], key
