"""plotly figures of eval results (imported only when a chart is asked for)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
  import plotly.graph_objects as go


KINDS = ("pass_rate", "scores", "latency", "deltas")


def plot(results, kind: str = "pass_rate", baseline=None) -> go.Figure:
  """Builds one figure; see `EvalResults.plot`."""
  if kind == "pass_rate":
    return _pass_rate(results)
  if kind == "scores":
    return _scores(results)
  if kind == "latency":
    return _latency(results)
  if kind == "deltas":
    if baseline is None:
      raise ValueError("plot('deltas') compares with a baseline: pass baseline=<earlier EvalResults>.")
    return _deltas(results, baseline)
  raise ValueError(f"Unknown plot kind {kind!r}; use one of {', '.join(KINDS)}.")


def _pass_rate(results) -> go.Figure:
  import plotly.graph_objects as go  # the reporting stack loads only when a frame or chart is asked for
  cases = results.cases
  labels, rates = ["all metrics"], [float(cases["passed"].mean()) if len(cases) else 0.0]
  for name, threshold in results.thresholds.items():
    if threshold is None:
      continue
    col = cases[f"{name}_passed"]
    labels.append(name)
    rates.append(float((col == True).sum() / len(col)) if len(col) else 0.0)  # noqa: E712 (None counts as not passed)
  fig = go.Figure(go.Bar(x=labels, y=rates, text=[f"{r:.0%}" for r in rates], textposition="auto",
                         marker_color=["#4c78a8"] + ["#72b7b2"] * (len(labels) - 1)))
  fig.update_layout(title=f"Pass rate · {results.label} ({len(cases)} case runs)", yaxis=dict(range=[0, 1],
                    tickformat=".0%", title="share of case runs passing"), xaxis_title="metric")
  return fig


def _scores(results) -> go.Figure:
  import plotly.graph_objects as go  # the reporting stack loads only when a frame or chart is asked for
  m = results.metrics
  m = m[(m["level"] == "case") & m["score"].notna()]
  fig = go.Figure()
  for name in results.metric_names:
    scores = m.loc[m["metric"] == name, "score"].astype(float)
    fig.add_trace(go.Box(y=scores.tolist(), name=name, boxpoints="all", jitter=0.3))
  fig.update_layout(title=f"Score distributions · {results.label}", yaxis_title="score per case run",
                    showlegend=False)
  return fig


def _latency(results) -> go.Figure:
  import pandas as pd
  import plotly.graph_objects as go  # the reporting stack loads only when a frame or chart is asked for
  lat = pd.to_numeric(results.cases["latency_s"], errors="coerce").dropna()
  fig = go.Figure(go.Histogram(x=lat.tolist(), nbinsx=30, name="latency"))
  fig.update_layout(title=f"Case latency · {results.label}", xaxis_title="seconds per case run", yaxis_title="case runs")
  return fig


def _deltas(results, baseline) -> go.Figure:
  import plotly.graph_objects as go  # the reporting stack loads only when a frame or chart is asked for
  table = results.compare(baseline)
  fig = go.Figure()
  for name in results.metric_names:
    col = f"{name}_delta"
    if col not in table:
      continue
    rows = table[table[col].notna()]
    fig.add_trace(go.Bar(x=rows["eval_id"].tolist(), y=rows[col].astype(float).tolist(), name=name,
                         customdata=rows["change"].tolist(),
                         hovertemplate="%{x}: %{y:+.3f} (%{customdata})<extra>" + name + "</extra>"))
  fig.update_layout(title=f"Score change vs {baseline.label}", barmode="group", xaxis_title="case",
                    yaxis_title="score delta (current - baseline)")
  return fig
