"""A run as timeline bars: who did what when (agents, model calls, tool calls, human waits), one lane per agent.

Pure data from the step model; `LiveRun.timeline()` draws it with plotly. The live tree's timeline
tab draws the same steps from the nodes it already has, as a trace (one row per span, waits on a
person shortened); moving that computation here is REVIEW S5's open item.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional

from .builder import StepBuilder
from .step import LABELS

BAR_KINDS = ("agent", "sequential", "parallel", "loop", "workflow", "node", "model_call", "tool_call", "approval",
             "input_request")
"""The kinds of step drawn as bars (the rest are instants inside them)."""

LANE_KINDS = ("agent", "sequential", "parallel", "loop", "workflow", "node")
"""The kinds of step that give a timeline its rows (all runs of one workflow node share a row)."""


@dataclass(frozen=True)
class Bar:
  """One bar of the timeline."""

  lane: str
  """The agent (with its branch when inside a parallel agent): one row of the chart."""
  kind: str
  label: str
  """What the bar says: 'model scripted', 'tool refund(...)', 'human wait: approval for ...'."""
  start: float
  """Seconds since the run's first step."""
  end: float
  status: str
  running: bool
  """True when the step has not ended yet (drawn up to now)."""
  human: bool
  """True for a wait on a person (approvals, input requests)."""


def timeline_bars(steps: StepBuilder, now: Optional[float] = None) -> list[Bar]:
  """The bars of a run, in the order their steps began."""
  now = time.time() if now is None else now
  all_steps = steps.steps
  origin = min((s.t0 for s in all_steps.values() if s.t0 is not None), default=now)
  bars: list[Bar] = []
  for step in all_steps.values():
    if step.kind not in BAR_KINDS or step.t0 is None:
      continue
    lane = _lane(steps, step)
    running = step.t1 is None and step.status in ("running", "streaming", "pending", "needs approval", "")
    end = step.t1 if step.t1 is not None else (now if running else step.t0)
    human = step.kind in ("approval", "input_request")
    label = f"{'human wait: ' if human else ''}{LABELS.get(step.kind, step.kind)} {step.title}"
    bars.append(Bar(lane=lane, kind=step.kind, label=label, start=step.t0 - origin, end=end - origin,
                    status=step.status, running=running, human=human))
  return bars


def _lane(steps: StepBuilder, step) -> str:
  """The nearest agent (or workflow agent) at or above `step`, with its branch."""
  current = step
  while current is not None and current.kind not in LANE_KINDS:
    current = steps.steps.get(current.parent) if current.parent else None
  if current is None:
    return "run"
  if current.kind == "node":  # every run of a workflow node in one row: writer@1, writer@2 -> writer
    return current.title.rsplit("@", 1)[0]
  return f"{current.title} ({current.branch})" if "." in (current.branch or "") else current.title
