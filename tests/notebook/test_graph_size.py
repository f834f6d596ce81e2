"""The graph is as wide as what it draws: no room for edge labels a picture does not have (issue 30 item 9)."""

from adk_nb import Agent, Context, Workflow
from adk_nb.models import ScriptedModel
from adk_nb.notebook.graph import graph_view


def test_a_tree_of_agents_is_as_wide_as_its_nodes_and_a_loop_leaves_room_for_its_label():
  small = Agent(name="root", model=ScriptedModel([]), sub_agents=[Agent(name="helper", model=ScriptedModel([]))])
  data = graph_view(small).graph
  assert data["width"] == max(n["x"] for n in data["nodes"]) + 70  # half a node and a 2 px margin

  writer = Agent(name="writer", model=ScriptedModel([]))

  def critic(ctx: Context, node_input: str):
    ctx.route = "ok"
    return node_input

  def publish(node_input: str):
    return node_input

  looped = Workflow(name="w", edges=[("START", writer, critic, {"revise and try again": writer, "ok": publish})])
  data = graph_view(looped).graph
  rightmost = max(n["x"] for n in data["nodes"]) + 68
  # The arc drawn right of the loop's nodes (36 px out) and its label (about 6 px a character) fit.
  assert data["width"] >= rightmost + 36 + len("revise and try again") * 6
