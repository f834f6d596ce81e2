"""The scheduler of one Workflow run: triggers, concurrent node tasks, routes, joins, pauses.

Node runs are asyncio tasks. Each event a node produces goes through one queue to the
workflow's generator, which yields it (the Runner commits it) and only then lets the node
continue, so every node sees the state its earlier events wrote.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import TYPE_CHECKING, Any, AsyncGenerator, Optional

from google.genai import types
from pydantic import BaseModel

from ..agents import _callbacks
from ..agents.base_agent import BaseAgent
from ..agents.context import Context
from ..errors import event_error_code, traceback_text
from ..events.event import Event, NodeInfo
from ..events.event_actions import EventActions
from ..events.protocol import TRACEBACK_KEY
from ..events.request_input import RequestInput
from . import _checkpoint
from ._values import request_input_event as _request_input_event
from ._values import user_content as _user_content
from ._values import validate as _validate
from ._base_node import BaseNode
from ._errors import NodeInterruptedError, NodeTimeoutError, WorkflowDataError
from ._graph_state import GraphState, NodeRun

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext
  from ._workflow import Workflow

logger = logging.getLogger("adk_nb.workflow")


class GraphResult:
  """What a workflow run produced: its output, or the interrupts it is waiting on."""

  __slots__ = ("output", "has_output", "interrupts")

  def __init__(self) -> None:
    self.output: Any = None
    self.has_output = False
    self.interrupts: list[str] = []


class _Run:
  """One run of one node."""

  __slots__ = ("node", "name", "run_id", "path", "input", "branch", "ctx", "output", "has_output",
               "route", "interrupts", "error", "output_emitted", "route_emitted", "buffer", "resume_inputs", "terminal",
               "dynamic", "task", "children", "child_counts", "paused_by_child", "spec")

  def __init__(self, node: BaseNode, run_id: str, path: str, node_input: Any, branch: Optional[str]):
    self.node = node
    self.name = node.name
    self.run_id = run_id
    self.path = path
    self.input = node_input
    self.branch = branch
    self.ctx: Optional[Context] = None
    self.output: Any = None
    self.has_output = False
    self.route: Any = None
    self.interrupts: list[str] = []
    self.error: Optional[BaseException] = None
    self.output_emitted = False
    self.route_emitted: Any = None
    self.buffer: Optional[list[Event]] = None
    """Events of a run executed inline (not as a task), yielded once it returns."""
    self.resume_inputs: dict[str, Any] = {}
    self.terminal = False
    self.dynamic = False
    self.task: Optional[asyncio.Task] = None
    """The task the run executes in (its `ctx.run_node` children started elsewhere are awaited)."""
    self.children: set[asyncio.Task] = set()
    """Tasks running `ctx.run_node` children concurrently (asyncio.gather, create_task)."""
    self.child_counts: Optional[dict[str, int]] = None
    """Run ids handed to `ctx.run_node` children, per child name (reset on each attempt, so a retry
    or a rerun after a pause finds the children of the earlier pass under the same paths)."""
    self.paused_by_child = False
    """True when the run's interrupts came from a `ctx.run_node` child: it runs again on resume."""
    self.spec: Optional[NodeRun] = None
    """The graph state's record of this run (None for a `ctx.run_node` child)."""


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
    self.running: dict[str, _Run] = {}
    """Runs executing as tasks, by node name."""
    self.tasks: set[asyncio.Task] = set()
    self.dynamic_runs: dict[str, int] = {}
    self.inline: deque = deque()
    self.used_ids: Optional[set[str]] = None
    self.events: Optional[list[Event]] = None
    """This invocation's events (read once, for the checkpoint and the interrupt ids in use)."""

  # ---- the loop ----------------------------------------------------------------------------------

  async def run(self) -> AsyncGenerator[Event, None]:
    state = self.state
    checkpoint = answers = None
    if self.ic.session.events:
      self.events = _checkpoint.invocation_events(self.ic.session.events, self.ic.invocation_id)
      checkpoint, answers = _checkpoint.find_checkpoint(self.events, self.path)
    if checkpoint is not None:
      state.restore(checkpoint)
      for spec in state.answer(answers, _reruns):
        run = self._run_of(spec)
        if spec.answered:  # answered, not rerun: the answer is its output
          run.output, run.has_output = spec.output, True
          event = self._new_event(run, output=run.output)
          event.node_info.output_for = self._output_for(run)
          run.output_emitted = True
          yield event
          self._complete(run)
        else:
          self._start(run)
    else:
      state.seed(self.input, self.ic.branch)
    try:
      while True:
        self._schedule()
        if self.inline:
          run = self.inline.popleft()
          if self.running:  # something may be awaiting I/O: a blocking function must not stall it
            self._start(run, inline=False)
            continue
          run.buffer = []
          try:
            await self._attempts(run)
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
      yield Event(invocation_id=self.ic.invocation_id, author=self.wf.name, branch=self.ic.branch,
                  node_info=NodeInfo(path=self.path), actions=EventActions(agent_state=state.to_checkpoint()))
      return
    if state.restored:
      yield Event(invocation_id=self.ic.invocation_id, author=self.wf.name, branch=self.ic.branch,
                  node_info=NodeInfo(path=self.path),
                  actions=EventActions(agent_state={"workflow": self.path, "status": "done"}, end_of_agent=True))
    has_output, output = state.outcome()
    if has_output:
      self.result.output, self.result.has_output = output, True

  def _schedule(self) -> None:
    state = self.state
    if not state.pending:
      return
    limit = self.wf.max_concurrency
    while not (limit and limit > 0 and len(self.running) >= limit):
      spec = state.pop_ready()
      if spec is None:
        return
      self._start(self._run_of(spec))

  def _run_of(self, spec: NodeRun) -> "_Run":
    run = _Run(self.graph.nodes[spec.name], spec.run_id, spec.path, spec.input, spec.branch)
    run.terminal = spec.terminal
    run.spec = spec
    if spec.resume_inputs:
      run.resume_inputs = spec.resume_inputs
    return run

  def _start(self, run: _Run, inline: bool = True) -> None:
    node = run.node
    if inline and getattr(node, "_is_plain_sync", False) and node.timeout is None:
      # A plain synchronous function runs right here: no task, no queue hand-over.
      self.inline.append(run)
      return
    self.running[run.name] = run
    task = asyncio.ensure_future(self._execute(run))
    self.tasks.add(task)
    task.add_done_callback(self.tasks.discard)

  def _complete(self, run: _Run) -> None:
    if run.interrupts:
      self.state.pause(run.spec, run.interrupts, rerun=run.paused_by_child)
      return
    self.state.complete(run.spec, run.output, run.has_output, run.route)

  # ---- one node run ------------------------------------------------------------------------------

  async def _execute(self, run: _Run) -> None:
    run.task = asyncio.current_task()
    try:
      await self._attempts(run)
    except asyncio.CancelledError:
      raise
    except BaseException as exc:  # reported to the loop, which stops the workflow and re-raises it
      run.error = exc
    finally:
      self.queue.put_nowait(("done", run))

  async def _attempts(self, run: _Run) -> None:
    node = run.node
    policy = node.retry_config
    attempt = 1
    try:
      while True:
        ic = self.ic if run.branch == self.ic.branch else self.ic.model_copy(update={"branch": run.branch})
        author = None if isinstance(node, BaseAgent) and not _is_workflow(node) else self.wf.name
        ctx = Context(ic, node=node, node_path=run.path, run_id=run.run_id, attempt_count=attempt,
                      resume_inputs=run.resume_inputs, event_author=author or self.wf.name,
                      parent_ctx=self.parent_ctx, run_node=self._run_dynamic)
        ctx._offload = len(self.running) > 1
        ctx._wf_run = run
        run.ctx = ctx
        run.output, run.has_output, run.route, run.interrupts = None, False, None, []
        run.output_emitted = False
        run.route_emitted = None
        run.child_counts = None
        run.paused_by_child = False
        try:
          if node.timeout:
            try:
              async with asyncio.timeout(node.timeout) as scope:
                await self._drive(run, ctx)
            except TimeoutError as exc:
              if scope.expired():
                raise NodeTimeoutError(node.name, node.timeout) from exc
              raise
          else:
            await self._drive(run, ctx)
          return
        except asyncio.CancelledError:
          raise
        except Exception as exc:
          # One error event per failure, as in google-adk: from the node that raised, not again
          # from an enclosing workflow node, a parent of a dynamic node or the Runner.
          invocation_id = self.ic.invocation_id
          if _callbacks.reported_in(exc) != invocation_id:
            # google-adk's code, and the traceback the inspector folds.
            await self._emit(run, Event(error_code=event_error_code(exc), error_message=str(exc),
                                        custom_metadata={TRACEBACK_KEY: traceback_text(exc)}))
            _callbacks.mark_reported(exc, invocation_id)
          if policy is not None and attempt < policy.attempts() and policy.retries(exc):
            _callbacks.take_origin(exc)  # swallowed by the retry: a raise of the same object is new
            await asyncio.sleep(policy.delay(attempt))
            attempt += 1
            continue
          raise
    finally:
      # The run and its Context point at each other; unlinked here, a finished run (and the
      # session copy its invocation holds) is freed at once instead of waiting for the cycle
      # collector, whose passes would otherwise walk that copy of the whole history.
      run.ctx = None

  async def _drive(self, run: _Run, ctx: Context) -> None:
    node = run.node
    node_input = run.input
    if node.input_schema is not None:
      node_input = _validate(node.input_schema, node_input)
    if _is_workflow(node):
      result = GraphResult()
      async for event in node._graph_events(ctx._invocation_context, run.path, node_input, result, ctx,
                                            tuple(self._output_for(run)[1:])):
        await self._emit(run, event)
      if result.interrupts:
        run.interrupts = list(result.interrupts)
      elif result.has_output:
        run.output, run.has_output, run.output_emitted = result.output, True, True
      return
    if isinstance(node, BaseAgent):
      await self._drive_agent(run, ctx, node, node_input)
      return
    if run.buffer is not None and getattr(node, "_is_plain_sync", False):
      # A plain function run inline: call it directly, no generator to drive.
      event = self._to_event(run, ctx, node.func(**node._bind(ctx, node_input)))
      if event is not None:
        await self._emit(run, event)
    else:
      stream = node._run_impl(ctx=ctx, node_input=node_input)
      try:
        async for item in stream:
          event = self._to_event(run, ctx, item)
          if event is None:
            continue
          await self._emit(run, event)
          if ctx.interrupt_ids:
            break  # the node stops at its interrupt: code after the yield does not run
      except NodeInterruptedError:
        run.paused_by_child = True  # a ctx.run_node child asked for input; its ids are in ctx
      except BaseException:
        await self._settle_children(run, cancel=True)
        raise
      finally:
        await stream.aclose()
      await self._settle_children(run)
    run.interrupts = list(ctx.interrupt_ids)
    if ctx.has_output and not run.has_output:
      run.output, run.has_output = _validate(node.output_schema, ctx.output), True
    if ctx.route is not None:
      run.route = ctx.route
    if run.interrupts:
      return
    pending_route = ctx.route is not None and run.route_emitted != ctx.route
    pending = ctx.pending_actions
    if (run.has_output and not run.output_emitted) or pending_route or (pending is not None and (
        pending.state_delta or pending.artifact_delta)):
      event = Event(output=run.output if run.has_output and not run.output_emitted else None)
      if ctx.route is not None:
        event.actions.route = ctx.route
      if run.has_output and not run.output_emitted:
        event.node_info = NodeInfo(path=run.path, output_for=self._output_for(run))
        run.output_emitted = True
      await self._emit(run, event)

  async def _drive_agent(self, run: _Run, ctx: Context, agent: BaseAgent, node_input: Any) -> None:
    from ..agents.llm_agent import LlmAgent

    ic = ctx._invocation_context
    llm = isinstance(agent, LlmAgent)
    if llm and node_input is not None and node_input is not ic.user_content and not run.resume_inputs:
      # The node input becomes the agent's user turn: committed to the session, not yielded
      # (as google-adk does, and as the Runner does with the user's own message).
      turn = Event(invocation_id=ic.invocation_id, author="user", branch=run.branch,
                   content=_user_content(node_input), node_info=NodeInfo(path=run.path))
      await ic.session_service.append_event(ic.session, turn)
    text: Optional[str] = None
    async for event in agent.run_async(ic):
      if event.author:
        ctx.event_author = event.author  # as google-adk: the agent's error event has its last author
      if event.long_running_tool_ids:
        ctx.interrupt_ids.extend(sorted(event.long_running_tool_ids))
      if ((event.author == agent.name if llm else event.author != "user") and not event.partial and event.content is not None
          and event.is_final_response() and not event.get_function_responses()
          and not event.long_running_tool_ids and not event.error_code):
        text = event.text
        event.node_info = NodeInfo(path=run.path, message_as_output=True)
      await self._emit(run, event)
    run.interrupts = list(ctx.interrupt_ids)
    if run.interrupts or text is None:
      return
    value: Any = text
    if llm and agent.output_schema is not None:
      value = agent.output_schema.model_validate_json(text).model_dump()
    run.output, run.has_output, run.output_emitted = value, True, True

  def _to_event(self, run: _Run, ctx: Context, item: Any) -> Optional[Event]:
    if item is None:
      return None
    if isinstance(item, Event):
      if item.output is not None:
        ctx.output = _validate(run.node.output_schema, item.output)
        item.output = ctx.output
        run.output, run.has_output, run.output_emitted = ctx.output, True, True
        item.node_info = item.node_info or NodeInfo(path=run.path)
        item.node_info.output_for = self._output_for(run)
      if item.actions.route is not None and (not item.author or item.author == ctx.event_author):
        ctx.route = item.actions.route
      if item.long_running_tool_ids:
        ctx.interrupt_ids.extend(sorted(item.long_running_tool_ids))
      return item
    if isinstance(item, RequestInput):
      self._check_new_interrupt(run, item.interrupt_id)
      ctx.interrupt_ids.append(item.interrupt_id)
      return _request_input_event(item)
    if isinstance(item, types.Content):
      ctx.output = item
      run.output, run.has_output, run.output_emitted = item, True, True
      return Event(content=item, node_info=NodeInfo(path=run.path, output_for=self._output_for(run),
                                                    message_as_output=True))
    value = _validate(run.node.output_schema, item)
    if isinstance(value, BaseModel):
      value = value.model_dump()
    ctx.output = value
    run.output, run.has_output, run.output_emitted = value, True, True
    event = Event(output=value, node_info=NodeInfo(path=run.path, output_for=self._output_for(run)))
    if ctx.route is not None:
      event.actions.route = ctx.route
    return event

  def _check_new_interrupt(self, run: _Run, interrupt_id: str) -> None:
    """A reused interrupt id could not be told apart from its earlier, answered request.

    Only this invocation counts (its events are read once): ids may repeat across invocations,
    as google-adk's confirmation ids `wf_tool_confirmation:{node path}` do, and the check costs
    the length of the invocation, not of the session.
    """
    if self.used_ids is None:
      events = self.events or ()
      answered = {r.id for e in events for r in e.get_function_responses()}
      self.used_ids = {c.id for e in events if e.long_running_tool_ids
                       for c in e.get_function_calls() if c.id in e.long_running_tool_ids and c.id in answered}
    if interrupt_id in self.used_ids:
      raise WorkflowDataError(
          f"Node {run.path!r} asked for input with interrupt_id {interrupt_id!r}, which this session already "
          f"used. Give each request its own id, e.g. RequestInput(interrupt_id=f'{interrupt_id}:{{ctx.run_id}}') "
          "(every loop iteration has a new run id), or leave interrupt_id out for a random one."
      )
    self.used_ids.add(interrupt_id)

  def _output_for(self, run: _Run) -> list[str]:
    paths = [run.path]
    if run.terminal and not run.dynamic:
      paths.append(self.path)
      paths.extend(self.also_output_for)
    return paths

  def _new_event(self, run: _Run, **kwargs: Any) -> Event:
    event = Event(**kwargs)
    event.invocation_id = self.ic.invocation_id
    event.author = self.wf.name
    event.branch = run.branch
    event.node_info = NodeInfo(path=run.path)
    return event

  async def _emit(self, run: _Run, event: Event) -> None:
    """Hands the event to the workflow's generator and waits until it was committed."""
    ctx = run.ctx
    if run.buffer is not None:
      self._stamp(run, ctx, event)
      run.buffer.append(event)
      return
    self._stamp(run, ctx, event)
    future = asyncio.get_running_loop().create_future()
    self.queue.put_nowait(("event", (event, future)))
    await future

  def _stamp(self, run: _Run, ctx: Optional[Context], event: Event) -> None:
    if not event.invocation_id:
      event.invocation_id = self.ic.invocation_id
    if not event.author:
      event.author = ctx.event_author if ctx is not None and ctx.event_author else self.wf.name
    if event.node_info is None:
      event.node_info = NodeInfo(path=run.path)
    if event.branch is None:
      event.branch = run.branch
    if event.actions.route is not None:
      run.route_emitted = event.actions.route
    actions = ctx.pending_actions if ctx is not None else None
    if actions is not None and actions is not event.actions:
      if actions.state_delta:
        for key, value in actions.state_delta.items():
          event.actions.state_delta.setdefault(key, value)
        actions.state_delta.clear()
      if actions.artifact_delta:
        for key, value in actions.artifact_delta.items():
          event.actions.artifact_delta.setdefault(key, value)
        actions.artifact_delta.clear()

  # ---- dynamic nodes -------------------------------------------------------------------------------

  async def _run_dynamic(self, parent: Context, target: Any, node_input: Any, name: Optional[str],
                         run_id: Optional[str] = None) -> Any:
    from ._node import build_node

    node = build_node(target, name=name) if name else build_node(target)
    caller: Optional[_Run] = getattr(parent, "_wf_run", None)
    if run_id is None:
      if caller is not None and caller.child_counts is None:
        caller.child_counts = {}
      counts = caller.child_counts if caller is not None else self.dynamic_runs
      count = counts.get(node.name, 0) + 1
      counts[node.name] = count
      run_id = str(count)
    elif run_id.isdigit():
      raise ValueError(
          f"ctx.run_node(..., run_id={run_id!r}): an explicit run id needs a non-digit character (digits are the "
          "ids given automatically), e.g. run_id=f'item-{i}'."
      )
    path = f"{parent.node_path}/{node.name}@{run_id}"
    if caller is not None:
      task = asyncio.current_task()
      if task is not None and task is not caller.task:
        caller.children.add(task)  # started with asyncio.gather / create_task: awaited with the caller
    kind, value = self.state.child_answer(path, _reruns(node))
    if kind == "done":
      return value  # it finished in an earlier pass (or its answer completes it): not run again
    if kind == "waiting":
      parent.interrupt_ids.extend(value)  # still waiting: its request stands
      raise NodeInterruptedError()
    run = _Run(node, run_id, path, node_input, parent.branch)
    run.dynamic = True
    run.task = asyncio.current_task()
    if kind == "rerun":
      run.resume_inputs = value
    await self._attempts(run)
    if run.interrupts:
      self.state.child_paused(path, run.interrupts, run.paused_by_child)
      parent.interrupt_ids.extend(run.interrupts)
      raise NodeInterruptedError()
    self.state.child_done(path, run.output)
    return run.output

  async def _settle_children(self, run: _Run, cancel: bool = False) -> None:
    """Waits for (or cancels) the run's ctx.run_node children still running in their own tasks.

    When one child of an asyncio.gather pauses, its siblings keep running: they finish (or
    pause too) before the caller's run ends, so every request of the pass is recorded.
    """
    pending = [t for t in run.children if not t.done()]
    run.children.clear()
    if not pending:
      return
    if cancel:
      for task in pending:
        task.cancel()
    results = await asyncio.gather(*pending, return_exceptions=True)
    if not cancel:
      for result in results:
        if isinstance(result, Exception):
          raise result  # a child that failed on its own fails its caller, as an awaited one does


def _reruns(node: BaseNode) -> bool:
  """Whether an answered node runs again (with resume_inputs) instead of taking the answer as output.

  Agents always do: they resume through their own machinery (the paused call's answer is in the session).
  """
  return node.rerun_on_resume or isinstance(node, BaseAgent)


_WORKFLOW_TYPES: dict[type, bool] = {}


def _is_workflow(node: Any) -> bool:
  # Per class, once: a missed attribute on a pydantic class goes through its metaclass (slow).
  cls = type(node)
  found = _WORKFLOW_TYPES.get(cls)
  if found is None:
    found = _WORKFLOW_TYPES[cls] = getattr(cls, "_graph_events", None) is not None
  return found

