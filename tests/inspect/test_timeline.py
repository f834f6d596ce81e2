"""The trace model (`adk_nb.inspect.timeline.trace`): what the tree's timeline tab and `run.timeline()` draw."""

from __future__ import annotations

from adk_nb.inspect import Step
from adk_nb.inspect.timeline import WAIT_SHARE, steps_of_nodes, trace
from adk_nb.models import call
import adk_nb.notebook as nb


def _steps(*steps: Step) -> dict[str, Step]:
  return {s.id: s for s in steps}


def test_one_row_per_span_in_tree_order_with_whole_labels_depths_and_durations(make_refund_agent):
  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = nb.run(agent, "Refund A1", store="memory://", view=False)
  spans = trace(run.steps).spans
  assert [s.kind for s in spans][:3] == ["invocation", "agent", "model_call"]
  assert [s.depth for s in spans][:3] == [0, 1, 2]
  (tool,) = [s for s in spans if s.kind == "tool_call"]
  assert tool.label == 'tool refund(order_id="A1", amount=250.0)'  # whole, never cut
  assert all(s.duration.removesuffix(" so far").endswith((" ms", " s")) for s in spans)
  (wait,) = [s for s in spans if s.human]  # paused: the person's wait goes on
  assert wait.running and wait.duration.endswith(" so far") and wait.label.startswith("human wait: approval refund(")
  assert all(0 <= s.x0 <= s.x1 <= 1 for s in spans)


def test_a_long_wait_on_a_person_is_drawn_broken_and_does_not_squash_the_rest():
  steps = _steps(
      Step(id="i", kind="invocation", parent=None, title="run", status="done", t0=0.0, t1=100.2),
      Step(id="a", kind="agent", parent="i", title="planner", status="done", t0=0.0, t1=100.2),
      Step(id="m", kind="model_call", parent="a", title="m", status="ok", t0=0.0, t1=0.1),
      Step(id="w", kind="approval", parent="a", title="book()", status="approved", t0=0.1, t1=100.0),
      Step(id="t", kind="tool_call", parent="a", title="book()", status="ok", t0=100.0, t1=100.2))
  model = trace(steps)
  rows = {s.id: s for s in model.spans}
  assert rows["w"].broken and rows["w"].duration == "≈ 99.9 s" and rows["i"].broken
  assert not rows["m"].broken and not rows["t"].broken and rows["t"].duration == "200 ms"
  assert rows["w"].x1 - rows["w"].x0 <= WAIT_SHARE / (1 + WAIT_SHARE) + 1e-9  # the wait takes a tenth at most
  assert rows["t"].x1 - rows["t"].x0 > 0.5  # the tool call after it is drawn at its size
  assert model.axis == "0 … 100.2 s (waits on a person drawn shortened)"


def test_a_step_without_a_status_yet_reaches_now_while_the_run_goes_on_and_the_runs_end_after():
  # A workflow's root step has status '' while it runs (adk_nb.inspect.builder); the browser used to
  # draw it as a sliver while Python drew it to now.
  def steps(invocation_status: str, invocation_end):
    return _steps(
        Step(id="i", kind="invocation", parent=None, title="run", status=invocation_status, t0=10.0,
             t1=invocation_end),
        Step(id="wf", kind="workflow", parent="i", title="release", status="", t0=10.0),
        Step(id="n", kind="node", parent="wf", title="ship@1", status="ok", t0=10.5, t1=11.0))
  going = {s.id: s for s in trace(steps("running", None), now=14.0).spans}
  assert going["wf"].running and going["wf"].end == 4.0 and going["wf"].duration == "4.0 s so far"
  over = {s.id: s for s in trace(steps("done", 12.0)).spans}
  assert not over["wf"].running and over["wf"].end == 2.0 and over["wf"].duration == "2.0 s"
  assert over["n"].lane == "ship"


def test_the_trace_of_a_trees_nodes_is_the_trace_of_its_steps(make_refund_agent):
  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=20.0), "Refunded."])
  run = nb.run(agent, "Refund A1", store="memory://", view=False)
  by_nodes = trace(steps_of_nodes(run.steps.nodes()))  # a node's duration is rounded to 0.1 ms
  by_steps = trace(run.steps)
  from_nodes, from_steps = by_nodes.spans, by_steps.spans
  def same(s):
    return (s.id, s.kind, s.depth, s.lane, s.label, s.status, s.running, s.human, s.broken)
  assert [same(s) for s in from_nodes] == [same(s) for s in from_steps] and len(from_steps) >= 5
  # Ends agree in seconds to the nodes' rounding (0.05 ms each, a few of them nested), whatever the run's length.
  assert all(abs(a.x1 * by_nodes.drawn - b.x1 * by_steps.drawn) < 0.0002 for a, b in zip(from_nodes, from_steps))
