"""GraphState: the pure state machine of one Workflow run (no asyncio, no events, no Context).

It holds exactly what a pause checkpoint saves: run counters, the outputs and branches of
completed nodes, queued triggers, join arrivals, waiting nodes, terminal outputs and the
replay records of `ctx.run_node` children. Its methods are the graph's rules:

- `seed(input, branch)`: START's successors are triggered with the user's message;
- `pop_ready()` / `ready(limit)`: the next node runs to start (run ids, sub-branches, the loop cap);
- `complete(run, output, has_output, route)`: a run finished: outputs, routes, joins, successors;
- `pause(run, interrupts, rerun)`: a run waits for answers;
- `answer(answers)`: the answers given let waiting runs continue (the answer becomes the output
  of a node that is not run again);
- `to_checkpoint()` / `from_checkpoint(...)`: the JSON form committed with a pause;
- `outcome()`: the workflow's output, its interrupts, or the error its end state is.

The asyncio driver (`_scheduler.Scheduler`) starts the runs `pop_ready` hands out and reports
back with `complete`/`pause`. Everything here can be unit-tested with no event loop.
"""

from __future__ import annotations

import logging
import warnings
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from . import _checkpoint
from ._base_node import START
from ._errors import WorkflowConfigurationError, WorkflowDataError, WorkflowLoopLimitError, WorkflowStalledError
from ._node_state import NodeState
from ._node_status import NodeStatus
from ._trigger import Trigger
from ._values import common_branch

if TYPE_CHECKING:
  from ._graph import Graph

logger = logging.getLogger("adk_nb.workflow")


@dataclass(slots=True)
class NodeRun:
  """One run of a graph node handed to the driver: which node, with what input, where."""

  name: str
  run_id: str
  path: str
  """'{workflow path}/{name}@{run_id}'."""
  input: Any
  branch: Optional[str]
  terminal: bool
  """The node has no outgoing edges: its output is the workflow's."""
  resume_inputs: dict[str, Any] = field(default_factory=dict)
  """Answers the run resumes with (empty for a fresh run)."""
  answered: bool = False
  """Resumed and not run again: `output` is the answer, and the run is complete."""
  output: Any = None


def answer_value(answered: dict[str, Any]) -> Any:
  """The output of a node whose answers complete it: the one answer, or all of them by id."""
  return next(iter(answered.values())) if len(answered) == 1 else answered


