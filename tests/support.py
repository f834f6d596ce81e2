"""Small helpers several test folders share (fixtures live in conftest.py; model and tool helpers in adk_nb.testing)."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
  """A TCP port on 127.0.0.1 that was free a moment ago (for a server a test starts)."""
  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


def adk_python(probe: str = "google.adk") -> str | None:
  """The interpreter of the google-adk control environment (`$ADK_NB_DIFF_ADK_PYTHON`, else bench/.venv-adk)
  when it can import `probe`; None when there is none (differential tests then skip, saying so)."""
  for python in (os.environ.get("ADK_NB_DIFF_ADK_PYTHON"), str(REPO_ROOT / "bench" / ".venv-adk" / "bin" / "python")):
    if python and os.path.exists(python) and subprocess.run(
        [python, "-c", f"import {probe}"], capture_output=True, timeout=120).returncode == 0:
      return python
  return None
