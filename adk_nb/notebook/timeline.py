"""The run's trace as a plotly figure (`LiveRun.timeline()`): the rows the tree's timeline tab draws."""

from __future__ import annotations

from typing import Optional

from ..inspect import LABELS, StepBuilder
from ..inspect.timeline import trace

_COLOURS = {"invocation": "#64748b", "agent": "#94a3b8", "sequential": "#cbd5e1", "parallel": "#cbd5e1",
            "loop": "#cbd5e1", "workflow": "#cbd5e1", "node": "#94a3b8", "model_call": "#3b82f6",
            "tool_call": "#10b981", "approval": "#f59e0b", "input_request": "#f59e0b"}
_FAINT = ("invocation", "agent", "sequential", "parallel", "loop", "workflow", "node")


def timeline_figure(steps: StepBuilder, title: str = "", now: Optional[float] = None):
  """A trace of the run: one row per span (invocation > agent > model call / tool call / human wait).

  The rows are `adk_nb.inspect.timeline.trace(steps, now)`, the same the tree's timeline tab draws:
  whole labels, durations written beside the bars, waits on a person hatched and drawn shortened.
  Pass `now` while the run goes on (unended steps reach it). Returns a plotly `go.Figure`.
  """
  import plotly.graph_objects as go

  model = trace(steps, now)
  spans = list(model.spans)
  scale = model.drawn * 1000  # ms on the drawn axis
  figure = go.Figure()
  for kind in _COLOURS:
    rows = [(i, s) for i, s in enumerate(spans) if s.kind == kind]
    if not rows:
      continue
    human = kind in ("approval", "input_request")
    figure.add_trace(go.Bar(
        orientation="h", name="human wait" if human else LABELS.get(kind, kind),
        y=[i for i, _ in rows], base=[s.x0 * scale for _, s in rows],
        x=[max((s.x1 - s.x0) * scale, scale * 0.003) for _, s in rows],  # a 0 ms step still shows
        text=[s.duration for _, s in rows], textposition="outside", width=0.7,
        marker={"color": _COLOURS[kind], "pattern": {"shape": "/" if human else ""}, "line": {"width": 0}},
        opacity=0.45 if kind in _FAINT else 0.95,
        customdata=[[s.label, s.status + (" (running)" if s.running else ""), s.duration] for _, s in rows],
        hovertemplate="%{customdata[0]}<br>%{customdata[1]} · %{customdata[2]}<extra></extra>"))
  figure.update_layout(
      barmode="overlay", title=title or None,
      xaxis_title="ms since the run began" + (" (waits on a person drawn shortened)" if model.broken else ""),
      yaxis={"tickvals": list(range(len(spans))), "ticktext": ["\u2003" * s.depth + s.label for s in spans],
             "autorange": "reversed", "title": None},
      height=max(200, 60 + 22 * len(spans)), margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 40},
      legend={"orientation": "h", "y": -0.25})
  return figure
