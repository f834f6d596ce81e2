"""Checks a workflow graph when it is built; each failure is a GraphValidationError naming the fix.

The checks, in google-adk 2.x's order: duplicate node names, START present, no route on START's
edges, every node reachable from START and no edge into START, no duplicate edge, DEFAULT_ROUTE
alone on its edge, no cycle of unrouted edges, matching schemas on each edge, chat-mode agents
only right after START, and each node's own `_validate_outgoing_edges`. Valid on purpose: a routed
loop, one object used in several chains, two edges between one pair with disjoint routes.
"""

from __future__ import annotations

from typing import Any, Optional

from .._base_node import START, BaseNode
from .._errors import GraphValidationError
from .._graph import DEFAULT_ROUTE, Edge

__all__ = ["validate_graph"]

_FAILED = "Graph validation failed. "


def _validate_duplicate_node_names(nodes: list[BaseNode]) -> set[str]:
  names: set[str] = set()
  duplicates: set[str] = set()
  for node in nodes:
    (duplicates if node.name in names else names).add(node.name)
  if duplicates:
    raise GraphValidationError(
        f"{_FAILED}Duplicate node names found: {sorted(duplicates)}. This means multiple distinct node objects "
        "have the same name. If you intended to reuse the same node, ensure you pass the exact same object "
        "instance. If you intended to have distinct nodes, ensure they have unique names."
    )
  return names


def _validate_start_node(names: set[str]) -> None:
  if START.name not in names:
    raise GraphValidationError(
        f"{_FAILED}START node (name: '{START.name}') not found in graph nodes. Begin a chain with 'START', "
        "e.g. ('START', first_node)."
    )


def _validate_start_edges(edges: list[Edge]) -> None:
  for edge in edges:
    if edge.from_node.name == START.name and edge.route is not None:
      raise GraphValidationError(
          f"{_FAILED}Edges from START must not have routes (edge to {edge.to_node.name} has route "
          f"{edge.route}). Route from a node instead."
      )


def _validate_connectivity(edges: list[Edge], names: set[str]) -> None:
  successors: dict[str, set[str]] = {name: set() for name in names}
  into_start = False
  for edge in edges:
    successors[edge.from_node.name].add(edge.to_node.name)
    into_start = into_start or edge.to_node.name == START.name
  reached: set[str] = set()
  stack = [START.name]
  while stack:
    name = stack.pop()
    if name not in reached:
      reached.add(name)
      stack.extend(successors[name] - reached)
  unreachable = names - reached
  if unreachable:
    raise GraphValidationError(
        f"{_FAILED}The following nodes are unreachable from START: {sorted(unreachable)}. Add an edge into "
        "each of them (or remove them)."
    )
  if into_start:
    raise GraphValidationError(f"{_FAILED}START node must not have incoming edges.")


def _route_set(route: Any) -> set:
  if route is None:
    return {None}
  return set(route) if isinstance(route, list) else {route}


def _validate_duplicate_edges(edges: list[Edge]) -> None:
  seen: dict[tuple[str, str], set] = {}
  for edge in edges:
    key = (edge.from_node.name, edge.to_node.name)
    routes = _route_set(edge.route)
    previous = seen.get(key)
    if previous is None:
      seen[key] = set(routes)
    elif None in previous or None in routes or not previous.isdisjoint(routes):
      raise GraphValidationError(
          f"{_FAILED}Duplicate edge found: from={key[0]}, to={key[1]}. Give the two edges disjoint routes "
          "or keep one."
      )
    else:
      previous.update(routes)


def _validate_default_routes(edges: list[Edge]) -> None:
  for edge in edges:
    if isinstance(edge.route, list) and DEFAULT_ROUTE in edge.route:
      raise GraphValidationError(
          f"{_FAILED}DEFAULT_ROUTE cannot be combined with other routes in a list (edge from="
          f"{edge.from_node.name}, to={edge.to_node.name}). Use a separate edge for DEFAULT_ROUTE."
      )


def _detect_unconditional_cycles(edges: list[Edge], names: list[str]) -> None:
  successors: dict[str, list[str]] = {name: [] for name in names}
  for edge in edges:
    if edge.route is None:
      successors[edge.from_node.name].append(edge.to_node.name)
  on_path: dict[str, int] = {}
  done: set[str] = set()
  path: list[str] = []

  def visit(name: str) -> Optional[list[str]]:
    on_path[name] = len(path)
    path.append(name)
    for nxt in successors[name]:
      if nxt in on_path:
        return path[on_path[nxt]:] + [nxt]
      if nxt not in done:
        found = visit(nxt)
        if found:
          return found
    path.pop()
    del on_path[name]
    done.add(name)
    return None

  for name in names:
    if name not in done:
      cycle = visit(name)
      if cycle:
        raise GraphValidationError(
            f"{_FAILED}Unconditional cycle detected: {' -> '.join(cycle)}. Cycles must include at least one "
            "conditional (routed) edge to avoid infinite loops, e.g. (check, {'again': step, 'done': finish})."
        )


def _validate_static_schemas(edges: list[Edge]) -> None:
  for edge in edges:
    produced, expected = edge.from_node.output_schema, edge.to_node.input_schema
    if produced and expected and produced != expected:
      raise GraphValidationError(
          f"{_FAILED}Schema mismatch on edge {edge.from_node.name} -> {edge.to_node.name}. Output schema "
          f"{getattr(produced, '__name__', produced)} does not match input schema "
          f"{getattr(expected, '__name__', expected)}; make them one type or put a converting node between."
      )


def _validate_chat_agent_wiring(edges: list[Edge]) -> None:
  from ...agents.llm_agent import LlmAgent

  for edge in edges:
    node = edge.to_node
    if isinstance(node, LlmAgent) and node.mode == "chat" and edge.from_node.name != START.name:
      raise GraphValidationError(
          f"The agent '{node.name}' has been added to the workflow with mode='chat' following node "
          f"'{edge.from_node.name}'. This is not supported because chat-mode agents rely on conversational "
          "history (session events) and cannot consume direct node inputs from preceding nodes. Please change "
          "the agent's mode to 'single_turn'"
      )


def _validate_node_outgoing_edges(nodes: list[BaseNode], edges: list[Edge]) -> None:
  outgoing: dict[int, list[Edge]] = {id(node): [] for node in nodes}
  for edge in edges:
    outgoing[id(edge.from_node)].append(edge)
  for node in nodes:
    node._validate_outgoing_edges(outgoing[id(node)])


def validate_graph(nodes: list[BaseNode], edges: list[Edge]) -> set[str]:
  """Checks the graph; returns the names of its terminal nodes (nodes other than START with no way out)."""
  names = _validate_duplicate_node_names(nodes)
  _validate_start_node(names)
  _validate_start_edges(edges)
  _validate_connectivity(edges, names)
  _validate_duplicate_edges(edges)
  _validate_default_routes(edges)
  _detect_unconditional_cycles(edges, [node.name for node in nodes])
  _validate_static_schemas(edges)
  _validate_chat_agent_wiring(edges)
  _validate_node_outgoing_edges(nodes, edges)
  sources = {edge.from_node.name for edge in edges}
  return {node.name for node in nodes if node.name != START.name and node.name not in sources}
