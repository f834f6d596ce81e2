"""bench/adk_compat.py's samples census: a sample that hangs is killed with what it started, and counted as a hang."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _compat():
  spec = importlib.util.spec_from_file_location("adk_compat", REPO / "bench" / "adk_compat.py")
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def test_a_hanging_sample_is_a_hang_and_the_server_it_started_is_killed(tmp_path):
  compat = _compat()
  pid_file = tmp_path / "server.pid"
  sample = tmp_path / "samples" / "stuck"
  sample.mkdir(parents=True)
  (sample / "__init__.py").write_text("")
  # Starts a "server" that inherits stdout (as an MCP stdio server does), then never finishes importing.
  (sample / "agent.py").write_text(
      "import subprocess, sys, time\n"
      f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
      f"open({str(pid_file)!r}, 'w').write(str(p.pid))\n"
      "time.sleep(600)\n"
      "root_agent = None\n")
  [(label, root, module)] = compat.find_samples([str(tmp_path / "samples")])
  out = compat.probe_sample(sys.executable, "adk_nb", root, module, dict(os.environ), timeout=3)
  assert out["construct"]["error"] == compat.HANG and out["turn"] is None
  server = int(pid_file.read_text())
  try:
    os.kill(server, 0)
    alive = Path(f"/proc/{server}/status").read_text().find("State:\tZ") < 0
  except ProcessLookupError:
    alive = False
  assert not alive  # killed with the sample's process group, not left holding the pipe


def test_the_census_counts_hangs_apart_and_per_tree():
  compat = _compat()
  ok = {"construct": {"ok": True}, "turn": {"ok": True, "trace": [["a", "hi", [], []]]}}
  hang = {"construct": {"ok": True}, "turn": {"error": compat.HANG}}
  samples = [{"label": "v1:samples/a", "google-adk": ok, "adk_nb": ok},
             {"label": "v2:samples/b", "google-adk": hang, "adk_nb": ok},
             {"label": "v2:samples/c", "google-adk": {"construct": {"error": compat.HANG}}, "adk_nb": ok}]
  counts = compat.sample_counts(samples)
  assert (counts["counted"], counts["constructed"], counts["turned"], counts["same"]) == (2, 2, 1, 1)
  assert counts["hangs"] == {"google-adk": 2, "adk_nb": 0}
  assert compat.sample_counts(samples[1:])["hangs"]["google-adk"] == 2
