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


def forecaster(runs: list):
  """(agent, model): a scripted agent that calls `lookup(city='Paris')` (the tool appends the city to `runs` and
  answers 21) and then says 'Paris: 21 degrees'; a message starting 'and now' is answered 'ok'."""
  from adk_nb import Agent
  from adk_nb.models import ScriptedModel, call

  def lookup(city: str) -> dict:
    """Weather for a city."""
    runs.append(city)
    return {"city": city, "temp": 21}

  def script(request):
    last = request.contents[-1].parts[-1]
    if last.function_response:
      answer = last.function_response.response
      return f"{answer['city']}: {answer['temp']} degrees"
    if last.text and last.text.startswith("and now"):
      return "ok"
    return call("lookup", city="Paris")

  model = ScriptedModel(script)
  return Agent(name="forecaster", model=model, tools=[lookup]), model


def function_calls(events) -> list:
  """Every function call in `events`, in order: pick a call by what it is, not by its event's position (a
  state-only or checkpoint event between them would shift the position, not this list)."""
  return [c for event in events for c in event.get_function_calls()]


def function_responses(events) -> list:
  """Every function response in `events`, in order (see function_calls)."""
  return [r for event in events for r in event.get_function_responses()]


def last_text(events) -> str:
  """The text of the last event that has any (the run's answer): a trailing state-only or checkpoint event
  does not move it, as it would move `events[-1]`. '' when no event has text."""
  for event in reversed(events):
    if event.text:
      return event.text
  return ""
