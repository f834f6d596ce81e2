"""The graph rules on their own: GraphState moved by hand, with no event loop and no events.

Each test builds a graph from the edges DSL and plays a run: `pop_ready` hands out runs,
`complete`/`pause` report back, and what the user would observe (which node runs next, with
what input, branch and run id; the workflow's output; the checkpoint) is asserted.
"""

import json

import pytest

from adk_nb.workflow import DEFAULT_ROUTE, JoinNode, node
from adk_nb.workflow._errors import WorkflowConfigurationError, WorkflowLoopLimitError, WorkflowStalledError
from adk_nb.workflow._graph import parse
from adk_nb.workflow._graph_state import GraphState
from adk_nb.workflow._node_status import NodeStatus


def a(node_input):
  return node_input


def b(node_input):
  return node_input


def c(node_input):
  return node_input


def d(node_input):
  return node_input


def state_of(*edges, **config):
  return GraphState(parse(list(edges)), "wf@1", name="wf", **config)


def names(runs):
  return [(r.name, r.run_id) for r in runs]


def test_a_chain_runs_one_node_after_another_with_the_previous_output():
  state = state_of(("START", a, b))
  state.seed("hi")
  [run] = state.ready()
  assert (run.name, run.run_id, run.path, run.input, run.branch) == ("a", "1", "wf@1/a@1", "hi", None)
  assert state.ready() == []  # b waits for a
  assert state.complete(run, "A", True) == ["b"]
  [run] = state.ready()
  assert (run.name, run.input, run.terminal) == ("b", "A", True)
  state.complete(run, "B", True)
  assert state.ready() == [] and state.outcome() == (True, "B")


def test_a_fan_out_gives_each_branch_its_own_lane_and_the_join_gets_every_output():
  join = JoinNode(name="join")
  state = state_of(("START", a, (b, c), join, d))
  state.seed(1)
  state.complete(state.ready()[0], 1, True)
  runs = state.ready()
  assert [(r.name, r.branch) for r in runs] == [("b", "b@1"), ("c", "c@1")]
  state.complete(runs[1], "C", True)
  assert state.ready() == [] and state.status("join") is NodeStatus.INACTIVE  # the join waits for b
  state.complete(runs[0], "B", True)
  [run] = state.ready()
  assert (run.name, run.input, run.branch) == ("join", {"b": "B", "c": "C"}, None)


def test_routes_choose_the_edges_that_fire_and_default_fires_only_when_none_matched():
  state = state_of(("START", a, {"x": b, DEFAULT_ROUTE: c}))
  state.seed(0)
  assert state.complete(state.ready()[0], 0, True, route="x") == ["b"]
  state = state_of(("START", a, {"x": b, DEFAULT_ROUTE: c}))
  state.seed(0)
  assert state.complete(state.ready()[0], 0, True, route="other") == ["c"]


def test_an_unmatched_route_ends_the_branch_with_a_warning_or_raises_when_strict():
  state = state_of(("START", a, {"x": b}))
  state.seed(0)
  with pytest.warns(UserWarning, match="matches none of its routed edges"):
    assert state.complete(state.ready()[0], 0, True, route="y") == []
  strict = state_of(("START", a, {"x": b}), strict_routes=True)
  strict.seed(0)
  with pytest.raises(ValueError, match="Add an edge for that route"):
    strict.complete(strict.ready()[0], 0, True, route="y")


def test_a_loop_gives_each_iteration_a_new_run_id_and_stops_at_max_iterations():
  state = state_of(("START", a, b), (b, {"again": a}), max_iterations=3)
  state.seed(0)
  seen = []
  with pytest.raises(WorkflowLoopLimitError, match="a 4th time"):
    while True:
      [run] = state.ready()
      seen.append((run.name, run.run_id))
      state.complete(run, 0, True, route="again" if run.name == "b" else None)
  assert seen == [("a", "1"), ("b", "1"), ("a", "2"), ("b", "2"), ("a", "3"), ("b", "3")]


def test_a_node_runs_once_at_a_time_and_its_next_trigger_waits_for_the_run():
  state = state_of(("START", a, c), ("START", b, c))
  state.seed(0)
  first = state.ready()
  state.complete(first[0], "A", True)
  state.complete(first[1], "B", True)
  [run] = state.ready()  # c was triggered twice; only one run at a time
  assert (run.name, run.run_id, run.input) == ("c", "1", "A")
  assert state.status("c") is NodeStatus.RUNNING and state.ready() == []
  state.complete(run, None, True)
  [run] = state.ready()
  assert (run.name, run.run_id, run.input) == ("c", "2", "B")


