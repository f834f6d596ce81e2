"""Bad graphs fail at construction with a ValueError that names the node or edge and the fix."""

import pytest

from adk_nb import Agent, Workflow
from adk_nb.testing import ScriptedModel
from adk_nb.workflow import DEFAULT_ROUTE, START, Edge, FunctionNode, JoinNode, node


def a(node_input):
  return "a"


def b(node_input):
  return "b"


def c(node_input):
  return "c"


@pytest.mark.parametrize("edges, message", [
    ([("START", a), ("START", FunctionNode(func=b, name="a"))], r"Duplicate node names found: \['a'\]"),
    ([(a, b)], r"START node \(name: '__START__'\) not found"),
    ([Edge(from_node=START, to_node=a, route="x")], "Edges from START must not have routes"),
    ([("START", a), (b, c)], r"unreachable from START: \['b', 'c'\]"),
    ([("START", a), (a, "START")], "START node must not have incoming edges"),
    ([("START", a, b), (a, b)], "Duplicate edge found: from=a, to=b"),
    ([("START", a, {"x": b}), (a, {"x": b})], "Duplicate edge found: from=a, to=b"),
    ([("START", a), Edge(from_node=a, to_node=b, route=["x", DEFAULT_ROUTE])], "DEFAULT_ROUTE cannot be combined with other routes"),
    ([("START", a, b, a)], r"Unconditional cycle detected: a -> b -> a"),
    ([("START", a, {1.5: b})], "Invalid routing map key: 1.5"),
    ([("START", a, {})], "Routing map must not be empty"),
    ([("START", a, {"x": b}, {"y": c})], "Consecutive routing maps are not allowed"),
    ([("START", 42)], "Invalid node type int"),
    (["START"], "must be a chain tuple"),
    ([("START", "b")], "strings other than 'START' are not nodes"),
    ([("START", lambda node_input: 1)], "give it a name"),
])
def test_invalid_graphs_fail_at_construction(edges, message):
  with pytest.raises(ValueError, match=message):
    Workflow(name="w", edges=edges)


def test_valid_on_purpose_routed_loops_reuse_and_disjoint_routes():
  Workflow(name="w", edges=[("START", a, {"again": a, "done": b})])
  Workflow(name="w", edges=[("START", a, b), (b, {"back": a})])
  Workflow(name="w", edges=[("START", a, {"x": b}), (a, {"y": b})])


def test_schema_mismatch_on_an_edge():
  from pydantic import BaseModel

  class In(BaseModel):
    x: int

  class Out(BaseModel):
    y: int

  def produce(node_input) -> Out:
    return Out(y=1)

  def consume(node_input: In):
    return node_input

  with pytest.raises(ValueError, match="Schema mismatch on edge produce -> consume"):
    Workflow(name="w", edges=[("START", produce, consume)])


def test_node_names_must_be_identifiers_and_node_options_are_checked():
  with pytest.raises(ValueError, match="Invalid node name 'bad name'"):
    FunctionNode(func=a, name="bad name")
  with pytest.raises(ValueError, match="not supported by adk_nb yet: \\['on_error'\\]"):
    node(a, on_error=True)
  with pytest.raises(ValueError, match="auth_config must be an AuthConfig"):
    node(a, auth_config=object())
  with pytest.raises(ValueError, match="auth_config=...\\) applies to a function"):
    node(Agent(name="helper", model=ScriptedModel(["x"])), auth_config=object())
  with pytest.raises(ValueError, match="require_confirmation needs rerun_on_resume=True"):
    FunctionNode(func=a, require_confirmation=True, rerun_on_resume=False)
  assert FunctionNode(func=a, require_confirmation=True).rerun_on_resume  # implied (google-adk makes you pass it)
  with pytest.raises(ValueError, match="max_parallel_workers can only be set when parallel_worker is True"):
    node(a, max_parallel_workers=2)


def test_workflow_rejects_sub_agents_and_state_schema_checks_parameters():
  from pydantic import BaseModel

  from adk_nb.agents import LlmAgent

  with pytest.raises(ValueError, match="Workflow has no sub_agents: put agents in edges"):
    Workflow(name="w", sub_agents=[LlmAgent(name="x", model="scripted")])

  class S(BaseModel):
    city: str

  def needs(city, country):
    return city

  from adk_nb.sessions.state import StateSchemaError

  with pytest.raises(StateSchemaError, match=r"reads state keys \[.country.\]"):
    Workflow(name="w", edges=[("START", needs)], state_schema=S)


