"""The README's `./dev` entry point: `./dev lab` starts JupyterLab as root too; `./dev` alone prints its help."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import suppress
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_dev_without_a_command_prints_only_the_help():
  out = subprocess.run(["bash", str(ROOT / "dev")], capture_output=True, text=True, timeout=30)
  assert out.returncode == 0
  lines = out.stdout.strip().splitlines()
  assert lines[0].startswith("adk_nb developer entry point")
  assert all(line.strip().startswith(("./dev", "adk_nb")) for line in lines), lines
  assert "set -euo" not in out.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="this case is about running as root (containers, CI)")
def test_dev_lab_starts_jupyterlab_as_root(tmp_path):
  pytest.importorskip("jupyterlab")
  token = secrets.token_hex(8)
  env = {**os.environ, "ADK_NB_VENV": sys.prefix, "HOME": str(tmp_path),
         "JUPYTER_CONFIG_DIR": str(tmp_path / "config"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
  # The port was free a moment ago; if another process takes it before JupyterLab binds it, start again.
  for attempt in range(3):
    with socket.socket() as s:
      s.bind(("127.0.0.1", 0))
      port = s.getsockname()[1]
    log_path = tmp_path / f"lab{attempt}.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(["bash", str(ROOT / "dev"), "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
                             f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
                             f"--IdentityProvider.token={token}", "--LabApp.news_url="],
                            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
      deadline = time.monotonic() + 120
      while True:
        try:
          with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2) as reply:
            assert reply.status == 200
            return
        except OSError:
          log.flush()
          if proc.poll() is not None or time.monotonic() > deadline:
            break
          time.sleep(0.3)  # polling the server's readiness
    finally:
      with suppress(ProcessLookupError):
        os.killpg(proc.pid, 15)
      proc.wait(timeout=30)
      log.close()
    if attempt == 2 or "already in use" not in log_path.read_text():
      pytest.fail(f"./dev lab did not start (exit {proc.poll()}):\n{log_path.read_text()[-3000:]}")


def _fake_venv(tmp_path: Path) -> Path:
  """A venv whose python and jupyter only write down how they were called."""
  venv = tmp_path / "venv"
  (venv / "bin").mkdir(parents=True)
  for tool in ("python", "jupyter"):
    script = venv / "bin" / tool
    script.write_text(f'#!/bin/sh\necho "{tool} $*" >> "{tmp_path}/calls"\n')
    script.chmod(0o755)
  return venv


def test_dev_lab_installs_what_the_tutorials_need_not_every_dev_extra(tmp_path):
  venv = _fake_venv(tmp_path)
  env = {**os.environ, "ADK_NB_VENV": str(venv)}
  done = subprocess.run(["bash", str(ROOT / "dev"), "lab", "--no-browser"], env=env, capture_output=True,
                        text=True, timeout=60)
  assert done.returncode == 0, done.stderr
  calls = (tmp_path / "calls").read_text().splitlines()
  installs = [c for c in calls if " install " in c and "-e" in c]
  assert installs == ["python -m pip install -q -e .[lab,mcp]"]  # not .[dev]: no ray, litellm, playwright
  assert calls[-1].startswith("jupyter lab --notebook-dir=")
  # Once installed it installs nothing again; a dev install (every extra) also serves the tutorials.
  (tmp_path / "calls").unlink()
  subprocess.run(["bash", str(ROOT / "dev"), "lab"], env=env, capture_output=True, text=True, timeout=60)
  assert [c for c in (tmp_path / "calls").read_text().splitlines() if "install" in c] == []
  (venv / ".adk_nb-installed-lab,mcp").unlink()
  (venv / ".adk_nb-installed").touch()
  (tmp_path / "calls").unlink()
  subprocess.run(["bash", str(ROOT / "dev"), "lab"], env=env, capture_output=True, text=True, timeout=60)
  assert [c for c in (tmp_path / "calls").read_text().splitlines() if "install" in c] == []
