"""Agent folders written by the tests, and a helper to run `adk-nb` in a real subprocess."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REFUND_AGENT = textwrap.dedent('''
    """A scripted refund desk (offline; nothing here is a real model)."""
    import os
    from adk_nb import Agent
    from adk_nb.models import ScriptedModel, call
    from adk_nb.tools import FunctionTool

    REFUNDS = []

    def refund(order_id: str, amount: float) -> dict:
      """Refunds an order; above 100 needs approval."""
      REFUNDS.append(order_id)
      with open(os.environ["REFUND_LOG"], "a") as f:
        f.write(order_id + "\\n")
      return {"refunded": amount, "order_id": order_id}

    def script(request):
      part = request.contents[-1].parts[-1]
      if part.function_response:
        r = part.function_response.response
        return "Refund done." if "refunded" in r else "Refund not approved."
      return call("refund", order_id="B200", amount=349.0)

    root_agent = Agent(name="desk", model=ScriptedModel(script),
                       tools=[FunctionTool(refund, require_confirmation=lambda amount, **_: amount > 100)])
''')


def write_agent(parent: Path, name: str, source: str, init: str = "from . import agent\n") -> Path:
  """Writes parent/name/{__init__.py, agent.py}; `init=None` leaves __init__.py out."""
  folder = parent / name
  folder.mkdir(parents=True)
  if init is not None:
    (folder / "__init__.py").write_text(init)
  (folder / "agent.py").write_text(source)
  return folder


@pytest.fixture
def refund_agent(tmp_path, monkeypatch):
  """An agent folder whose refund tool needs approval and logs each run to REFUND_LOG."""
  log = tmp_path / "refunds.log"
  log.write_text("")
  monkeypatch.setenv("REFUND_LOG", str(log))
  return write_agent(tmp_path / "agents", "desk_agent", REFUND_AGENT), log


def adk_nb(*args: str, cwd: Path, stdin: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
  """Runs `adk-nb ARGS` in a subprocess without a terminal (stdin is a pipe)."""
  return subprocess.run([sys.executable, "-m", "adk_nb.cli", *args], cwd=cwd, input=stdin, capture_output=True,
                        text=True, timeout=120, env={**os.environ, **(env or {})})
