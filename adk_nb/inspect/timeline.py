"""A run as a trace: one row per span (invocation > agent > model call / tool call / human wait).

The one timeline model: `trace(steps)` computes every row (its depth, lane, label, start, end,
duration text, running or not, and where its bar sits on the drawn axis) in Python. The live tree's
timeline tab receives `Trace.as_message()` and only draws it; `LiveRun.timeline()` draws the same
rows with plotly. Waits on a person are drawn broken: together they take at most `WAIT_SHARE` of the
axis, so a long wait does not squash everything else (the duration text still gives its real length).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional, Union

from .step import GOING_ON, LABELS, Step

SPAN_KINDS = ("invocation", "agent", "sequential", "parallel", "loop", "workflow", "node", "model_call", "tool_call",
              "approval", "input_request")
"""The kinds of step drawn as a row with a bar (the rest are instants inside them)."""

LANE_KINDS = ("agent", "sequential", "parallel", "loop", "workflow", "node")
"""The kinds of step a row's lane is named after (all runs of one workflow node share a lane)."""

HUMAN_KINDS = ("approval", "input_request")
"""The kinds of step that are a wait on a person."""

RUNNING_STATUSES = ("running", "streaming", "pending", "needs approval", "")
"""Statuses of a step that has not ended while it has no end time. '' is a step whose status is not known
yet (a workflow's root step while it runs); once the run is over nothing is drawn as running."""

WAIT_SHARE = 0.1
"""The most of the drawn axis that waits on a person take together (they are drawn broken)."""


@dataclass(frozen=True)
class Span:
  """One row of the trace."""

  id: str
  """The step's id (the tree's node id)."""
  kind: str
  depth: int
  """How many spans enclose it (invocation 0, agent 1, model call 2, ...)."""
  lane: str
  """The agent (with its branch inside a parallel agent, or the workflow node) it belongs to."""
  label: str
  """The whole label: 'model scripted', 'tool refund(order_id="A1")', 'human wait: approval refund(...)'."""
  start: float
  """Seconds since the run's first step."""
  end: float
  status: str
  running: bool
  """True when the step has not ended (its bar reaches to now)."""
  human: bool
  """True for a wait on a person (approvals, input requests)."""
  broken: bool
  """True when the bar is drawn shorter than its real length (a long wait on a person)."""
  x0: float
  """Where the bar begins on the drawn axis, 0..1."""
  x1: float
  """Where the bar ends on the drawn axis, 0..1 (waits shortened)."""
  duration: str
  """The duration as written beside the bar: '12 ms', '≈ 3.2 s' (broken), '40 ms so far' (running)."""

  @property
  def ms(self) -> float:
    return (self.end - self.start) * 1000


@dataclass(frozen=True)
class Trace:
  """Every span of a run, in tree order (a parent before its children), and the axis they are drawn on."""

  spans: tuple[Span, ...]
  total: float
  """Seconds from the first step's start to the last span's end (real time, waits included)."""
  broken: bool
  """True when some wait on a person is drawn shortened."""
  drawn: float = 0.0
  """The axis' length in seconds as drawn (waits shortened): a span's bar covers x0 * drawn .. x1 * drawn."""

  @property
  def axis(self) -> str:
    """The axis caption: '0 … 1.2 s', and a note when waits are drawn shortened."""
    if not self.spans:
      return "nothing timed yet"
    return f"0 … {format_ms(self.total * 1000)}" + (" (waits on a person drawn shortened)" if self.broken else "")

  def as_message(self) -> dict[str, Any]:
    """What the tree's timeline tab draws (plain JSON: rows as lists, fields named once in `fields`)."""
    fields = ("id", "kind", "depth", "lane", "label", "status", "running", "human", "broken", "x0", "x1", "duration")
    return {"type": "trace", "axis": self.axis, "fields": list(fields),
            "rows": [[getattr(s, f) if f not in ("x0", "x1") else round(getattr(s, f), 5) for f in fields]
                     for s in self.spans]}


def format_ms(ms: float) -> str:
  """'12 ms' below a second, '1.2 s' above."""
  return f"{int(ms + 0.5)} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


StepsLike = Union[Mapping[str, Step], Iterable[Step], Any]


