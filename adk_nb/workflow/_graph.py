"""The edges DSL: parsing chains, fan-outs and routing maps into a validated graph."""

from __future__ import annotations

import logging
from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict

from ._base_node import START, BaseNode
from ._errors import GraphValidationError, WorkflowConfigurationError

logger = logging.getLogger("adk_nb.workflow")

RouteValue = Union[bool, int, str]
DEFAULT_ROUTE = "__DEFAULT__"
"""Route key of the edge taken when no other routed edge of the node matches."""


class Edge(BaseModel):
  """An explicit edge: `to_node` runs after `from_node`, when `route` matches (always when None)."""

  model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

  from_node: Any
  to_node: Any
  route: Optional[Union[RouteValue, list[RouteValue]]] = None


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


class Graph:
  """Nodes (in first-seen order), edges, and what the scheduler needs: successors, predecessors, terminals."""

  def __init__(self, nodes: dict[str, BaseNode], edges: list[tuple[BaseNode, BaseNode, Any]]):
    self.nodes = nodes
    self.edges = edges
    self.out: dict[str, list[_Out]] = {name: [] for name in nodes}
    self.preds: dict[str, list[str]] = {name: [] for name in nodes}
    for src, dst, route in edges:
      self.out[src.name].append(_Out(dst.name, route))
      if src.name not in self.preds[dst.name]:
        self.preds[dst.name].append(src.name)
    self.terminals = frozenset(n for n in nodes if n != START.name and not self.out[n])

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


def parse(edges: list[Any]) -> Graph:
  """Compiles the `edges` list into a Graph and validates it (every check raises a ValueError)."""
  nodes: dict[str, BaseNode] = {START.name: START}
  built: dict[int, BaseNode] = {}
  compiled: list[tuple[BaseNode, BaseNode, Any]] = []
  duplicates: list[str] = []

  def get(obj: Any) -> BaseNode:
    from ._node import build_node

    key = id(obj)
    node = built.get(key)
    if node is None:
      node = build_node(obj)
      built[key] = node
      other = nodes.get(node.name)
      if other is not None and other is not node:
        duplicates.append(node.name)
      else:
        nodes[node.name] = node
    return node

  def targets(element: Any) -> list[BaseNode]:
    if isinstance(element, (tuple, list)):
      if not element:
        raise WorkflowConfigurationError("An empty tuple in a chain has no nodes; remove it.")
      return [get(e) for e in element]
    return [get(element)]

  for index, item in enumerate(edges):
    if isinstance(item, Edge):
      route = item.route
      _check_route(route, where=f"Edge #{index}")
      compiled.append((get(item.from_node), get(item.to_node), route))
      continue
    if not isinstance(item, (tuple, list)):
      raise WorkflowConfigurationError(
          f"edges[{index}] is a {type(item).__name__}; each item of edges must be a chain tuple such as "
          "('START', a, b) or an Edge(from_node=..., to_node=...)."
      )
    if item and isinstance(item[0], dict):
      raise WorkflowConfigurationError(
          f"edges[{index}] starts with a Routing map; a chain must start with a node: (node, {{route: next}})."
      )
    sources: list[BaseNode] = []
    previous_was_map = False
    for element in item:
      if isinstance(element, dict):
        if previous_was_map:
          raise WorkflowConfigurationError(
              f"edges[{index}] has two Routing maps in a row; put a node between them."
          )
        if not element:
          raise WorkflowConfigurationError(f"edges[{index}] has an empty Routing map; give it route: node entries.")
        following: list[BaseNode] = []
        for key, value in element.items():
          if not isinstance(key, (str, int, bool)):
            raise WorkflowConfigurationError(
                f"Routing map keys must be str, int or bool; edges[{index}] has {key!r} "
                f"({type(key).__name__})."
            )
          for dst in targets(value):
            for src in sources:
              compiled.append((src, dst, key))
            following.append(dst)
        sources = following
        previous_was_map = True
        continue
      dsts = targets(element)
      for src in sources:
        for dst in dsts:
          compiled.append((src, dst, None))
      sources = dsts
      previous_was_map = False
  if duplicates:
    raise GraphValidationError(
        f"Duplicate node names found: {sorted(set(duplicates))}. Two different objects share a name; "
        "use one object in every chain, or give each its own name=..."
    )
  _validate(nodes, compiled)
  return Graph(nodes, compiled)


