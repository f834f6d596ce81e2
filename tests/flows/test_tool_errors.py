"""A tool's exception: its traceback is logged, kept on the error event, and shown in the step's details."""

from __future__ import annotations

import logging

import pytest

from adk_nb import Agent, InMemoryRunner
from adk_nb.errors import traceback_text
from adk_nb.events.protocol import error_traceback
from adk_nb.inspect.details import step_details
from adk_nb.inspect import StepBuilder
from adk_nb.testing import ScriptedModel, call, run_turn, session_of


def charge(card: str) -> dict:
  """Charges a card."""
  return _gateway(card)


def _gateway(card: str) -> dict:
  raise RuntimeError(f"gateway refused {card}")


async def test_an_unhandled_tool_exception_keeps_its_traceback_in_the_log_the_event_and_the_steps(caplog):
  runner = InMemoryRunner(Agent(name="till", model=ScriptedModel([call("charge", card="4242")]), tools=[charge]),
                          app_name="app")
  with caplog.at_level(logging.INFO, logger="adk_nb.tools"), pytest.raises(RuntimeError, match="gateway refused"):
    await run_turn(runner, "charge it")
  [record] = [r for r in caplog.records if r.name == "adk_nb.tools"]
  assert record.levelno == logging.ERROR and "Tool charge (call" in record.getMessage()
  assert record.exc_info[1].args == ("gateway refused 4242",)
  [failure] = [e for e in (await session_of(runner)).events if e.error_code]  # as stored
  kept = error_traceback(failure)
  assert kept.startswith("Traceback (most recent call last):")
  assert 'in charge\n    return _gateway(card)' in kept and 'in _gateway\n    raise RuntimeError' in kept
  assert kept.rstrip().endswith("RuntimeError: gateway refused 4242")
  steps = StepBuilder()
  for event in (await session_of(runner)).events:
    steps.add_event(event)
  [error] = [s for s in steps.steps.values() if s.kind == "error"]
  assert error.traceback == kept and error.as_node()["traceback"] == kept
  sections = step_details(error, (await session_of(runner)).events)["sections"]
  assert sections[0] == {"title": "traceback", "text": kept, "cut": 0}


def test_the_static_tree_folds_a_traceback_and_escapes_it():
  from adk_nb.notebook._static import tree_html

  node = {"id": "s1", "parent": None, "kind": "error", "title": "error RuntimeError", "text": "boom",
          "status": "error", "traceback": 'Traceback ...\nRuntimeError: <img src=x onerror="alert(1)">\n'}
  html = tree_html([node])
  assert "<details><summary>traceback</summary><pre>Traceback ...\nRuntimeError: &lt;img" in html
  assert "<img" not in html


async def test_a_tool_exception_an_error_callback_answers_is_logged_without_failing(caplog):
  def answer_for_it(tool, args, tool_context, error):
    return {"error": f"{type(error).__name__}: {error}"}

  model = ScriptedModel([call("charge", card="4242"), "The gateway refused the card."])
  agent = Agent(name="till", model=model, tools=[charge], on_tool_error_callback=answer_for_it)
  with caplog.at_level(logging.INFO, logger="adk_nb.tools"):
    events = await run_turn(InMemoryRunner(agent, app_name="app"), "charge it")
  [record] = [r for r in caplog.records if r.name == "adk_nb.tools"]
  assert record.levelno == logging.INFO and "an error callback answered for it" in record.getMessage()
  assert record.exc_info is not None and not any(e.error_code for e in events)


def test_a_deep_traceback_keeps_its_innermost_frames_within_the_limit():
  def ping(n: int) -> None:
    if n == 0:
      raise ValueError("bottom")
    pong(n - 1)

  def pong(n: int) -> None:  # alternating frames: Python does not fold them as repeats
    ping(n)

  with pytest.raises(ValueError) as caught:
    ping(300)
  text = traceback_text(caught.value, limit=2_000)
  assert len(text) <= 2_100 and text.startswith("[") and "characters of outer frames cut]" in text
  assert text.rstrip().endswith("ValueError: bottom") and 'raise ValueError("bottom")' in text