def trace(steps: StepsLike, now: Optional[float] = None) -> Trace:
  """The trace of a run's steps (a StepBuilder, a {id: Step} mapping, or Steps in the order they began).

  Unended steps reach `now` while the run goes on (an invocation still running, or paused for a
  person: `now` defaults to the time of the call); in a finished or stored run they reach the last
  time the run recorded, never the moment the trace is drawn, and nothing is drawn as running.
  """
  by_id = _by_id(steps)
  live = now is not None or any(s.kind == "invocation" and s.status in GOING_ON for s in by_id.values())
  if now is None:
    now = time.time() if live else max((t for s in by_id.values() for t in (s.t0, s.t1) if t is not None),
                                       default=0.0)
  rows = _rows(by_id, now, live)
  if not rows:
    return Trace(spans=(), total=0.0, broken=False)
  t0 = min(r[1] for r in rows)
  t1 = max(r[2] for r in rows)
  waits = _merged([(start, end) for step, start, end, _, _ in rows if step.kind in HUMAN_KINDS and end > start])
  waited = sum(b - a for a, b in waits)
  cap = max(t1 - t0 - waited, 0.001) * WAIT_SHARE
  scales = [min(1.0, cap / (b - a)) for a, b in waits]

  def at(t: float) -> float:
    v = t - t0
    for (a, b), scale in zip(waits, scales):
      if t > a:
        v -= (min(t, b) - a) * (1 - scale)
    return v

  total = max(at(t1), 0.001)
  spans = []
  for step, start, end, running, depth in rows:
    human = step.kind in HUMAN_KINDS
    broken = any(scale < 1 and start < b and end > a for (a, b), scale in zip(waits, scales))
    label = f"{'human wait: ' if human else ''}{LABELS.get(step.kind, step.kind)} {step.title}"
    ms = (end - start) * 1000
    duration = f"{'≈ ' if broken else ''}{format_ms(ms)}{' so far' if running else ''}"
    spans.append(Span(id=step.id, kind=step.kind, depth=depth, lane=_lane(by_id, step), label=label,
                      start=start - t0, end=end - t0, status=step.status, running=running, human=human,
                      broken=broken, x0=at(start) / total, x1=at(end) / total, duration=duration))
  return Trace(spans=tuple(spans), total=t1 - t0, broken=any(s.broken for s in spans), drawn=total)


def steps_of_nodes(nodes: Iterable[Mapping[str, Any]]) -> dict[str, Step]:
  """Steps back from the nodes a tree draws (`Step.as_node()`): enough for `trace` when only nodes are kept."""
  steps: dict[str, Step] = {}
  for n in nodes:
    t0, ms = n.get("t"), n.get("ms")
    steps[n["id"]] = Step(id=n["id"], kind=n.get("kind", ""), parent=n.get("parent"), title=n.get("title", ""),
                          status=n.get("status", ""), t0=t0,
                          t1=t0 + ms / 1000 if t0 is not None and ms is not None else None,
                          branch=n.get("branch", ""))
  return steps


def _by_id(steps: StepsLike) -> Mapping[str, Step]:
  inner = getattr(steps, "steps", steps)  # a StepBuilder or StepLog
  if isinstance(inner, Mapping):
    return inner
  return {s.id: s for s in inner}


def _rows(by_id: Mapping[str, Step], now: float, live: bool) -> list[tuple[Step, float, float, bool, int]]:
  """(step, start, end, running, depth) of every span, in tree order. An unended step reaches `now`;
  it is running only while the run goes on (`live`)."""
  children: dict[Optional[str], list[Step]] = {}
  for step in by_id.values():
    parent = step.parent if step.parent in by_id else None
    children.setdefault(parent, []).append(step)
  rows: list[tuple[Step, float, float, bool, int]] = []
  stack: list[tuple[Step, int]] = [(s, 0) for s in reversed(children.get(None, []))]
  while stack:
    step, depth = stack.pop()
    timed = step.kind in SPAN_KINDS and step.t0 is not None
    if timed:
      unended = step.t1 is None and step.status in RUNNING_STATUSES
      end = step.t1 if step.t1 is not None else (max(now, step.t0) if unended else step.t0)
      rows.append((step, step.t0, end, unended and live, depth))
    inner = depth + 1 if timed else depth
    stack.extend((child, inner) for child in reversed(children.get(step.id, [])))
  return rows


def _merged(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
  merged: list[list[float]] = []
  for a, b in sorted(intervals):
    if merged and a <= merged[-1][1]:
      merged[-1][1] = max(merged[-1][1], b)
    else:
      merged.append([a, b])
  return [(a, b) for a, b in merged]


def _lane(by_id: Mapping[str, Step], step: Step) -> str:
  """The nearest agent (or workflow node) at or above `step`, with its branch."""
  current: Optional[Step] = step
  while current is not None and current.kind not in LANE_KINDS:
    current = by_id.get(current.parent) if current.parent else None
  if current is None:
    return "run"
  if current.kind == "node":  # every run of a workflow node in one lane: writer@1, writer@2 -> writer
    return current.title.rsplit("@", 1)[0]
  return f"{current.title} ({current.branch})" if "." in (current.branch or "") else current.title
