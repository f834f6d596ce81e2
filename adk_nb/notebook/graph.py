"""The graph view: an agent tree or workflow graph with each node's live status; clicking a node filters the tree.

`graph_view(agent)` draws an agent alone (what a cell ending in an agent shows once
`%load_ext adk_nb` ran); a RunView of a workflow or multi-agent run carries one that follows
the run. The layout comes from networkx (`adk_nb.inspect.graph`); the browser only draws.
"""

from __future__ import annotations

from html import escape
from typing import Any, Callable, Optional

import anywidget
import traitlets

from ..inspect.graph import GRAPH_STATUS_TEXT, AgentGraph, GraphStatus, graph_of
from ._loop import call_in_loop
from .views import _asset, _with_html

_NODE_W, _NODE_H = 136, 40


class GraphView(anywidget.AnyWidget):
  """A drawn agent tree or workflow graph; `status` colours and labels each node as the run goes."""

  _esm = _asset("graph_view.js")
  _css = _asset("graph_view.css")
  graph = traitlets.Dict().tag(sync=True)
  """The laid-out graph: {'nodes': [{id, label, kind, x, y}], 'edges': [{source, target, label}], 'width', 'height'}."""
  status = traitlets.Dict().tag(sync=True)
  """{node id: {'status': 'running' | 'paused' | 'done' | 'rejected' | 'error', 'runs': n}}; others are waiting."""
  title = traitlets.Unicode("").tag(sync=True)
  """The agent's name."""
  status_text = traitlets.Dict(dict(GRAPH_STATUS_TEXT)).tag(sync=True)
  """How each status reads (a symbol and a word: never colour alone)."""

  def __init__(self, agent_graph: AgentGraph, title: str = "", on_select: Optional[Callable[[str], None]] = None,
               loop: Optional[Callable[[], Any]] = None, **kwargs: Any):
    super().__init__(graph=agent_graph.as_data(), title=title, **kwargs)
    self.agent_graph = agent_graph
    self.tracker = GraphStatus(agent_graph)
    """Folds the run's steps into node statuses (see `adk_nb.inspect.graph.GraphStatus`)."""
    self._on_select = on_select
    self._loop_of = loop or (lambda: None)
    self.on_msg(self._on_browser_msg)

  def follow(self, steps: dict, changed: list[str]) -> None:
    """Updates node statuses from the steps with these ids (sent only when something changed)."""
    if self.tracker.update(steps, changed):
      self.status = {k: dict(v) for k, v in self.tracker.status.items()}

  def _on_browser_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
    if isinstance(content, dict) and content.get("type") == "select" and self._on_select is not None:
      node = self.agent_graph.nodes.get(str(content.get("id", "")))
      if node is not None:
        call_in_loop(self._loop_of(), lambda: self._on_select(node.label))

  def _repr_mimebundle_(self, **kwargs: Any):
    return _with_html(super()._repr_mimebundle_(**kwargs), graph_html(self.graph, self.status, self.title))


def worth_drawing(agent_graph: AgentGraph) -> bool:
  """True when the picture says more than the tree: a workflow, sub-agents or agent tools.

  One agent with its tools is not drawn: the tree already shows all of it.
  """
  return sum(1 for n in agent_graph.nodes.values() if n.kind not in ("tool", "toolset")) > 1


def graph_view(agent: Any) -> GraphView:
  """The graph of `agent` alone: its workflow graph, or its sub-agents, agent tools and tools."""
  return GraphView(graph_of(agent).layout(), title=agent.name)


def graph_html(data: dict, status: dict, title: str = "") -> str:
  """The graph as static SVG (a saved notebook, nbviewer), every label escaped."""
  width, height = max(data.get("width", 0), _NODE_W + 20), max(data.get("height", 0), _NODE_H + 20)
  nodes = {n["id"]: n for n in data.get("nodes", [])}
  parts = [f"<div class='adknb-static adknb-graph-static'><b>{escape(title)}</b>",
           f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
           f"viewBox='0 0 {width} {height}' font-family='sans-serif' font-size='11'>"]
  for edge in data.get("edges", []):
    a, b = nodes.get(edge["source"]), nodes.get(edge["target"])
    if a is None or b is None:
      continue
    parts.append(f"<line x1='{a['x']}' y1='{a['y']}' x2='{b['x']}' y2='{b['y']}' stroke='#888'/>")
    if edge.get("label"):
      parts.append(f"<text x='{(a['x'] + b['x']) / 2}' y='{(a['y'] + b['y']) / 2 - 3}' text-anchor='middle' "
                   f"fill='#555'>{escape(edge['label'])}</text>")
  for node in nodes.values():
    entry = status.get(node["id"]) or {"status": "waiting", "runs": 0}
    runs = f" · {entry['runs']} runs" if entry.get("runs", 0) > 1 else ""
    word = "" if node["kind"] == "start" else GRAPH_STATUS_TEXT.get(entry["status"], entry["status"]) + runs
    x, y = node["x"] - _NODE_W / 2, node["y"] - _NODE_H / 2
    parts.append(f"<rect x='{x}' y='{y}' width='{_NODE_W}' height='{_NODE_H}' rx='5' fill='white' stroke='#888'/>"
                 f"<text x='{node['x']}' y='{y + 16}' text-anchor='middle' font-weight='bold'>"
                 f"{escape(node['label'][:24])}</text>"
                 f"<text x='{node['x']}' y='{y + 32}' text-anchor='middle' font-size='10'>{escape(word)}</text>")
  parts.append("</svg></div>")
  return "".join(parts)
