"""Parses the `edges` DSL (chains, fan-out tuples, routing maps, Edge objects) into a flat list of Edges.

- `("START", a, b)`: START->a, a->b. A tuple element fans out (or in): `(a, (b, c), d)`.
- `(a, {"x": b, "y": (c, d)})`: routed edges from a; the element after a map chains from every map target.
- The same object in several chains is one node (built once, by identity); "START" is START.
"""

from __future__ import annotations

from typing import Any

from .._base_node import START, BaseNode
from .._errors import WorkflowConfigurationError
from .._graph import Edge
from ._workflow_graph_utils import build_node, is_node_like

__all__ = ["parse_edge_items"]

_ROUTE_TYPES = (bool, int, str)


def _get_or_build_node(node_like: Any, node_map: dict[int, BaseNode]) -> BaseNode:
  """The node `node_like` stands for; the same object always gives the same node."""
  if isinstance(node_like, str) and node_like == "START":
    return START
  node = node_map.get(id(node_like))
  if node is None:
    node = build_node(node_like)
    node_map[id(node_like)] = node
    if node is not node_like:
      node_map.setdefault(id(node), node)
  return node


def _check_target(route: Any, target: Any) -> None:
  if isinstance(target, tuple):
    for item in target:
      if not is_node_like(item):
        raise WorkflowConfigurationError(
            f"Invalid node in fan-out tuple for route {route!r}: {item!r} (type {type(item).__name__}). "
            "Values must be NodeLike (BaseNode, BaseAgent, BaseTool, callable, or 'START')."
        )
  elif not is_node_like(target):
    raise WorkflowConfigurationError(
        f"Invalid routing map value for route {route!r}: {target!r} (type {type(target).__name__}). "
        "Values must be NodeLike (BaseNode, BaseAgent, BaseTool, callable, or 'START')."
    )


def _check_routing_map(routing_map: dict) -> None:
  if not routing_map:
    raise WorkflowConfigurationError(
        "Routing map must not be empty. Provide at least one route -> node mapping, e.g. {'yes': next_node}."
    )
  for route, target in routing_map.items():
    if not isinstance(route, _ROUTE_TYPES):
      raise WorkflowConfigurationError(
          f"Invalid routing map key: {route!r} (type {type(route).__name__}). Keys must be RouteValue "
          "(str, int, or bool)."
      )
    _check_target(route, target)


def _flatten(element: Any) -> list[Any]:
  """The node-likes of a chain element (a map stands for its targets)."""
  if isinstance(element, dict):
    found: list[Any] = []
    for target in element.values():
      found.extend(target if isinstance(target, tuple) else (target,))
    return found
  if isinstance(element, tuple):
    if not element:
      raise WorkflowConfigurationError("An empty tuple in a chain has no nodes; remove it.")
    return list(element)
  return [element]


def _process_chain(chain: tuple, index: int, node_map: dict[int, BaseNode]) -> list[Edge]:
  if chain and isinstance(chain[0], dict):
    raise WorkflowConfigurationError(
        f"edges[{index}] starts with a routing map; a chain must start with a node: (node, {{route: next}})."
    )
  edges: list[Edge] = []
  for source, target in zip(chain, chain[1:]):
    if isinstance(target, dict):
      if isinstance(source, dict):
        raise WorkflowConfigurationError(
            "Consecutive routing maps are not allowed in a chain. Split them into separate edge items, "
            "or put a node between them."
        )
      _check_routing_map(target)
      for route, to in target.items():
        for src in _flatten(source):
          for dst in _flatten(to):
            edges.append(Edge(from_node=_get_or_build_node(src, node_map),
                              to_node=_get_or_build_node(dst, node_map), route=route))
    else:
      for src in _flatten(source):
        for dst in _flatten(target):
          edges.append(Edge(from_node=_get_or_build_node(src, node_map),
                            to_node=_get_or_build_node(dst, node_map)))
  if len(chain) == 1:  # a lone element still names its nodes (and so fails early on a bad one)
    for item in _flatten(chain[0]):
      _get_or_build_node(item, node_map)
  return edges


def parse_edge_items(edge_items: list[Any]) -> list[Edge]:
  """The flat list of Edges that `edges` items (Edge objects and chain tuples) describe, in order."""
  node_map: dict[int, BaseNode] = {}
  edges: list[Edge] = []
  for index, item in enumerate(edge_items):
    if isinstance(item, Edge):
      edges.append(Edge(from_node=_get_or_build_node(item.from_node, node_map),
                        to_node=_get_or_build_node(item.to_node, node_map), route=item.route))
    elif isinstance(item, (tuple, list)):
      edges.extend(_process_chain(tuple(item), index, node_map))
    else:
      raise WorkflowConfigurationError(
          f"Invalid edge type: {type(item)}. edges[{index}] must be a chain tuple such as ('START', a, b) "
          "or an Edge(from_node=..., to_node=...)."
      )
  return edges
