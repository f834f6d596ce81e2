"""The picture of an agent: its structure as nodes and edges, laid out by networkx, with status from a run."""

from __future__ import annotations

from adk_nb import Agent, Workflow
from adk_nb.agents import LoopAgent, ParallelAgent, SequentialAgent
from adk_nb.inspect.graph import GraphStatus, graph_of
from adk_nb.models import ScriptedModel
from adk_nb.tools import AgentTool, exit_loop
import adk_nb.notebook as nb

from tests.inspect.test_steps import review_flow


def test_a_workflow_graph_has_its_nodes_routes_and_a_layered_layout():
  graph = graph_of(review_flow()).layout()
  assert [(n.label, n.kind) for n in graph.nodes.values()] == [
      ("blurbs: START", "start"), ("writer", "agent"), ("critic", "node"), ("spelling", "node"), ("tone", "node"),
      ("checks", "join"), ("ask", "node"), ("publish", "node")]
  edges = {(e.source.split("/")[-1], e.target.split("/")[-1], e.label) for e in graph.edges}
  assert ("critic", "writer", "revise") in edges and ("critic", "spelling", "ok") in edges
  x = {n.label: n.x for n in graph.nodes.values()}
  y = {n.label: n.y for n in graph.nodes.values()}
  # Layers follow the flow top to bottom; the two parallel checks share a layer, side by side.
  assert y["blurbs: START"] < y["writer"] < y["critic"] < y["spelling"] == y["tone"] < y["checks"] < y["ask"]
  assert x["spelling"] != x["tone"]
  assert graph.width > max(x.values()) and graph.height > y["publish"]


def test_an_agent_tree_shows_sub_agents_in_order_tools_and_agent_tools():
  def lookup(q: str) -> str:
    """Looks up."""
    return q

  helper = Agent(name="helper", model=ScriptedModel([]), tools=[lookup])
  critic = Agent(name="critic", model=ScriptedModel([]), tools=[exit_loop])
  loop = LoopAgent(name="review", sub_agents=[critic, Agent(name="reviser", model=ScriptedModel([]))])
  fan = ParallelAgent(name="fan", sub_agents=[Agent(name="a", model=ScriptedModel([]), tools=[AgentTool(helper)]),
                                              Agent(name="b", model=ScriptedModel([]))])
  graph = graph_of(SequentialAgent(name="root", sub_agents=[fan, loop])).layout()
  assert {(n.id, n.kind) for n in graph.nodes.values()} == {
      ("agent:root", "sequential"), ("agent:fan", "parallel"), ("agent:review", "loop"), ("agent:a", "agent"),
      ("agent:b", "agent"), ("agent:helper", "agent"), ("tool:helper/lookup", "tool"), ("agent:critic", "agent"),
      ("tool:critic/exit_loop", "tool"), ("agent:reviser", "agent")}
  edges = {(e.source, e.target, e.label) for e in graph.edges}
  assert {("agent:root", "agent:fan", "1"), ("agent:root", "agent:review", "2"), ("agent:fan", "agent:a", "branch"),
          ("agent:a", "agent:helper", "agent tool"), ("agent:reviser", "agent:critic", "again")} <= edges
  assert len({(n.x, n.y) for n in graph.nodes.values()}) == len(graph.nodes)  # no two boxes on one spot


def test_node_status_and_run_counts_follow_the_run():
  run = nb.run(review_flow(), "coffee", store="memory://", view=False)
  graph = graph_of(review_flow())
  status = GraphStatus(graph)
  assert status.update_all(run.steps.steps)
  by_label = {graph.nodes[k].label: v for k, v in status.status.items()}
  assert by_label["writer"] == {"status": "done", "runs": 2}
  assert by_label["critic"] == {"status": "done", "runs": 2}
  assert by_label["ask"] == {"status": "paused", "runs": 1}
  assert "publish" not in by_label  # not run yet: drawn as waiting
  run.decide(run.pending[0], "respond", {"approved": True})
  assert status.update_all(run.steps.steps)
  by_label = {graph.nodes[k].label: v for k, v in status.status.items()}
  assert by_label["ask"]["status"] == "done" and by_label["publish"] == {"status": "done", "runs": 1}
  assert not status.update_all(run.steps.steps)  # nothing new: nothing to send


def test_the_picture_is_as_tall_as_its_content_with_no_empty_band_above():
  from adk_nb.inspect.graph import LAYER

  helper = Agent(name="helper", model=ScriptedModel([]))
  graph = graph_of(Agent(name="root", model=ScriptedModel([]), sub_agents=[helper])).layout()
  ys = sorted(n.y for n in graph.nodes.values())
  node_h = 40  # a node's height in the drawing (widgets/graph_view.js NODE_H)
  assert ys[0] - node_h / 2 <= 16  # the first row starts at the top, not 50 px below it
  assert graph.height - (ys[-1] + node_h / 2) <= 16  # and the drawing ends below the last row
  assert graph.height <= 2 * node_h + LAYER


def test_status_words_use_glyphs_common_fonts_have():
  from adk_nb.inspect import STATUS_TEXT
  from adk_nb.inspect.graph import GRAPH_STATUS_TEXT

  for text in [*STATUS_TEXT.values(), *GRAPH_STATUS_TEXT.values()]:
    symbol, word = text.split(" ", 1)
    assert word.replace(" ", "").isalpha()
    # U+2300-U+23FF (⏸ is U+23F8) and emoji are drawn as an empty box by many fonts.
    assert not any(0x2300 <= ord(c) <= 0x23FF or ord(c) >= 0x1F000 for c in symbol), text


class Review(LoopAgent):
  """A LoopAgent subclass, as users write them (to add a field or override a hook)."""


def test_a_subclass_of_a_workflow_agent_is_drawn_as_its_kind():
  critic = Agent(name="critic", model=ScriptedModel([]))
  reviser = Agent(name="reviser", model=ScriptedModel([]))
  graph = graph_of(Review(name="review", sub_agents=[critic, reviser]))
  assert graph.nodes["agent:review"].kind == "loop"
  edges = {(e.source, e.target, e.label) for e in graph.edges}
  assert {("agent:review", "agent:critic", "1"), ("agent:reviser", "agent:critic", "again")} <= edges


def test_a_custom_agent_class_declares_its_kind():
  class Relay(SequentialAgent):
    pass

  class Fan(Agent):
    step_kind = "parallel"  # a custom orchestrator says how it is drawn

  graph = graph_of(Relay(name="relay", sub_agents=[Fan(name="fan", model=ScriptedModel([]))]))
  assert {n.id: n.kind for n in graph.nodes.values()} == {"agent:relay": "sequential", "agent:fan": "parallel"}
