"""The asyncio driver of one Workflow run: node tasks, the commit hand-off, resume and replay.

The graph's rules (triggers, routes, joins, loop caps, waiting nodes, the checkpoint) live in
the pure `GraphState` (`_graph_state.py`); this driver starts the runs it hands out, one
`NodeRunner` each (`_node_runner.py`: attempts, retries, timeout, stamping), as asyncio tasks
or inline for plain sync functions. Each event a node produces goes through one queue to the
workflow's generator, which yields it (the Runner commits it) and only then lets the node
continue, so every node sees the state its earlier events wrote.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import TYPE_CHECKING, Any, AsyncGenerator, Optional

from ..agents.base_agent import BaseAgent
from ..agents.context import Context
from ..events.event import Event, NodeInfo
from ..events.event_actions import EventActions
from . import _checkpoint
from . import _replay as _edit_replay
from ._base_node import BaseNode
from ._errors import NodeInterruptedError, NodeMayHaveRunError, WorkflowDataError, dynamic_node_failure
from ._graph_state import GraphState, NodeRun
from ._node_runner import GraphResult, NodeRunner

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext
  from ._workflow import Workflow

logger = logging.getLogger("adk_nb.workflow")


class Scheduler:
  """Runs the graph of `workflow` once (or resumes it), yielding every event of its nodes.

  The asyncio driver around a `GraphState`: it starts the runs the state hands out (as tasks, or
  inline for plain sync functions), funnels their events through one queue so each is committed
  before its node continues, applies retries and timeouts, and reports each finished run back
  to the state.
  """

  def __init__(self, workflow: "Workflow", ic: "InvocationContext", path: str, node_input: Any,
               result: GraphResult, parent_ctx: Optional[Context] = None, also_output_for: tuple[str, ...] = ()):
    self.wf = workflow
    self.also_output_for = also_output_for
    """Paths of the enclosing workflows whose output this workflow's output also is (it ends them)."""
    self.graph = workflow._graph
    self.state = GraphState(self.graph, path, name=workflow.name, max_iterations=workflow.max_iterations,
                            strict_routes=workflow.strict_routes)
    self.ic = ic
    self.path = path
    self.input = node_input
    self.result = result
    self.parent_ctx = parent_ctx
    self.queue: asyncio.Queue = asyncio.Queue()
    self.running: dict[str, NodeRunner] = {}
    """Runs executing as tasks, by node name."""
    self.tasks: set[asyncio.Task] = set()
    self.dynamic_runs: dict[str, int] = {}
    self.inline: deque = deque()
    self.used_ids: Optional[set[str]] = None
    """The interrupt ids of this invocation's requests still open (read on the first request)."""
    self.events: Optional[list[Event]] = None
    """This invocation's events (read once, for the checkpoint and the interrupt ids in use)."""
    self.author = workflow.name
    """The author of the events of its non-agent nodes."""
    self.recorded: dict[str, _edit_replay.Recorded] = {}
    """Node runs recorded before an edited step this run continues from, by path (workflow/_replay.py)."""

  keeps_ctx = False
  prior_output = prior_interrupt_ids = isolation_scope = None
  """(NodeRunner's standalone options; a workflow's runs carry their results in the graph state.)"""

  # ---- the NodeRunner host ---------------------------------------------------------------------


  async def deliver(self, event: Event) -> None:
    """Hands the event to the workflow's generator and waits until it was committed."""
    future = asyncio.get_running_loop().create_future()
    self.queue.put_nowait(("event", (event, future)))
    await future

  # ---- the loop ----------------------------------------------------------------------------------

  async def run(self) -> AsyncGenerator[Event, None]:
    state = self.state
    checkpoint = answers = progress = None
    if self.ic.session.events:
      self.events = _checkpoint.invocation_events(self.ic.session.events, self.ic.invocation_id)
      checkpoint, answers, progress = _checkpoint.find_checkpoint(self.events, self.path)
    if checkpoint is not None:
      state.restore(checkpoint)
      resumed = state.answer(answers, _reruns)
      if progress is not None:
        # A pass resumed from this checkpoint was interrupted: its committed outputs are replayed.
        resumed = self._replay(progress, resumed, answers)
      rerun = [spec.path for spec in resumed
               if not spec.answered and not isinstance(self.graph.nodes[spec.name], BaseAgent)]
      if rerun:
        # Committed (not yielded) before they run again: if this pass is cut off, the next one
        # knows they started and reports them as "may have run" instead of running them twice.
        # (Agents and nested workflows are left out: they resume through their own records.)
        await self.ic.session_service.append_event(self.ic.session, _checkpoint.resumed_marker(
            self.ic.invocation_id, self.wf.name, self.ic.branch, self.path, rerun))
      for spec in resumed:
        run = self._run_of(spec)
        if spec.answered:  # answered, not rerun: the answer is its output
          run.output, run.has_output = spec.output, True
          event = self._new_event(run, output=run.output)
          event.node_info.output_for = self.output_for(run)
          run.output_emitted = True
          yield event
          self._complete(run)
        else:
          self._start(run)
    else:
      self.recorded = _edit_replay.recorded_runs(self.ic, self.events, self.path)
      state.seed(self.input, self.ic.branch)
    try:
      while True:
        if not self.inline:
          # Nodes made ready by the plain functions of a batch wait until the whole batch ran, so a
          # fan-out's own events come before its successors' (google-adk's order).
          self._schedule()
        if self.inline:
          run = self.inline.popleft()
          if self.running:  # something may be awaiting I/O: a blocking function must not stall it
            self._start(run, inline=False)
            continue
          run.buffer = []
          try:
            await run._attempts()
          except BaseException:
            for event in run.buffer:
              yield event
            raise
          for event in run.buffer:
            yield event
          self._complete(run)
          continue
        if not self.running:
          break
        kind, payload = await self.queue.get()
        if kind == "event":
          event, future = payload
          yield event
          if not future.done():
            future.set_result(None)
          continue
        run = payload
        self.running.pop(run.name, None)
        if run.error is not None:
          await self._shut_down()
          raise run.error
        self._complete(run)
    finally:
      await self._shut_down()
    async for event in self._finish():
      yield event

  async def _shut_down(self) -> None:
    pending = [t for t in self.tasks if not t.done()]
    for task in pending:
      task.cancel()
    if pending:
      await asyncio.gather(*pending, return_exceptions=True)
    while not self.queue.empty():
      kind, payload = self.queue.get_nowait()
      if kind == "event" and not payload[1].done():
        payload[1].cancel()
    self.running.clear()

  async def _finish(self) -> AsyncGenerator[Event, None]:
    state = self.state
    interrupts = state.interrupts()
    if interrupts:
      self.result.interrupts = interrupts
      event = Event(invocation_id=self.ic.invocation_id, author=self.wf.name, branch=self.ic.branch,
                    node_info=NodeInfo(path=self.path), actions=EventActions(agent_state=state.to_checkpoint()))
      if self.ic.is_resumable:
        yield event
      else:
        await self._record(event)
      return
    if state.restored:
      event = Event(invocation_id=self.ic.invocation_id, author=self.wf.name, branch=self.ic.branch,
                    node_info=NodeInfo(path=self.path),
                    actions=EventActions(agent_state={"workflow": self.path, "status": "done"}, end_of_agent=True))
      if self.ic.is_resumable:
        yield event
      else:
        await self._record(event)
    has_output, output = state.outcome()
    if has_output:
      self.result.output, self.result.has_output = output, True

  async def _record(self, event: Event) -> None:
    """Commits one of the workflow's own records (its pause checkpoint, its end after a resume) to the
    session without yielding it: the resume reads it there, and a client sees what google-adk shows,
    which outside a resumable app is nothing. (In a resumable app both are yielded, where google-adk
    yields its own progress and end-of-agent events.)"""
    await self.ic.session_service.append_event(self.ic.session, event)

  def _replay(self, progress: "_checkpoint.Progress", resumed: list[NodeRun], answers: dict[str, Any]
              ) -> list[NodeRun]:
    """Completes, without running them again, the runs an interrupted pass committed outputs for.

    Returns the answered runs whose answer was not committed yet (their output is emitted now), and
    the agents and nested workflows resumed by an answer (they run again and replay their own parts).
    A run that was started (handed out after the checkpoint) and committed no output may have
    run: NodeMayHaveRunError, and nothing runs. A run that asked for input again waits again.
    """
    state = self.state
    todo = list(resumed)
    left: list[NodeRun] = []
    paused: set[str] = set()
    while True:
      for spec in todo:
        path = spec.path
        if path in progress.outputs or path in progress.routes:
          state.complete(spec, progress.outputs.get(path), path in progress.outputs, progress.routes.get(path))
        elif path in progress.interrupts and path not in paused:
          state.pause(spec, progress.interrupts[path])
          paused.add(path)
        elif spec.answered:
          left.append(spec)  # completed by its answer alone: nothing of it ran
        elif spec.resume_inputs and isinstance(self.graph.nodes[spec.name], BaseAgent):
          left.append(spec)  # an agent or nested workflow resumes through its own records (and replays)
        else:
          raise NodeMayHaveRunError(self.wf.name, path)
      # Requests asked again in the interrupted pass take only answers given after them.
      todo = state.ready() or state.answer(progress.answers, _reruns)
      if not todo:
        return left

  def _schedule(self) -> None:
    state = self.state
    if not state.pending:
      return
    limit = self.wf.max_concurrency
    while state.pending and not (limit and limit > 0 and len(self.running) >= limit):
      spec = state.pop_ready()
      if spec is None:
        return
      self._start(self._run_of(spec))

  def _run_of(self, spec: NodeRun) -> NodeRunner:
    run = NodeRunner(self.graph.nodes[spec.name], None, spec.run_id, host=self, path=spec.path,
                     node_input=spec.input, branch=spec.branch)
    run.terminal = spec.terminal
    run.spec = spec
    if spec.resume_inputs:
      run.resume_inputs = spec.resume_inputs
    return run

  def _start(self, run: NodeRunner, inline: bool = True) -> None:
    node = run.node
    recorded = self.recorded.pop(run.path, None) if self.recorded else None
    if recorded is not None:
      # Recorded before the edit this run continues from: its result is the recording; it does not run.
      (run.output, run.has_output), run.route = recorded.result_for(node), recorded.route
      run.output_emitted = True
      self.running[run.name] = run
      self.queue.put_nowait(("done", run))
      return
    if inline and getattr(node, "_is_plain_sync", False) and node.timeout is None:
      # A plain synchronous function runs right here: no task, no queue hand-over.
      self.inline.append(run)
      return
    self.running[run.name] = run
    task = asyncio.ensure_future(self._execute(run))
    self.tasks.add(task)
    task.add_done_callback(self.tasks.discard)

  def _complete(self, run: NodeRunner) -> None:
    if run.interrupts:
      self.state.pause(run.spec, run.interrupts, rerun=run.paused_by_child)
      return
    self.state.complete(run.spec, run.output, run.has_output, run.route)

  # ---- one node run ------------------------------------------------------------------------------

  async def _execute(self, run: NodeRunner) -> None:
    run.task = asyncio.current_task()
    try:
      await run._attempts()
    except asyncio.CancelledError:
      raise
    except BaseException as exc:  # reported to the loop, which stops the workflow and re-raises it
      run.error = exc
    finally:
      self.queue.put_nowait(("done", run))

  def check_new_interrupt(self, run: NodeRunner, interrupt_id: str) -> None:
    """Refuses an interrupt id while an earlier request with that id is still open.

    An id may be used again once its earlier request was answered (a loop asking 'approval' each
    round, two nodes asking in turn), as in google-adk: an answer applies to the request that was
    open when it was given (see `_checkpoint.find_checkpoint`), never to a later one. Two open
    requests with one id could not be told apart by their answer, so the second is refused.
    Only this invocation counts (its events are read once, and only when a node asks for input):
    ids may repeat across invocations, as google-adk's confirmation ids `wf_tool_confirmation:{node
    path}` do, and the check costs the length of the invocation, not of the session.
    """
    if self.used_ids is None:
      open_ids: set[str] = set()
      for e in self.events or ():
        if e.long_running_tool_ids:
          open_ids.update(c.id for c in e.get_function_calls() if c.id in e.long_running_tool_ids)
        for r in e.get_function_responses():
          open_ids.discard(r.id)
      self.used_ids = open_ids
    if interrupt_id in self.used_ids:
      raise WorkflowDataError(
          f"Node {run.path!r} asked for input with interrupt_id {interrupt_id!r} while an earlier request with "
          "that id is still open (unanswered), so one answer could not be told apart from the other. Give each "
          f"open request its own id, e.g. RequestInput(interrupt_id=f'{interrupt_id}:{{ctx.run_id}}'), or leave "
          "interrupt_id out for a random one."
      )
    self.used_ids.add(interrupt_id)

  def output_for(self, run: NodeRunner) -> list[str]:
    """The paths whose output `run`'s output is: its own, its workflow's (a terminal node), its
    caller's (a `ctx.run_node(..., use_as_output=True)` child)."""
    if run.output_of is not None:
      return [run.path, *self.output_for(run.output_of)]
    paths = [run.path]
    if run.terminal and not run.dynamic:
      paths.append(self.path)
      paths.extend(self.also_output_for)
    return paths

  def _new_event(self, run: NodeRunner, **kwargs: Any) -> Event:
    event = Event(**kwargs)
    event.invocation_id = self.ic.invocation_id
    event.author = self.wf.name
    event.branch = run.branch
    event.node_info = NodeInfo(path=run.path)
    return event

  # ---- dynamic nodes -------------------------------------------------------------------------------

  async def run_dynamic(self, parent: Context, target: Any, node_input: Any, name: Optional[str],
                        run_id: Optional[str] = None, use_as_output: bool = False) -> Any:
    from ._node import build_node

    caller: Optional[NodeRunner] = parent._wf_run
    if use_as_output and caller is not None and caller.delegated:
      raise ValueError(
          f"Node {parent.node_path} already has a use_as_output delegate: ctx.run_node(..., use_as_output=True) "
          "makes the child's output this node's output, and a node run has one output. Call it once per run."
      )
    if use_as_output and parent.has_output:
      raise ValueError(
          f"Output already set for node {parent.node_path}: ctx.run_node(..., use_as_output=True) makes the "
          "child's output this node's output, and a node run has one output. Call it once, and do not also "
          "set ctx.output or yield an output before it."
      )
    node = build_node(target, name=name) if name else build_node(target)
    if run_id is None:
      if caller is not None and caller.child_counts is None:
        caller.child_counts = {}
      counts = caller.child_counts if caller is not None else self.dynamic_runs
      count = counts.get(node.name, 0) + 1
      counts[node.name] = count
      run_id = str(count)
    elif run_id.isdigit():
      raise ValueError(
          f"Explicit run_id {run_id!r} for node {node.name!r} must contain non-numeric characters (digits are the "
          "ids given automatically), e.g. ctx.run_node(..., run_id=f'item-{i}')."
      )
    path = f"{parent.node_path}/{node.name}@{run_id}"
    if caller is not None:
      task = asyncio.current_task()
      if task is not None and task is not caller.task:
        caller.children.add(task)  # started with asyncio.gather / create_task: awaited with the caller
    kind, value = self.state.child_answer(path, _reruns(node))
    if kind == "done":
      # It finished in an earlier pass (or its answer completes it): not run again.
      if use_as_output:
        _use_as_output(parent, caller, value)
      return value
    if kind == "waiting":
      parent.interrupt_ids.extend(value)  # still waiting: its request stands
      raise NodeInterruptedError()
    run = NodeRunner(node, None, run_id, host=self, path=path, node_input=node_input, branch=parent.branch)
    run.dynamic = True
    run.task = asyncio.current_task()
    if use_as_output:
      run.output_of = caller
    if kind == "rerun":
      run.resume_inputs = value
    failure = None
    try:
      await run._attempts()
    except Exception as exc:  # the caller sees google-adk's wrapper; its run fails with `exc` itself
      failure = dynamic_node_failure(exc, node.name, run.error_path or path)
    if failure is not None:
      raise failure
    if run.interrupts:
      self.state.child_paused(path, run.interrupts, run.paused_by_child)
      parent.interrupt_ids.extend(run.interrupts)
      raise NodeInterruptedError()
    if run.has_output or not node.wait_for_output:
      self.state.child_done(path, run.output)
    # else: a wait_for_output child that gave no output has not completed; the next pass runs it again.
    if use_as_output:
      _use_as_output(parent, caller, run.output)
    return run.output


def _use_as_output(parent: Context, caller: Optional[NodeRunner], value: Any) -> None:
  """The child's output is the caller's: set, and already emitted (the child's output event names both)."""
  parent._output = value
  if caller is not None:
    caller.output, caller.has_output, caller.output_emitted = value, True, True
    caller.delegated = True

def _reruns(node: BaseNode) -> bool:
  """Whether an answered node runs again (with resume_inputs) instead of taking the answer as output.

  Agents always do: they resume through their own machinery (the paused call's answer is in the session).
  """
  return node.rerun_on_resume or isinstance(node, BaseAgent)
