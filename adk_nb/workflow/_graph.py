"""The workflow graph: `Edge`, `Graph` (nodes and edges, as google-adk 2.x), and its compiled form.

`Graph` is google-adk's public shape: `Graph(edges=[Edge(...), ...])` or `Graph.from_edge_items(chains)`;
the nodes are inferred from the edges in first-seen order, `validate_graph()` checks it
(`utils._graph_validation`) and `get_next_pending_nodes` answers which nodes an output's route fires.
The scheduler reads `CompiledGraph`, the same graph indexed by name once (successors, predecessors,
terminals), so routing a completed node costs one dict lookup and a short loop.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from ._base_node import START, BaseNode
from ._errors import WorkflowConfigurationError

logger = logging.getLogger("adk_nb.workflow")

RouteValue = Union[bool, int, str]
"""A value a node may emit as its route, and an edge may be keyed by."""
NodeLike = Union[BaseNode, Any, Callable[..., Any], Literal["START"]]
"""What `edges` accepts for a node: a node or agent, a tool, a callable, or the string "START"."""
RoutingMap = dict
"""`{route: node_like or (node_like, ...)}`: the routed edges from the element before it in a chain."""
ChainElement = Union[NodeLike, tuple, dict]
"""An element of a chain: a node-like, a fan-out tuple of node-likes, or a RoutingMap."""
DEFAULT_ROUTE = "__DEFAULT__"
"""Route key of the edge taken when no other routed edge of the node matches."""


class Edge(BaseModel):
  """An explicit edge: `to_node` runs after `from_node`, when `route` matches (always when None)."""

  model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

  from_node: Any
  """The node the edge leaves (in `edges`, any node-like; in a built Graph, a BaseNode)."""
  to_node: Any
  """The node the edge leads to."""
  route: Optional[Union[RouteValue, list[RouteValue]]] = None
  """The route(s) that take this edge; a list matches any of its values; None: always taken."""


EdgeItem = Union[Edge, tuple]
"""An item of `edges`: an Edge, or a chain tuple such as ('START', a, {'x': b}, c)."""


class Graph(BaseModel):
  """A workflow graph: its edges, and the nodes they join (inferred, in first-seen order).

  `Graph(edges=[Edge(from_node=START, to_node=a), ...])` or `Graph.from_edge_items([...])`;
  pass it as `Workflow(graph=...)`, or give the Workflow `edges` and read `workflow.graph`.
  """

  model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

  nodes: list[Any] = Field(default_factory=list)
  """The nodes of the graph (START included); inferred from `edges`, never passed."""
  edges: list[Edge] = Field(default_factory=list)
  """The edges of the graph, each between two BaseNodes."""

  _terminal_node_names: set = PrivateAttr(default_factory=set)
  _compiled: Any = PrivateAttr(default=None)

  @classmethod
  def from_edge_items(cls, edge_items: list[Any]) -> "Graph":
    """Builds a Graph from `edges` items: chains, fan-out tuples, routing maps and Edge objects."""
    from .utils._graph_parser import parse_edge_items

    return cls(edges=parse_edge_items(edge_items))

  def model_post_init(self, __context: Any) -> None:
    if "nodes" in self.model_fields_set and self.nodes:
      raise WorkflowConfigurationError(
          "Nodes are inferred from edges, do not set nodes explicitly: pass Graph(edges=[...]) only."
      )
    if any(not isinstance(e.from_node, BaseNode) or not isinstance(e.to_node, BaseNode) for e in self.edges):
      from .utils._graph_parser import parse_edge_items

      self.edges = parse_edge_items(self.edges)  # functions, tools, "START" in explicit Edges become nodes
    if self.edges:
      seen: dict[int, BaseNode] = {}
      for edge in self.edges:
        seen.setdefault(id(edge.from_node), edge.from_node)
        seen.setdefault(id(edge.to_node), edge.to_node)
      self.nodes = list(seen.values())

  def get_next_pending_nodes(self, node_name: str,
                             routes_to_match: Optional[Union[RouteValue, list[RouteValue]]]) -> list[str]:
    """The names of the nodes that run after `node_name` emitted `routes_to_match` (None: no route).

    Unrouted edges always fire; a routed edge fires when its routes meet the emitted ones;
    DEFAULT_ROUTE edges fire when no routed edge did. Routed edges that all miss end the branch
    with a warning.
    """
    fired: list[str] = []
    defaults: list[str] = []
    routed = matched = False
    wanted = set(routes_to_match) if isinstance(routes_to_match, list) else None
    for edge in self.edges:
      if edge.from_node.name != node_name:
        continue
      if edge.route is None:
        fired.append(edge.to_node.name)
        continue
      routed = True
      if edge.route == DEFAULT_ROUTE:
        defaults.append(edge.to_node.name)
        continue
      routes = set(edge.route) if isinstance(edge.route, list) else {edge.route}
      if (routes & wanted) if wanted is not None else routes_to_match in routes:
        fired.append(edge.to_node.name)
        matched = True
    if not matched:
      fired.extend(defaults)
    if routed and not fired:
      logger.warning(
          "Node '%s' has conditional/DEFAULT edges but none were matched by the emitted route(s): %s. "
          "The branch will end.", node_name, routes_to_match)
    return fired

  def validate_graph(self) -> None:
    """Checks the graph (see `utils._graph_validation`); raises GraphValidationError naming the fix."""
    from .utils._graph_validation import validate_graph

    self._terminal_node_names = validate_graph(self.nodes, self.edges)
    self._compiled = None

  def compiled(self) -> "CompiledGraph":
    """The graph indexed by node name, for the scheduler (built once). As in google-adk 2.13, only a
    validated graph has terminal nodes: a Workflow run on a graph never validated has no output."""
    if self._compiled is None:
      self._compiled = CompiledGraph({n.name: n for n in self.nodes},
                                     [(e.from_node, e.to_node, e.route) for e in self.edges],
                                     frozenset(self._terminal_node_names))
    return self._compiled


class _Out:
  """An outgoing edge, compiled."""

  __slots__ = ("target", "routes", "default")

  def __init__(self, target: str, route: Any):
    self.target = target
    self.default = route == DEFAULT_ROUTE if not isinstance(route, list) else False
    if route is None or self.default:
      self.routes = None
    else:
      self.routes = frozenset(route if isinstance(route, list) else [route])


class CompiledGraph:
  """A validated graph indexed by node name: what the scheduler reads for every completed node."""

  def __init__(self, nodes: dict[str, BaseNode], edges: list[tuple[BaseNode, BaseNode, Any]],
               terminals: Optional[frozenset] = None):
    self.nodes = nodes
    self.edges = edges
    self.out: dict[str, list[_Out]] = {name: [] for name in nodes}
    self.preds: dict[str, list[str]] = {name: [] for name in nodes}
    for src, dst, route in edges:
      self.out[src.name].append(_Out(dst.name, route))
      if src.name not in self.preds[dst.name]:
        self.preds[dst.name].append(src.name)
    self.terminals = terminals if terminals is not None else frozenset(
        n for n in nodes if n != START.name and not self.out[n])
    """The nodes whose output is the workflow's (those with no way out, once validated)."""

  def next_nodes(self, name: str, route: Any) -> tuple[list[str], bool]:
    """(successors that fire after `name` took `route`, True when routed edges existed but none matched)."""
    outs = self.out[name]
    fired: list[str] = []
    routed = matched = False
    taken = None if route is None else frozenset(route if isinstance(route, (list, tuple, set)) else [route])
    for o in outs:
      if o.routes is None and not o.default:
        fired.append(o.target)
      elif o.routes is not None:
        routed = True
        if taken is not None and o.routes & taken:
          fired.append(o.target)
          matched = True
    if not matched:
      defaults = [o.target for o in outs if o.default]
      if defaults:
        return fired + defaults, False
    return fired, routed and not matched


def parse(edges: list[Any]) -> CompiledGraph:
  """Compiles the `edges` list into a validated CompiledGraph (every check raises a ValueError)."""
  graph = Graph.from_edge_items(edges)
  graph.validate_graph()
  return graph.compiled()