def test_the_chain_forms_produce_the_edges_the_spec_lists():
  join = JoinNode(name="join")
  wf = Workflow(name="w", edges=[("START", a, (b, c), join), (join, {"x": a, DEFAULT_ROUTE: b})])
  g = wf.graph
  assert [(e.from_node.name, e.to_node.name, e.route) for e in g.edges] == [
      ("__START__", "a", None), ("a", "b", None), ("a", "c", None), ("b", "join", None), ("c", "join", None),
      ("join", "a", "x"), ("join", "b", DEFAULT_ROUTE)]
  assert g.get_next_pending_nodes("join", "x") == ["a"]
  assert g.get_next_pending_nodes("join", "other") == ["b"]


def test_the_same_function_in_several_chains_is_one_node():
  wf = Workflow(name="w", edges=[("START", a), (a, b), (a, c)])
  assert [n.name for n in wf.graph.nodes] == ["__START__", "a", "b", "c"]
  assert wf.graph.get_next_pending_nodes("a", None) == ["b", "c"]


async def test_a_graph_built_from_edges_infers_its_nodes_routes_and_runs_in_a_workflow():
  from adk_nb import InMemoryRunner
  from adk_nb.testing import run_turn
  from adk_nb.workflow._graph import Graph

  def build():
    na, nb, nc = FunctionNode(func=a), FunctionNode(func=b), FunctionNode(func=c)
    return Graph(edges=[Edge(from_node=START, to_node=na), Edge(from_node=na, to_node=nb, route="a"),
                        Edge(from_node=na, to_node=nc, route=DEFAULT_ROUTE)])

  graph = build()
  assert [n.name for n in graph.nodes] == ["__START__", "a", "b", "c"]
  assert graph.get_next_pending_nodes("a", "a") == ["b"]
  assert graph.get_next_pending_nodes("a", ["x", "y"]) == ["c"]
  graph.validate_graph()
  events = await run_turn(InMemoryRunner(Workflow(name="w", graph=graph), app_name="app"), "go")
  last = [e for e in events if e.output is not None][-1]
  assert (last.node_info.path, last.output, last.node_info.output_for) == ("w@1/c@1", "c", ["w@1/c@1", "w@1"])
  # As google-adk 2.13: a graph passed in without validate_graph() has no terminal nodes (no workflow output).
  events = await run_turn(InMemoryRunner(Workflow(name="w", graph=build()), app_name="app"), "go")
  assert [e for e in events if e.output is not None][-1].node_info.output_for == ["w@1/c@1"]


def test_a_graph_takes_no_nodes_and_a_graph_passed_in_is_validated():
  from adk_nb.workflow._graph import Graph

  with pytest.raises(ValueError, match="Nodes are inferred from edges"):
    Graph(nodes=[START], edges=[])
  cyclic = Graph(edges=[Edge(from_node=START, to_node=a), Edge(from_node=a, to_node=b), Edge(from_node=b, to_node=a)])
  with pytest.raises(ValueError, match="Unconditional cycle detected: a -> b -> a"):
    Workflow(name="w", graph=cyclic)


def test_parse_and_validate_are_google_adks_private_modules():
  from adk_nb.workflow.utils._graph_parser import parse_edge_items
  from adk_nb.workflow.utils._graph_validation import validate_graph

  edges = parse_edge_items([("START", a, {"x": (b, c)}, JoinNode(name="j"))])
  assert [(e.from_node.name, e.to_node.name, e.route) for e in edges] == [
      ("__START__", "a", None), ("a", "b", "x"), ("a", "c", "x"), ("b", "j", None), ("c", "j", None)]
  assert edges[0].to_node is edges[1].from_node
  nodes = list({id(n): n for e in edges for n in (e.from_node, e.to_node)}.values())
  assert validate_graph(nodes, edges) == {"j"}
  with pytest.raises(ValueError, match=r"Invalid node in fan-out tuple for route 'x'"):
    parse_edge_items([("START", a, {"x": (b, 42)})])
  with pytest.raises(ValueError, match=r"Invalid routing map value for route 'x'"):
    parse_edge_items([("START", a, {"x": 42})])
