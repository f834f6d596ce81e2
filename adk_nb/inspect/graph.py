"""The picture of an agent: its tree (sub-agents, tools, AgentTools) or its workflow graph, laid out, with live status.

    graph = graph_of(agent)          # nodes and edges, from the agent's structure alone
    graph.layout()                   # x, y for each node (networkx's layered BFS layout)
    status = GraphStatus(graph)
    status.update(run.steps, ids)    # each node's latest status and run count, from the steps

Node ids name what a step is about, so a run's steps find their node: `agent:<name>`,
`tool:<agent>/<tool>`, `node:<workflow>/<node>` (a node path without run ids).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from .step import Step

LAYER = 66
"""Pixels between layers (top to bottom)."""
SPREAD = 160
"""Pixels between the centres of nodes in one layer."""
MARGIN = 70
"""Pixels left and right of the drawing (half a node, plus room for edge labels)."""
MARGIN_Y = 32
"""Pixels above and below the drawing (half a node's height, plus a little): the picture is as tall as its content."""
LABEL_ROOM = 180
"""At most this many pixels right of the nodes for edge labels and the arcs of edges that loop back."""
NODE_HALF_WIDTH = 68
"""Half the width the views draw a node (widgets/graph_view.js NODE_W = 136)."""
ARC_OUT = 36
"""How far right of its nodes an edge that loops back is drawn (an arc; widgets/graph_view.js)."""
LABEL_CHAR = 6.2
"""Pixels per character of an edge label (10 px sans-serif), to leave room for the longest."""

GRAPH_STATUS_TEXT = {"waiting": "○ waiting", "running": "… running", "paused": "‖ paused", "done": "✓ done",
                     "rejected": "⊘ rejected", "error": "✗ error"}
"""A node's status in the picture (not run yet, running, waiting for a person, done, rejected, failed), as it reads."""

_FROM_STEP = {"running": "running", "streaming": "running", "pending": "paused", "needs approval": "paused",
              "paused": "paused", "ok": "done", "done": "done", "responded": "done", "approved": "done",
              "rejected": "rejected", "error": "error", "": "done"}
_RUN_ID = re.compile(r"@\d+")


@dataclass
class GraphNode:
  """One box of the picture."""

  id: str
  """`agent:<name>`, `tool:<agent>/<tool>`, `node:<workflow>/<node>`, `toolset:<agent>/<n>`."""
  label: str
  """What the box says (an agent's, tool's or node's name)."""
  kind: str
  """'agent', 'sequential', 'parallel', 'loop', 'workflow', 'start', 'node', 'join', 'tool', 'toolset'."""
  x: float = 0.0
  y: float = 0.0


@dataclass
class GraphEdge:
  """One arrow: from `source` to `target`, with what it means (a route, a step number, 'tool')."""

  source: str
  target: str
  label: str = ""


@dataclass
class AgentGraph:
  """An agent's structure as boxes and arrows."""

  nodes: dict[str, GraphNode] = field(default_factory=dict)
  edges: list[GraphEdge] = field(default_factory=list)
  width: float = 0.0
  """Pixels the laid-out drawing needs."""
  height: float = 0.0

  def add(self, node: GraphNode) -> GraphNode:
    return self.nodes.setdefault(node.id, node)

  def link(self, source: str, target: str, label: str = "") -> None:
    self.edges.append(GraphEdge(source, target, label))

  def layout(self) -> "AgentGraph":
    """Places the nodes in layers from the roots (networkx's `bfs_layout`), top to bottom; returns self.

    The layout engine is networkx's; this only adds one hidden root above the graph's roots
    (so every part is reachable) and scales its coordinates to pixels.
    """
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(self.nodes)
    g.add_edges_from((e.source, e.target) for e in self.edges if e.source in self.nodes and e.target in self.nodes)
    hub = ("hub",)  # not a string: no node id can equal it
    roots = [n for n in g if g.in_degree(n) == 0] or list(g)[:1]
    g.add_edges_from((hub, r) for r in roots)
    unreached = set(g) - nx.descendants(g, hub) - {hub}
    while unreached:  # a cycle with no way in: enter it at its first node
      first = next(n for n in self.nodes if n in unreached)
      g.add_edge(hub, first)
      unreached -= nx.descendants(g, hub)
    pos = nx.bfs_layout(g, hub, align="horizontal")  # layers are rows, from the roots down
    del pos[hub]
    if not pos:
      return self
    layers: dict[float, int] = {}  # the row of a layer -> how many nodes it holds
    for p in pos.values():
      layers[round(float(p[1]), 6)] = layers.get(round(float(p[1]), 6), 0) + 1
    rows, widest = sorted(layers), max(layers.values())
    xs = [float(p[0]) for p in pos.values()]
    x0, x1, y0, y1 = min(xs), max(xs), rows[0], rows[-1]
    for node_id, (x, y) in pos.items():
      node = self.nodes[node_id]
      node.x = round(MARGIN + (0 if x1 == x0 else (float(x) - x0) / (x1 - x0) * (widest - 1) * SPREAD), 1)
      node.y = round(MARGIN_Y + (0 if y1 == y0 else (float(y) - y0) / (y1 - y0) * (len(rows) - 1) * LAYER), 1)
    self.width = MARGIN * 2 + (widest - 1) * SPREAD + self._label_room()
    self.height = MARGIN_Y * 2 + (len(rows) - 1) * LAYER
    return self

  def _label_room(self) -> float:
    """Pixels the edges need right of the rightmost node: arcs of edges that loop back and labels, as
    widgets/graph_view.js draws them (none for a tree of agents: the picture is as wide as its nodes)."""
    right = max(n.x for n in self.nodes.values()) + NODE_HALF_WIDTH
    extent = right
    for e in self.edges:
      a, b = self.nodes.get(e.source), self.nodes.get(e.target)
      if a is None or b is None:
        continue
      text = len(e.label) * LABEL_CHAR
      if b.y > a.y:  # down: the label starts beside the middle of the edge
        extent = max(extent, (a.x + b.x) / 2 + 4 + text if e.label else 0)
      else:  # back up or across: an arc right of both nodes, its label at the arc's outer edge
        extent = max(extent, max(a.x, b.x) + NODE_HALF_WIDTH + ARC_OUT - 6 + text + 4)
    return min(LABEL_ROOM, max(0.0, extent - right))

  def as_data(self) -> dict[str, Any]:
    """Plain JSON for the browser: {'nodes': [...], 'edges': [...], 'width', 'height'}."""
    return {"nodes": [{"id": n.id, "label": n.label, "kind": n.kind, "x": round(n.x, 1), "y": round(n.y, 1)}
                      for n in self.nodes.values()],
            "edges": [{"source": e.source, "target": e.target, "label": e.label} for e in self.edges],
            "width": round(self.width, 1), "height": round(self.height, 1)}


def graph_of(agent: Any) -> AgentGraph:
  """The structure of `agent`: a workflow's nodes and routed edges, or an agent tree with its tools."""
  graph = AgentGraph()
  _add_agent(graph, agent, seen=set())
  return graph


def _workflow_graph(agent: Any) -> Any:
  structure = getattr(agent, "graph", None)
  return structure if structure is not None and hasattr(structure, "edges") and hasattr(structure, "nodes") else None


def _add_agent(graph: AgentGraph, agent: Any, seen: set[int]) -> str:
  node_id = f"agent:{agent.name}"
  if id(agent) in seen:
    return node_id
  seen.add(id(agent))
  kind = getattr(agent, "step_kind", "agent")  # BaseAgent.step_kind: a LoopAgent subclass is a loop too
  structure = _workflow_graph(agent)
  if structure is not None:
    return _add_workflow(graph, agent.name, structure, seen, f"node:{agent.name}")
  graph.add(GraphNode(node_id, agent.name, kind))
  children = list(getattr(agent, "sub_agents", None) or [])
  for index, child in enumerate(children, start=1):
    child_id = _add_agent(graph, child, seen)
    label = {"sequential": str(index), "loop": str(index), "parallel": "branch"}.get(kind, "transfer")
    graph.link(node_id, child_id, label)
  if kind == "loop" and children:
    graph.link(_add_agent(graph, children[-1], seen), _add_agent(graph, children[0], seen), "again")
  _add_tools(graph, agent, node_id, seen)
  return node_id


def _add_tools(graph: AgentGraph, agent: Any, node_id: str, seen: set[int]) -> None:
  from ..tools.agent_tool import AgentTool
  from ..tools.base_toolset import BaseToolset

  for index, tool in enumerate(getattr(agent, "tools", None) or []):
    if isinstance(tool, AgentTool):
      graph.link(node_id, _add_agent(graph, tool.agent, seen), "agent tool")
    elif isinstance(tool, BaseToolset):
      # Expanding a toolset opens its server: the picture shows the toolset itself (`%agent tools` lists its tools).
      toolset_id = f"toolset:{agent.name}/{index}"
      graph.add(GraphNode(toolset_id, type(tool).__name__, "toolset"))
      graph.link(node_id, toolset_id, "tools")
    else:
      name = getattr(tool, "name", None) or getattr(tool, "__name__", None) or type(tool).__name__
      tool_id = f"tool:{agent.name}/{name}"
      graph.add(GraphNode(tool_id, name, "tool"))
      graph.link(node_id, tool_id, "tool")


def _add_workflow(graph: AgentGraph, name: str, structure: Any, seen: set[int], prefix: str) -> str:
  """A workflow's nodes as `node:<workflow>/<node>`; its START node stands for the workflow."""
  from ..workflow import JoinNode  # only a graph that has a workflow needs the workflow package
  ids: dict[str, str] = {}
  for node in structure.nodes:
    node_name = node.name
    node_id = f"{prefix}/{node_name}"
    ids[node_name] = node_id
    if node_name == "__START__":
      kind, label = "start", f"{name}: START"
    elif isinstance(node, JoinNode):
      kind, label = "join", node_name
    elif hasattr(node, "step_kind") or hasattr(node, "sub_agents"):
      kind, label = getattr(node, "step_kind", "agent"), node_name
    else:
      kind, label = "node", node_name
    graph.add(GraphNode(node_id, label, kind))
    if hasattr(node, "tools"):  # an agent as a node: its tools hang off it
      _add_tools(graph, node, node_id, seen)
  for edge in structure.edges:
    graph.link(ids[edge.from_node.name], ids[edge.to_node.name], _route_label(edge.route))
  return ids.get("__START__") or next(iter(ids.values()), f"{prefix}/")


def _route_label(route: Any) -> str:
  if route is None:
    return ""
  if route == "__DEFAULT__":
    return "default"
  if isinstance(route, (list, tuple, set, frozenset)):
    return " | ".join(sorted(str(r) for r in route))
  return str(route)


def node_id_of(step: Step) -> Optional[str]:
  """The graph node a step is a run of (None for steps that are not: model calls, texts, state, ...)."""
  if step.path and step.kind in ("node", "workflow", "agent"):
    if "/" not in step.path:
      return None  # the workflow itself: its START node shows where it begins
    return "node:" + _RUN_ID.sub("", step.path)
  if step.kind in ("agent", "sequential", "parallel", "loop", "workflow"):
    return f"agent:{step.title}"
  if step.kind == "tool_call" and step.tool:
    return f"tool:{step.author}/{step.tool}"
  return None


class GraphStatus:
  """Each graph node's status and run count, kept up to date from the steps that changed."""

  def __init__(self, graph: AgentGraph) -> None:
    self.graph = graph
    self.status: dict[str, dict[str, Any]] = {}
    """{node id: {'status': a key of GRAPH_STATUS_TEXT, 'runs': n}} for nodes that ran (the others are waiting)."""
    self._latest: dict[str, str] = {}   # node id -> the id of its latest step
    self._counted: set[str] = set()     # step ids already counted as runs

  def update(self, steps: dict[str, Step], changed: Iterable[str]) -> bool:
    """Folds the steps with these ids (new or changed, in order); True when a node's status or count changed."""
    moved = False
    for step_id in changed:
      step = steps.get(step_id)
      node_id = None if step is None else node_id_of(step)
      if node_id is None or node_id not in self.graph.nodes:
        continue
      entry = self.status.setdefault(node_id, {"status": "waiting", "runs": 0})
      if step_id not in self._counted:
        self._counted.add(step_id)
        self._latest[node_id] = step_id
        entry["runs"] += 1
        moved = True
      if self._latest.get(node_id) == step_id:
        status = _FROM_STEP.get(step.status, "done")
        if entry["status"] != status:
          entry["status"] = status
          moved = True
    return moved

  def update_all(self, steps: dict[str, Step]) -> bool:
    """Folds every step (a view made after the run, or a reloaded one)."""
    return self.update(steps, list(steps))
