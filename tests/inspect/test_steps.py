"""The step model: events and progress points folded into the tree every view draws."""

from __future__ import annotations

import pathlib

from adk_nb import Agent
from adk_nb.agents import LoopAgent, ParallelAgent, SequentialAgent
from adk_nb.inspect import LABELS, STATUS_TEXT, steps_of
from adk_nb.inspect.text import readable_hint
from adk_nb.models import ScriptedModel, call
from adk_nb.tools import FunctionTool, exit_loop
import adk_nb.notebook as nb

REPO = pathlib.Path(__file__).resolve().parents[2]


def outline(builder, kinds=None):
  """[(depth, kind, title, status)] in tree order."""
  kids: dict = {}
  for step in builder.steps.values():
    kids.setdefault(step.parent, []).append(step)
  out = []

  def walk(parent, depth):
    for step in kids.get(parent, []):
      if kinds is None or step.kind in kinds:
        out.append((depth, step.kind, step.title, step.status))
      walk(step.id, depth + 1)
  walk(None, 0)
  return out


def loop_and_parallel():
  critic = Agent(name="critic", model=ScriptedModel(["c1", "c2", call("exit_loop")]), tools=[exit_loop])
  reviser = Agent(name="reviser", model=ScriptedModel(["r1", "r2"]))
  loop = LoopAgent(name="review", sub_agents=[critic, reviser], max_iterations=5)
  a = Agent(name="a", model=ScriptedModel(["A"], latency=0.3))
  b = Agent(name="b", model=ScriptedModel(["B"], latency=0.3))
  return SequentialAgent(name="root", sub_agents=[ParallelAgent(name="fan", sub_agents=[a, b]), loop])


def test_loop_runs_in_time_order_inside_numbered_iterations():
  run = nb.run(loop_and_parallel(), "go", store="memory://", view=False)
  assert run.status == "done"
  tree = outline(run.steps, kinds={"loop", "iteration", "agent", "model_call"})
  loop_part = tree[[kind for _, kind, _, _ in tree].index("loop"):]
  assert [(kind, title) for _, kind, title, _ in loop_part] == [
      ("loop", "review"),
      ("iteration", "iteration 1"), ("agent", "critic"), ("model_call", "scripted"), ("agent", "reviser"),
      ("model_call", "scripted"),
      ("iteration", "iteration 2"), ("agent", "critic"), ("model_call", "scripted"), ("agent", "reviser"),
      ("model_call", "scripted"),
      ("iteration", "iteration 3"), ("agent", "critic"), ("model_call", "scripted")]
  texts = [s.text for s in run.steps.steps.values() if s.kind == "model_call"]
  assert texts[2:] == ["c1", "r1", "c2", "r2", ""]


class Review(LoopAgent):
  """A LoopAgent subclass: its run still has a loop step with numbered iterations."""


def test_a_loop_agent_subclass_runs_in_numbered_iterations():
  critic = Agent(name="critic", model=ScriptedModel(["c1", call("exit_loop")]), tools=[exit_loop])
  reviser = Agent(name="reviser", model=ScriptedModel(["r1"]))
  run = nb.run(Review(name="review", sub_agents=[critic, reviser], max_iterations=5), "go", store="memory://",
               view=False)
  tree = outline(run.steps, kinds={"loop", "iteration", "agent"})
  assert [(depth, kind, title) for depth, kind, title, _ in tree] == [
      (1, "loop", "review"), (2, "iteration", "iteration 1"), (3, "agent", "critic"), (3, "agent", "reviser"),
      (2, "iteration", "iteration 2"), (3, "agent", "critic")]


def test_parallel_branches_are_lanes_and_each_model_call_times_itself():
  run = nb.run(loop_and_parallel(), "go", store="memory://", view=False)
  steps = list(run.steps.steps.values())
  [fan] = [s for s in steps if s.kind == "parallel"]
  lanes = [s for s in steps if s.parent == fan.id]
  assert [(s.title, s.branch) for s in lanes] == [("a", "fan.a"), ("b", "fan.b")]
  for lane in lanes:
    [model] = [s for s in steps if s.parent == lane.id and s.kind == "model_call"]
    # Each model slept 300 ms concurrently: each call's own latency shows it, not the gap since the last event.
    assert model.model == "scripted" and model.ms >= 290, (lane.title, model.ms)
  assert [s.kind for s in steps if s.parent is None] == ["invocation"]