class GraphState:
  """The state of one run of one workflow's graph, and the rules that move it."""

  __slots__ = ("graph", "path", "name", "max_iterations", "strict_routes", "runs", "outputs", "branches",
               "arrivals", "join_inputs", "triggers", "pending", "active", "waiting", "terminal_outputs",
               "dynamic_done", "dynamic_waiting", "answers", "restored")

  def __init__(self, graph: "Graph", path: str, *, name: str = "workflow", max_iterations: Optional[int] = None,
               strict_routes: bool = False) -> None:
    self.graph = graph
    self.path = path
    """The workflow run's path, e.g. 'pipeline@1'."""
    self.name = name
    """The workflow's name (for messages)."""
    self.max_iterations = max_iterations
    self.strict_routes = strict_routes
    self.runs: dict[str, int] = {}
    """Runs started so far, per node (the next run id is this + 1)."""
    self.outputs: dict[str, Any] = {}
    """The latest output of each completed node (what a join collects)."""
    self.branches: dict[str, Optional[str]] = {}
    """The branch of each completed node's latest run."""
    self.arrivals: dict[str, set[str]] = {}
    """Per JoinNode: the predecessors that completed since it last fired."""
    self.join_inputs: dict[str, list[str]] = {}
    """The predecessors each JoinNode waits for (computed on its first arrival)."""
    self.triggers: dict[str, deque[Trigger]] = {}
    """Queued triggers per node."""
    self.pending: dict[str, None] = {}
    """Nodes with queued triggers, in the order their first trigger arrived."""
    self.active: set[str] = set()
    """Nodes with a run handed out and not completed or paused (one run per node at a time)."""
    self.waiting: dict[str, NodeState] = {}
    """Nodes paused for answers."""
    self.terminal_outputs: dict[str, Any] = {}
    """Non-None outputs of terminal nodes (more than one is an error at the end)."""
    self.dynamic_done: dict[str, Any] = {}
    """Outputs of completed `ctx.run_node` children whose caller has not completed, by child path."""
    self.dynamic_waiting: dict[str, NodeState] = {}
    """`ctx.run_node` children waiting for answers, by child path."""
    self.answers: dict[str, Any] = {}
    """Answers given since the checkpoint this run resumed from, by interrupt id."""
    self.restored = False
    """True when this run resumed from a checkpoint."""

  # ---- triggers ----------------------------------------------------------------------------------

  def seed(self, node_input: Any, branch: Optional[str] = None) -> None:
    """Triggers START's successors with the workflow's input."""
    starts = self.graph.next_nodes(START.name, None)[0]
    for name in starts:
      self.trigger(START.name, name, node_input, branch, len(starts) > 1)

  def trigger(self, source: str, target: str, value: Any, branch: Optional[str], sub: bool) -> None:
    """Queues a run of `target` with `source`'s output (a JoinNode fires once all arrived)."""
    node = self.graph.nodes[target]
    if node._requires_all_predecessors:
      got = self.arrivals.setdefault(target, set())
      got.add(source)
      needed = self.join_inputs.get(target)
      if needed is None:
        needed = self.join_inputs[target] = [p for p in self.graph.preds[target] if p != START.name]
      # Counted first: checking every predecessor on every arrival made a k-way join cost k^2.
      if len(got) >= len(needed) and all(p in got for p in needed):
        self.arrivals.pop(target)
        joined = {p: self.outputs.get(p) for p in needed}
        self._queue(target, Trigger(joined, False, common_branch([self.branches.get(p) for p in needed])))
      return
    queue = self.triggers.get(target)  # _queue, inlined on the per-node path
    if queue is None:
      queue = self.triggers[target] = deque()
    queue.append(Trigger(value, sub, branch))
    self.pending[target] = None

  def _queue(self, target: str, trigger: Trigger) -> None:
    queue = self.triggers.get(target)
    if queue is None:
      queue = self.triggers[target] = deque()
    queue.append(trigger)
    self.pending[target] = None

  def pop_ready(self) -> Optional[NodeRun]:
    """The next run to start, or None: the first pending node not running and not waiting.

    Raises WorkflowLoopLimitError when the run would pass `max_iterations` for its node.
    """
    if not self.pending:
      return None
    for name in self.pending:
      if name in self.active or name in self.waiting:
        continue
      queue = self.triggers[name]
      trigger = queue.popleft()
      if not queue:
        del self.pending[name]
      count = self.runs.get(name, 0) + 1
      cap = self.max_iterations
      if cap is not None and count > cap:
        raise WorkflowLoopLimitError(
            f"Workflow {self.name!r}: node {name!r} would run a {count}th time in one invocation, past "
            f"max_iterations={cap}. Make the loop's route reach its exit, or raise "
            f"Workflow(max_iterations=...) (None removes the cap)."
        )
      self.runs[name] = count
      run_id = str(count)
      branch = trigger.branch
      if trigger.use_sub_branch:
        branch = f"{branch}.{name}@{run_id}" if branch else f"{name}@{run_id}"
      self.active.add(name)
      return NodeRun(name, run_id, f"{self.path}/{name}@{run_id}", trigger.input, branch,
                     name in self.graph.terminals)
    return None

  def ready(self, limit: Optional[int] = None) -> list[NodeRun]:
    """Every run that can start now (at most `limit`), marked running."""
    found: list[NodeRun] = []
    while limit is None or len(found) < limit:
      run = self.pop_ready()
      if run is None:
        break
      found.append(run)
    return found

  def status(self, name: str) -> NodeStatus:
    """Where node `name` stands now."""
    if name in self.active:
      return NodeStatus.RUNNING
    if name in self.waiting:
      return NodeStatus.WAITING
    if name in self.pending:
      return NodeStatus.PENDING
    if name in self.branches:
      return NodeStatus.COMPLETED
    return NodeStatus.INACTIVE

  # ---- results -------------------------------------------------------------------------------------

  def complete(self, run: NodeRun, output: Any = None, has_output: bool = False, route: Any = None) -> list[str]:
    """Records a finished run and triggers its successors; returns their names.

    A node with `wait_for_output` that finished with neither output nor route stays waiting for a
    later trigger (nothing fires). A route that matches no edge ends the branch with a warning
    (WorkflowDataError with `strict_routes`).
    """
    name = run.name
    self.active.discard(name)
    self.forget_children(run.path)
    node = self.graph.nodes[name]
    if node.wait_for_output and not has_output and route is None:
      return []
    if has_output:
      self.outputs[name] = output
      if run.terminal and output is not None:
        self.terminal_outputs[name] = output
    else:
      self.outputs.pop(name, None)
    self.branches[name] = run.branch
    targets, unmatched = self.graph.next_nodes(name, route)
    if unmatched:
      message = (f"Workflow {self.name!r}: node {name!r} took route {route!r}, which matches "
                 f"none of its routed edges; this branch ends here. Add an edge for that route or a "
                 f"DEFAULT_ROUTE edge.")
      if self.strict_routes:
        raise WorkflowDataError(message)
      logger.warning(message)
      warnings.warn(message, stacklevel=3)
    sub = len(targets) > 1
    for target in targets:
      self.trigger(name, target, output, run.branch, sub)
    return targets

  def pause(self, run: NodeRun, interrupts: list[str], rerun: bool = False) -> None:
    """Records a run that waits for answers to `interrupts` (it resumes in a later invocation pass)."""
    self.active.discard(run.name)
    # A resumed run that asks again keeps the answers it already had: its next pass sees them all.
    self.waiting[run.name] = NodeState(status=NodeStatus.WAITING, input=run.input, run_id=run.run_id,
                                       branch=run.branch, interrupts=list(interrupts), rerun=rerun,
                                       resume_inputs=dict(run.resume_inputs))

  def answer(self, answers: dict[str, Any], reruns: Any) -> list[NodeRun]:
    """The waiting runs that `answers` (interrupt id -> response) let continue, marked running.

    `reruns(node) -> bool` says whether a node runs again with `resume_inputs` (True) or is
    completed by its answer (False: the run comes back `answered`, its output the answer).
    Runs with no answer yet keep waiting.
    """
    self.answers = answers
    resumed: list[NodeRun] = []
    for name, state in list(self.waiting.items()):
      answered = {i: answers[i] for i in state.interrupts if i in answers}
      if not answered:
        continue
      del self.waiting[name]
      run = NodeRun(name, state.run_id or "1", f"{self.path}/{name}@{state.run_id}", state.input, state.branch,
                    name in self.graph.terminals, resume_inputs={**state.resume_inputs, **answered})
      if not (state.rerun or reruns(self.graph.nodes[name])):
        run.answered, run.output = True, answer_value(answered)
      self.active.add(name)
      resumed.append(run)
    return resumed

  # ---- ctx.run_node children --------------------------------------------------------------------

  def child_done(self, path: str, output: Any) -> None:
    """A `ctx.run_node` child completed: replayed (not run again) until its caller completes."""
    self.forget_children(path)
    self.dynamic_done[path] = output

  def child_paused(self, path: str, interrupts: list[str], rerun: bool) -> None:
    self.dynamic_waiting[path] = NodeState(status=NodeStatus.WAITING, interrupts=list(interrupts), rerun=rerun)

  def child_answer(self, path: str, reruns: bool) -> tuple[str, Any]:
    """What a `ctx.run_node` child at `path` does in this pass.

    ('done', output) it completed earlier (or its answer completes it); ('waiting', interrupts)
    it still waits; ('rerun', answers) it runs again with `resume_inputs`; ('new', None) it runs.
    """
    if path in self.dynamic_done:
      return "done", self.dynamic_done[path]
    state = self.dynamic_waiting.get(path)
    if state is None:
      return "new", None
    answered = {i: self.answers[i] for i in state.interrupts if i in self.answers}
    if not answered:
      return "waiting", list(state.interrupts)
    del self.dynamic_waiting[path]
    if state.rerun or reruns:
      return "rerun", answered
    value = answer_value(answered)
    self.dynamic_done[path] = value
    return "done", value

  def forget_children(self, path: str) -> None:
    """Drops the replay records of `path`'s ctx.run_node children once `path` itself completed."""
    if not self.dynamic_done and not self.dynamic_waiting:
      return
    prefix = path + "/"
    for records in (self.dynamic_done, self.dynamic_waiting):
      for key in [k for k in records if k.startswith(prefix)]:
        del records[key]

  # ---- the end ---------------------------------------------------------------------------------

  def interrupts(self) -> list[str]:
    """The ids every waiting node waits on (empty: the run did not pause)."""
    return [i for state in self.waiting.values() for i in state.interrupts]

  def outcome(self) -> tuple[bool, Any]:
    """(has_output, output) of a run that ended without pausing.

    Raises WorkflowStalledError for a JoinNode that never fired, and WorkflowConfigurationError
    when more than one terminal node produced output.
    """
    stalled = {name: sorted(set(self.graph.preds[name]) - got - {START.name})
               for name, got in self.arrivals.items() if got}
    if stalled:
      name, missing = next(iter(stalled.items()))
      raise WorkflowStalledError(
          f"Workflow {self.name!r}: JoinNode {name!r} never fired: predecessor(s) {missing} did not "
          "complete in this run (not routed to, or ended without reaching it). Route every branch into "
          "the join, or use a plain node instead of a JoinNode."
      )
    if len(self.terminal_outputs) > 1:
      raise WorkflowConfigurationError(
          f"Workflow {self.name!r}: multiple terminal nodes produced output: "
          f"{sorted(self.terminal_outputs)}. A workflow has one output; fan them into a JoinNode, or make "
          "all but one terminal node return None."
      )
    if self.terminal_outputs:
      return True, next(iter(self.terminal_outputs.values()))
    return False, None

  # ---- checkpoint -------------------------------------------------------------------------------

  def to_checkpoint(self) -> dict[str, Any]:
    """The JSON-ready state a pause commits (`actions.agent_state` of the workflow's pause event)."""
    waiting = {}
    for name, state in self.waiting.items():
      info = {"run_id": state.run_id, "input": _checkpoint.encode(state.input), "branch": state.branch,
              "interrupts": list(state.interrupts)}
      if state.rerun:
        info["rerun"] = True
      if state.resume_inputs:
        info["resume_inputs"] = _checkpoint.encode(state.resume_inputs)
      waiting[name] = info
    return {
        "workflow": self.path,
        "status": "paused",
        "runs": dict(self.runs),
        "outputs": _checkpoint.encode(self.outputs),
        "branches": dict(self.branches),
        "arrivals": {k: sorted(v) for k, v in self.arrivals.items()},
        "terminal_outputs": _checkpoint.encode(self.terminal_outputs),
        "triggers": {k: [[_checkpoint.encode(t.input), t.branch, t.use_sub_branch] for t in q]
                     for k, q in self.triggers.items() if q},
        "waiting": waiting,
        "dynamic": _checkpoint.encode(self.dynamic_done),
        "dynamic_waiting": {k: {"interrupts": list(s.interrupts), "rerun": s.rerun}
                            for k, s in self.dynamic_waiting.items()},
    }

  def restore(self, data: dict[str, Any]) -> None:
    """Puts the state back where the checkpoint `data` (from `to_checkpoint`) left it."""
    self.restored = True
    self.runs = dict(data["runs"])
    self.outputs = _checkpoint.decode(data["outputs"])
    self.branches = dict(data["branches"])
    self.arrivals = {k: set(v) for k, v in data["arrivals"].items()}
    self.terminal_outputs = _checkpoint.decode(data["terminal_outputs"])
    self.dynamic_done = _checkpoint.decode(data.get("dynamic", {}))
    self.dynamic_waiting = {k: NodeState(status=NodeStatus.WAITING, interrupts=list(v.get("interrupts", [])),
                                         rerun=bool(v.get("rerun")))
                            for k, v in data.get("dynamic_waiting", {}).items()}
    self.triggers, self.pending = {}, {}
    for name, items in data["triggers"].items():
      for value, branch, sub in items:
        self._queue(name, Trigger(_checkpoint.decode(value), bool(sub), branch))
    self.waiting = {
        name: NodeState(status=NodeStatus.WAITING, input=_checkpoint.decode(info.get("input")),
                        run_id=info.get("run_id"), branch=info.get("branch"),
                        interrupts=list(info.get("interrupts", [])), rerun=bool(info.get("rerun")),
                        resume_inputs=_checkpoint.decode(info.get("resume_inputs", {})))
        for name, info in data["waiting"].items()
    }

  @classmethod
  def from_checkpoint(cls, graph: "Graph", data: dict[str, Any], **config: Any) -> "GraphState":
    """A GraphState restored from a checkpoint (`to_checkpoint`'s output)."""
    state = cls(graph, data["workflow"], **config)
    state.restore(data)
    return state
