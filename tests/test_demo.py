"""The terminal demo runs offline, says its model is scripted, and asks before refunding."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(tmp_path, *args):
  env = {k: v for k, v in os.environ.items() if k not in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "ADK_NB_APPROVE")}
  env["PYTHONPATH"] = str(ROOT)
  return subprocess.run([sys.executable, "-m", "adk_nb.demo", *args], cwd=tmp_path, env=env,
                        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def test_demo_runs_offline_on_sqlite_and_honours_the_approval(tmp_path):
  out = _run(tmp_path, "--approve", "auto")
  assert out.returncode == 0, out.stderr
  assert "ScriptedModel" in out.stdout and "not a real model" in out.stdout
  assert "[tool] lookup_order(order_id='B200')" in out.stdout
  assert "is an espresso machine" in out.stdout
  assert "Done: 349.00 was refunded" in out.stdout
  assert (tmp_path / ".adk_nb" / "demo.db").exists()
  denied = _run(tmp_path, "--approve", "deny", "--store", "memory://")
  assert denied.returncode == 0, denied.stderr
  assert "not approved" in denied.stdout and "Done:" not in denied.stdout


def test_ask_with_no_terminal_fails_closed(tmp_path):
  out = _run(tmp_path, "--store", "memory://")  # default policy 'ask', stdin is not a terminal
  assert out.returncode == 0, out.stderr
  assert "(--approve ask: no terminal to ask)" in out.stdout
  assert "not approved" in out.stdout and "Done:" not in out.stdout


def test_the_demo_speaks_the_notebook_approval_vocabulary(tmp_path):
  out = _run(tmp_path, "--approve", "yes", "--store", "memory://")
  assert out.returncode == 2 and "invalid choice: 'yes'" in out.stderr and "'auto'" in out.stderr
