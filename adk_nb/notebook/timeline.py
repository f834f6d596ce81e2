"""The run's timeline as a plotly figure (`LiveRun.timeline()`)."""

from __future__ import annotations

from typing import Optional

from ..inspect import LABELS, StepBuilder
from ..inspect.timeline import timeline_bars

_COLOURS = {"agent": "#94a3b8", "sequential": "#cbd5e1", "parallel": "#cbd5e1", "loop": "#cbd5e1",
            "model_call": "#3b82f6", "tool_call": "#10b981", "approval": "#f59e0b", "input_request": "#f59e0b"}


def timeline_figure(steps: StepBuilder, title: str = "", now: Optional[float] = None):
  """A Gantt chart of the run: one row per agent, bars for agents, model calls, tool calls and human waits.

  Human waits are hatched and named "human wait"; steps still running reach to now. Hover
  shows each bar's label, status and duration. Returns a plotly `go.Figure`.
  """
  import plotly.graph_objects as go

  bars = timeline_bars(steps, now)
  lanes: list[str] = []
  for bar in bars:
    if bar.lane not in lanes:
      lanes.append(bar.lane)
  figure = go.Figure()
  for kind in ("agent", "sequential", "parallel", "loop", "model_call", "tool_call", "approval", "input_request"):
    mine = [b for b in bars if b.kind == kind]
    if not mine:
      continue
    human = kind in ("approval", "input_request")
    figure.add_trace(go.Bar(
        orientation="h", name="human wait" if human else LABELS.get(kind, kind),
        y=[b.lane for b in mine], base=[b.start * 1000 for b in mine],
        x=[max((b.end - b.start) * 1000, 0.5) for b in mine],
        width=0.8 if kind in ("agent", "sequential", "parallel", "loop") else 0.45,
        marker={"color": _COLOURS[kind], "pattern": {"shape": "/" if human else ""},
                "line": {"width": 0}},
        opacity=0.35 if kind in ("agent", "sequential", "parallel", "loop") else 0.95,
        customdata=[[b.label, b.status + (" (running)" if b.running else ""), round((b.end - b.start) * 1000, 1)]
                    for b in mine],
        hovertemplate="%{customdata[0]}<br>%{customdata[1]} · %{customdata[2]} ms<extra></extra>"))
  figure.update_layout(
      barmode="overlay", title=title or None, xaxis_title="ms since the run began",
      yaxis={"categoryorder": "array", "categoryarray": list(reversed(lanes)), "title": None},
      height=max(200, 60 + 36 * len(lanes)), margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 40},
      legend={"orientation": "h", "y": -0.25})
  return figure