def test_every_model_call_is_a_step_with_its_calls_under_it():
  def lookup(q: str) -> dict:
    """Looks up."""
    return {"found": q}

  agent = Agent(name="helper", model=ScriptedModel([call("lookup", q="x"), call("lookup", q="y"), "done"]),
                tools=[lookup])
  run = nb.run(agent, "hi", store="memory://", view=False)
  assert [(d, k, t) for d, k, t, _ in outline(run.steps)] == [
      (0, "invocation", f"invocation {run.invocation_id[:12]}"), (1, "user", "user"), (1, "agent", "helper"),
      (2, "model_call", "scripted"), (3, "tool_call", 'lookup(q="x")'),
      (2, "model_call", "scripted"), (3, "tool_call", 'lookup(q="y")'),
      (2, "model_call", "scripted")]
  # Stored events (no progress points) give the same tree.
  stored = steps_of(run.events)
  assert [(d, k) for d, k, _, _ in outline(stored)] == [(d, k) for d, k, _, _ in outline(run.steps)]


def test_tool_arguments_and_results_read_on_one_line_when_short_and_indented_when_longer():
  def lookup(q: str) -> dict:
    """Looks up."""
    return {"found": q, "notes": ["n" * 30, "m" * 30]}

  agent = Agent(name="helper", model=ScriptedModel([call("lookup", q="x"), call("lookup", q="y" * 30_000), "done"]),
                tools=[lookup])
  run = nb.run(agent, "hi", store="memory://", view=False)
  short, huge = [n for n in run.steps.nodes() if n["kind"] == "tool_call"]
  assert short["text"] == '{"q": "x"}'
  assert short["result"].startswith('{\n  "found": "x",\n  "notes": [')
  # Too long to show whole: compact, cut, the rest in its details panel.
  assert huge["text"].startswith('{"q": "yyy') and "more characters: see details" in huge["text"]


