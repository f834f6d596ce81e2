"""A run as a table: one row per step, for pandas (read from the step model, as every view is)."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Union

from ..events.event import Event
from ..inspect import CONTAINER_KINDS, StepBuilder, steps_of
from ._answers import Decision

COLUMNS = ["invocation", "author", "branch", "kind", "tool", "arguments", "result", "text", "state_delta",
           "latency_ms", "timestamp"]
"""kind is a step kind (`adk_nb.inspect.LABELS`): user, model_call, text, tool_call, approval,
input_request, transfer, escalate, error, state, decision, thought, code (text: the code; result: its
output), compaction. latency_ms is the step's own
duration in milliseconds: a model call alone (live runs; between events for stored ones), a
tool call from its start to its result, an approval the person's wait."""


def _rows(steps: StepBuilder) -> list[dict[str, Any]]:
  rows: list[dict[str, Any]] = []
  by_event: dict[str, dict[str, Any]] = {}
  for step in steps.steps.values():
    if step.kind in CONTAINER_KINDS:
      continue
    if step.kind == "state" and step.event_id in by_event:
      by_event[step.event_id]["state_delta"] = step.state_delta  # the delta of the step that wrote it
      continue
    text = step.text or None
    if step.kind == "tool_call" and step.status != "rejected":
      text = None  # the arguments are in their own column
    row = {"invocation": step.invocation_id or None, "author": step.author or None, "branch": step.branch or None,
           "kind": step.kind, "tool": step.tool or None, "arguments": step.args, "result": step.result,
           "text": text, "state_delta": step.state_delta, "latency_ms": step.ms, "timestamp": step.t0}
    if step.kind == "decision":
      row["result"] = step.status or None
    rows.append(row)
    if step.event_id and step.event_id not in by_event:
      by_event[step.event_id] = row
  return rows


def trajectory_rows(events: Iterable[Event], decisions: Iterable[Union[Decision, Mapping[str, Any]]] = ()
                    ) -> list[dict[str, Any]]:
  """The steps of stored events (plus recorded `decisions`: `run.decisions`, or dicts of their fields) as
  dicts, the rows of `trajectory_frame`."""
  builder = steps_of(list(events))
  for one in decisions:
    d = Decision.of(one)
    builder.add_decision(d.call_id, d.invocation_id, d.title, d.reason, d.timestamp, d.status,
                         f"{d.decision} by {d.by}" if d.by else d.decision)
  return _rows(builder)


def trajectory_frame(events: Iterable[Event], decisions: Iterable[Union[Decision, Mapping[str, Any]]] = ()):
  """Stored events as a pandas DataFrame with COLUMNS, one row per step, in order."""
  import pandas as pd

  return pd.DataFrame(trajectory_rows(events, decisions), columns=COLUMNS)


def trajectory_frame_of_steps(steps: StepBuilder):
  """A run's steps as a pandas DataFrame with COLUMNS (what `LiveRun.trajectory()` returns)."""
  import pandas as pd

  return pd.DataFrame(_rows(steps), columns=COLUMNS)