def _check_route(route: Any, where: str) -> None:
  values = route if isinstance(route, list) else [route]
  for value in values:
    if value is not None and not isinstance(value, (str, int, bool)):
      raise WorkflowConfigurationError(f"{where}: a route must be str, int or bool (or a list of them), got {value!r}.")


def _routes(route: Any) -> Optional[set]:
  if route is None:
    return None
  return set(route) if isinstance(route, list) else {route}


def _validate(nodes: dict[str, BaseNode], edges: list[tuple[BaseNode, BaseNode, Any]]) -> None:
  if not any(src is START for src, _, _ in edges):
    raise GraphValidationError(
        "START node (name: '__START__') not found in edges: begin a chain with 'START', e.g. ('START', first_node)."
    )
  for src, dst, route in edges:
    if src is START and route is not None:
      raise GraphValidationError(
          f"Edges from START must not have routes (START -> {dst.name} has route {route!r}); "
          "route from a node instead."
      )
    if dst is START:
      raise GraphValidationError(f"START node must not have incoming edges (from {src.name!r}).")
  reach = {START.name}
  frontier = [START.name]
  out: dict[str, list[tuple[str, Any]]] = {n: [] for n in nodes}
  for src, dst, route in edges:
    out[src.name].append((dst.name, route))
  while frontier:
    name = frontier.pop()
    for dst, _ in out[name]:
      if dst not in reach:
        reach.add(dst)
        frontier.append(dst)
  unreachable = [n for n in nodes if n not in reach]
  if unreachable:
    raise GraphValidationError(
        f"Nodes unreachable from START: {unreachable}. Add an edge into each of them (or remove them)."
    )
  seen: dict[tuple[str, str], list[Optional[set]]] = {}
  for src, dst, route in edges:
    routes = _routes(route)
    previous = seen.setdefault((src.name, dst.name), [])
    for other in previous:
      if routes is None or other is None or routes & other:
        raise GraphValidationError(
            f"Duplicate edge found: from={src.name}, to={dst.name}. Give the two edges disjoint routes or keep one."
        )
    previous.append(routes)
    if isinstance(route, list) and DEFAULT_ROUTE in route:
      raise GraphValidationError(
          f"The edge {src.name} -> {dst.name} lists DEFAULT_ROUTE among other routes; DEFAULT_ROUTE "
          "needs an edge of its own."
      )
  cycle = _unconditional_cycle(nodes, edges)
  if cycle:
    raise GraphValidationError(
        f"Unconditional cycle detected: {' -> '.join(cycle)}. Every loop needs a routed edge that can end it, "
        "e.g. (check, {'again': step, 'done': finish})."
    )
  for src, dst, _ in edges:
    a, b = src.output_schema, dst.input_schema
    if a is not None and b is not None and a != b:
      raise GraphValidationError(
          f"Schema mismatch on edge {src.name} -> {dst.name}: output_schema {getattr(a, '__name__', a)} "
          f"!= input_schema {getattr(b, '__name__', b)}."
      )
  for name, node in nodes.items():
    node._validate_outgoing_edges([e for e in edges if e[0] is node])


def _unconditional_cycle(nodes: dict[str, BaseNode], edges) -> Optional[list[str]]:
  succ: dict[str, list[str]] = {n: [] for n in nodes}
  for src, dst, route in edges:
    if route is None:
      succ[src.name].append(dst.name)
  state: dict[str, int] = {}
  stack: list[str] = []

  def visit(n: str) -> Optional[list[str]]:
    state[n] = 1
    stack.append(n)
    for m in succ[n]:
      if state.get(m) == 1:
        return stack[stack.index(m):] + [m]
      if m not in state:
        found = visit(m)
        if found:
          return found
    stack.pop()
    state[n] = 2
    return None

  for n in nodes:
    if n not in state:
      found = visit(n)
      if found:
        return found
  return None