def test_ready_hands_out_at_most_the_limit():
  state = state_of(("START", (a, b, c)))
  state.seed(0)
  assert names(state.ready(limit=2)) == [("a", "1"), ("b", "1")]
  assert names(state.ready()) == [("c", "1")]


def test_a_paused_node_survives_the_checkpoint_and_its_answer_becomes_its_output():
  state = state_of(("START", a, b, c))
  state.seed("hi")
  state.complete(state.ready()[0], "A", True)
  [run] = state.ready()
  state.pause(run, ["ask-1"])
  assert state.interrupts() == ["ask-1"] and state.status("b") is NodeStatus.WAITING
  saved = json.loads(json.dumps(state.to_checkpoint()))  # what a session store keeps

  resumed = GraphState.from_checkpoint(parse([("START", a, b, c)]), saved, name="wf")
  assert resumed.answer({"other": 1}, lambda node: False) == []  # not its answer: it keeps waiting
  [run] = resumed.answer({"ask-1": {"ok": True}}, lambda node: False)
  assert (run.name, run.run_id, run.answered, run.output) == ("b", "1", True, {"ok": True})
  resumed.complete(run, run.output, True)
  [run] = resumed.ready()
  assert (run.name, run.input) == ("c", {"ok": True})
  assert resumed.runs == {"a": 1, "b": 1, "c": 1}  # a and b were not run again


def test_a_node_that_reruns_on_resume_gets_the_answers_as_resume_inputs():
  state = state_of(("START", a))
  state.seed("hi")
  state.pause(state.ready()[0], ["q1", "q2"])
  [run] = state.answer({"q1": "x", "q2": "y"}, lambda node: True)
  assert (run.answered, run.resume_inputs, run.input) == (False, {"q1": "x", "q2": "y"}, "hi")


def test_queued_triggers_and_join_arrivals_survive_the_checkpoint():
  join = JoinNode(name="join")
  edges = [("START", (a, b), join), ("START", c)]
  state = state_of(*edges)
  state.seed(0)
  runs = {r.name: r for r in state.ready()}
  state.complete(runs["a"], "A", True)
  state.pause(runs["b"], ["q"])
  state.pause(runs["c"], ["r"])
  resumed = GraphState.from_checkpoint(parse(edges), json.loads(json.dumps(state.to_checkpoint())), name="wf")
  [run] = resumed.answer({"q": "B"}, lambda node: False)
  resumed.complete(run, run.output, True)
  [run] = resumed.ready()
  assert (run.name, run.input) == ("join", {"a": "A", "b": "B"})
  assert resumed.interrupts() == ["r"]  # c still waits


def test_a_join_whose_predecessor_never_completed_is_an_error_at_the_end():
  join = JoinNode(name="join")
  state = state_of(("START", a, {"x": b, "y": c}), (b, join), (c, join))
  state.seed(0)
  state.complete(state.ready()[0], 0, True, route="x")
  state.complete(state.ready()[0], "B", True)
  assert state.ready() == []
  with pytest.raises(WorkflowStalledError, match=r"predecessor\(s\) \['c'\] did not complete"):
    state.outcome()


def test_two_terminal_outputs_are_an_error_at_the_end():
  state = state_of(("START", (a, b)))
  state.seed(0)
  for run in state.ready():
    state.complete(run, run.name, True)
  with pytest.raises(WorkflowConfigurationError, match=r"multiple terminal nodes produced output: \['a', 'b'\]"):
    state.outcome()


def test_a_wait_for_output_node_that_ended_without_output_triggers_nothing():
  waiter = node(a, name="waiter")
  waiter.wait_for_output = True
  state = state_of(("START", waiter, b))
  state.seed(0)
  assert state.complete(state.ready()[0]) == []
  assert state.ready() == [] and state.outcome() == (False, None)


def test_run_node_children_are_replayed_until_their_caller_completes():
  state = state_of(("START", a))
  state.seed(0)
  [run] = state.ready()
  state.child_done("wf@1/a@1/child@1", "out")
  state.child_paused("wf@1/a@1/asker@1", ["q"], rerun=False)
  saved = json.loads(json.dumps(state.to_checkpoint()))
  resumed = GraphState.from_checkpoint(parse([("START", a)]), saved, name="wf")
  assert resumed.child_answer("wf@1/a@1/child@1", False) == ("done", "out")
  assert resumed.child_answer("wf@1/a@1/asker@1", False) == ("waiting", ["q"])
  resumed.answers = {"q": 42}
  assert resumed.child_answer("wf@1/a@1/asker@1", False) == ("done", 42)
  resumed.complete(run, "A", True)  # the caller completed: its children's records go
  assert resumed.child_answer("wf@1/a@1/child@1", False) == ("new", None)