def test_a_rejection_shows_as_rejected_with_its_reason_never_ok(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Not refunded."])
  run = nb.run(agent, "Refund A1", store="memory://", view=False)
  run.reject("over the limit")
  assert refunds == []
  by_kind = {}
  for step in run.steps.steps.values():
    by_kind.setdefault(step.kind, []).append(step)
  [tool] = by_kind["tool_call"]
  [approval] = by_kind["approval"]
  assert (tool.status, tool.text) == ("rejected", "over the limit")
  assert (approval.status, approval.text, approval.parent) == ("rejected", "over the limit", tool.id)
  assert by_kind["decision"][0].parent == approval.id
  # Without a reason it is still "rejected", not "error".
  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Not refunded."])
  run = nb.run(agent, "Refund A1", store="memory://", view=False)
  run.reject()
  assert [s.status for s in run.steps.steps.values() if s.kind == "tool_call"] == ["rejected"]


def test_an_approval_step_hides_the_default_hint_and_shows_a_tools_own(make_refund_agent):
  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = nb.run(agent, "Refund A1", store="memory://", view=False)
  [approval] = [s for s in run.steps.steps.values() if s.kind == "approval"]
  assert (approval.status, approval.text) == ("pending", "")  # the default hint advises API clients
  # A session google-adk wrote carries its own default hint, which begins like this.
  assert readable_hint("Please approve or reject the tool call refund() by ...") == ""
  assert readable_hint("Refunds over 100 need a manager.") == "Refunds over 100 need a manager."


def test_an_approved_tool_is_timed_from_the_approval_not_from_the_request(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = nb.run(agent, "Refund A1", store="memory://", view=False)
  run.approve()
  [tool] = [s for s in run.steps.steps.values() if s.kind == "tool_call"]
  [approval] = [s for s in run.steps.steps.values() if s.kind == "approval"]
  assert tool.status == "ok" and approval.status == "approved"
  assert tool.t0 >= approval.t1  # the person's wait is the approval's, not the tool's


async def test_the_user_message_shows_before_the_model_answers(make_refund_agent):
  agent = Agent(name="slow", model=ScriptedModel(["late"], latency=0.2))
  run = nb.run(agent, "hello there", store="memory://")  # in a running loop: returns at once
  assert run.status == "running"
  assert [(n["kind"], n["text"]) for n in run.steps.nodes()] == [("invocation", ""), ("user", "hello there")]
  await run
  assert [n["kind"] for n in run.steps.nodes()] == ["invocation", "user", "agent", "model_call"]


def test_one_label_table_everywhere():
  js = (REPO / "widgets" / "event_tree.js").read_text()
  assert "LABELS = {" not in js  # the browser gets the table from Python (labels trait)
  assert set(LABELS) >= {"user", "model_call", "text", "tool_call", "approval", "input_request", "transfer",
                         "escalate", "error", "state", "decision", "node"}
  assert all(any(ch.isalpha() for ch in text) and not text[0].isalpha() for text in STATUS_TEXT.values())
  agent = Agent(name="support_bot", model=ScriptedModel(["hi"]))
  run = nb.run(agent, "hi", store="memory://")
  html = run.view._repr_mimebundle_()["text/html"]
  assert "<b>support_bot</b>" in html and "adk_nb run" not in html
  assert f">{LABELS['model_call']}<" in html and f">{LABELS['invocation']}<" in html
  assert STATUS_TEXT["done"] in html
  assert run.view.tree.labels == LABELS


def test_trace_rows_and_figure_mark_human_waits_and_lanes(make_refund_agent):
  from adk_nb.inspect.timeline import trace

  run = nb.run(loop_and_parallel(), "go", store="memory://", view=False)
  spans = trace(run.steps).spans
  assert {s.lane for s in spans if s.kind == "model_call"} == {"a (fan.a)", "b (fan.b)", "critic", "reviser"}
  assert all(s.end >= s.start >= 0 and not s.running for s in spans)
  figure = run.timeline()
  assert {t.name for t in figure.data} >= {"agent", "model", "parallel", "loop"}
  assert list(figure.layout.yaxis.ticktext) == ["\u2003" * s.depth + s.label for s in spans]  # the same rows
  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  paused = nb.run(agent, "Refund A1", store="memory://", view=False)
  [wait] = [s for s in trace(paused.steps).spans if s.human]
  assert wait.running and wait.label.startswith("human wait: approval refund(")
  assert "human wait" in {t.name for t in paused.timeline().data}


def test_workflow_nodes_are_steps_keyed_by_node_path():
  from adk_nb import Workflow

  def shout(node_input: str):
    return node_input.upper()

  def punctuate(node_input: str):
    return node_input + "!"

  flow = Workflow(name="pipeline", edges=[("START", shout, punctuate)])
  run = nb.run(flow, "hello", store="memory://", view=False)
  assert run.status == "done", run.error
  nodes = [s for s in run.steps.steps.values() if s.kind == "node"]
  assert [(n.path, n.title, n.status, n.text) for n in nodes] == [
      ("pipeline@1/shout@1", "shout@1", "ok", '"HELLO"'), ("pipeline@1/punctuate@1", "punctuate@1", "ok", '"HELLO!"')]
  [workflow] = [s for s in run.steps.steps.values() if s.title == "pipeline" and s.kind != "invocation"]
  assert {n.parent for n in nodes} == {workflow.id}
  assert LABELS["node"] == "node"


def review_flow():
  """A workflow with an agent node run twice (a routed loop back), three parallel checks and a person's answer."""
  from adk_nb import Context, Workflow
  from adk_nb.events import RequestInput
  from adk_nb.workflow import JoinNode

  writer = Agent(name="writer", model=ScriptedModel(["draft.", "draft!"]), instruction="Write.")

  def critic(ctx: Context, node_input: str):
    ctx.route = "ok" if node_input.endswith("!") else "revise"
    return node_input

  async def spelling(node_input: str):
    return "ok"

  async def tone(node_input: str):
    return "upbeat"

  async def ask(node_input: dict):
    yield RequestInput(message="Publish <b>this</b>?", payload={"checks": node_input})

  def publish(node_input: dict):
    return "published" if node_input.get("approved") else "kept"

  return Workflow(name="blurbs", edges=[
      ("START", writer, critic, {"revise": writer, "ok": (spelling, tone)}),
      ((spelling, tone), JoinNode(name="checks"), ask, publish)])


def test_a_workflow_run_is_grouped_by_node_path_live_and_stored_alike():
  run = nb.run(review_flow(), "coffee", store="memory://", view=False)
  assert run.status == "paused", run.error
  kinds = {"workflow", "node", "model_call", "input_request"}
  paused = [(d, k, t, s) for d, k, t, s in outline(run.steps, kinds)]
  assert paused == [
      (1, "workflow", "blurbs", "paused"),
      (2, "node", "writer@1", "done"), (3, "model_call", "scripted", "ok"),
      (2, "node", "critic@1", "ok"),
      (2, "node", "writer@2", "done"), (3, "model_call", "scripted", "ok"),
      (2, "node", "critic@2", "ok"),
      (2, "node", "spelling@1", "ok"), (2, "node", "tone@1", "ok"), (2, "node", "checks@1", "ok"),
      (2, "node", "ask@1", "pending"), (3, "input_request", '"Publish <b>this</b>?"', "pending")]
  [item] = run.pending
  run.decide(item, "respond", {"approved": True})
  assert run.status == "done", run.error
  live = outline(run.steps, kinds)
  # The resume goes on inside the same workflow step: one workflow, the new node last, the wait answered.
  assert [(k, t) for _, k, t, _ in live].count(("workflow", "blurbs")) == 1
  assert live[-3:] == [(2, "node", "ask@1", "ok"), (3, "input_request", '"Publish <b>this</b>?"',
                                                    "responded"), (2, "node", "publish@1", "ok")]
  stored = steps_of(run.events)
  assert [(d, k, t) for d, k, t, _ in outline(stored, kinds - {"model_call"})] == \
      [(d, k, t) for d, k, t, _ in live if k != "model_call"]
  # Stored events have no progress points: the second writer node still holds its input and its model call.
  writer = [s for s in stored.steps.values() if s.title == "writer@2"][0]
  assert [s.kind for s in stored.steps.values() if s.parent == writer.id] == ["user", "model_call"]


def test_a_long_streamed_answer_is_kept_to_what_the_view_shows_until_the_whole_answer_arrives():
  from google.genai import types

  from adk_nb.events.event import Event
  from adk_nb.inspect import StepBuilder
  from adk_nb.inspect.text import NODE_TEXT_LIMIT

  builder = StepBuilder()
  cursor = builder.follow()
  answer = "".join(f"{i:05d}" for i in range(3 * NODE_TEXT_LIMIT // 5))  # 3x the limit, in 5-character chunks
  chunks = [answer[i:i + 5] for i in range(0, len(answer), 5)]
  for chunk in chunks:
    builder.add_event(Event(id="m1", invocation_id="i", author="a", partial=True,
                            content=types.Content(role="model", parts=[types.Part(text=chunk)])))
  (step,) = [s for s in builder.steps.values() if s.kind == "model_call"]
  # Grown only until it passes what the view shows, not chunk by chunk to the end.
  assert NODE_TEXT_LIMIT < len(step.text) <= NODE_TEXT_LIMIT + 5 and answer.startswith(step.text)
  (sent,) = [op[1]["text"] for op in builder.take_ops(cursor)[0] if op[0] == "add" and op[1]["kind"] == "model_call"]
  shown, _, more = sent.partition("…")
  assert shown == answer[:NODE_TEXT_LIMIT] and "more characters" in more
  builder.add_event(Event(id="m1", invocation_id="i", author="a",
                          content=types.Content(role="model", parts=[types.Part(text=answer)])))
  assert step.text == answer and step.status == "ok"
  (node,) = [n for n in builder.nodes() if n["kind"] == "model_call"]
  assert node["text"].startswith(answer[:NODE_TEXT_LIMIT] + "… (8,000 more characters")  # the tree gets the cut text
