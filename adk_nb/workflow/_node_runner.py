"""NodeRunner: runs one node once (its attempts, timeout, events and result), for a workflow or on its own.

The graph's asyncio driver (`_scheduler.Scheduler`) makes one NodeRunner per node run and is
its host: the runner stamps each event the node produces (author, path, branch, pending state
deltas) and hands it to the host, which yields it for the Runner to commit before the node
continues. Used on its own, `NodeRunner(node=..., parent_ctx=ctx).run(node_input)` runs a node
under an existing Context and returns the run's Context (`output`, `route`, `interrupt_ids`,
`error`), as google-adk 2.x's `workflow._node_runner.NodeRunner` does; its events go to the
invocation's `_enqueue_event` when there is one, else they are committed to the session.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Optional, Protocol

from google.genai import types
from pydantic import BaseModel

from ..agents import _callbacks
from ..agents.base_agent import BaseAgent
from ..agents.context import Context
from ..errors import event_error_code, traceback_text
from ..events.event import Event, NodeInfo
from ..events.protocol import TRACEBACK_KEY
from ..events.request_input import RequestInput
from ._base_node import BaseNode
from ._errors import DynamicNodeFailError, NodeInterruptedError, NodeTimeoutError, dynamic_node_failure
from ._llm_agent_wrapper import FinishTaskOutput
from ._node_state import NodeState
from ._values import request_input_event as _request_input_event
from ._values import user_content as _user_content
from ._values import validate as _validate
from .utils._retry_utils import _get_retry_delay, _should_retry_node

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext
  from ._graph_state import NodeRun


class _Host(Protocol):
  """What a NodeRunner needs from whoever runs it (the workflow's scheduler, or `_Standalone`)."""

  ic: "InvocationContext"
  author: str
  parent_ctx: Optional[Context]
  keeps_ctx: bool
  running: dict[str, "NodeRunner"]
  """Runs executing as tasks now (a blocking function runs on a thread when others do)."""
  prior_output: Any
  prior_interrupt_ids: Optional[set[str]]
  isolation_scope: Optional[str]
  """A standalone run's carried-forward result and isolation scope (None under a workflow)."""

  def output_for(self, runner: "NodeRunner") -> list[str]: ...
  def check_new_interrupt(self, runner: "NodeRunner", interrupt_id: str) -> None: ...
  async def run_dynamic(self, parent: Context, target: Any, node_input: Any, name: Optional[str],
                        run_id: Optional[str] = None, use_as_output: bool = False) -> Any: ...
  async def deliver(self, event: Event) -> None: ...


class GraphResult:
  """What a workflow run produced: its output, or the interrupts it is waiting on."""

  __slots__ = ("output", "has_output", "interrupts")

  def __init__(self) -> None:
    self.output: Any = None
    self.has_output = False
    self.interrupts: list[str] = []


class NodeRunner:
  """One run of one node: its record (input, output, route, interrupts) and the code that drives it."""


  __slots__ = ("node", "name", "run_id", "path", "input", "branch", "ctx", "output", "has_output",
               "route", "interrupts", "error", "output_emitted", "route_emitted", "buffer", "resume_inputs", "terminal",
               "dynamic", "task", "children", "child_counts", "paused_by_child", "spec", "host", "kept_ctx",
               "output_of", "delegated", "error_path")

  def __init__(self, node: BaseNode, parent_ctx: Optional[Context] = None, run_id: Optional[str] = None, *,
               host: Optional["_Host"] = None, path: Optional[str] = None, node_input: Any = None,
               branch: Optional[str] = None, override_branch: Optional[str] = None, use_sub_branch: bool = False,
               use_as_output: bool = False, prior_output: Any = None, prior_interrupt_ids: Optional[set[str]] = None,
               override_isolation_scope: Optional[str] = None):
    """`NodeRunner(node=..., parent_ctx=ctx, run_id=None, override_branch=None, use_sub_branch=False)` runs
    `node` on its own under `ctx` (the other arguments are the workflow scheduler's): its events are
    authored by `ctx.event_author` (else the node's name), on `override_branch` (else the parent's
    branch), in a lane of their own `'{branch}.{name}@{run_id}'` with `use_sub_branch`.

    As google-adk's: `use_as_output` makes its output the parent's too (its output event names both);
    `prior_output` / `prior_interrupt_ids` carry an earlier run's result forward (the output stands
    unless the node gives another; the requests are merged with the new ones); `override_isolation_scope`
    is the run's `ctx.isolation_scope`, stamped on its events."""
    if host is None:
      if parent_ctx is None:
        raise ValueError("NodeRunner(node=..., parent_ctx=...) needs the Context of the run it runs under.")
      host = _Standalone(node, parent_ctx, use_as_output, prior_output, prior_interrupt_ids,
                         override_isolation_scope)
      run_id = run_id or "1"
      path = f"{parent_ctx.node_path}/{node.name}@{run_id}" if parent_ctx.node_path else f"{node.name}@{run_id}"
      branch = override_branch if override_branch is not None else parent_ctx._invocation_context.branch
      if use_sub_branch:
        branch = f"{branch}.{node.name}@{run_id}" if branch else f"{node.name}@{run_id}"
    self.host = host
    self.kept_ctx: Optional[Context] = None
    self.output_of: Optional["NodeRunner"] = None
    """The caller whose output this run's output is (`ctx.run_node(..., use_as_output=True)`)."""
    self.error_path: Optional[str] = None
    """The path of the node whose exception failed this run (its own, or a `ctx.run_node` child's)."""
    self.delegated = False
    """True once a `ctx.run_node(..., use_as_output=True)` child gave this run its output."""
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

  async def run(self, node_input: Any = None, resume_inputs: Optional[dict[str, Any]] = None) -> Context:
    """Runs the node (with its retries and timeout) and returns the run's Context.

    The Context holds the result: `output`, `route`, `interrupt_ids` (a set) and `error` (the
    exception the node raised after its retries, whose error event was already delivered).
    """
    self.input = node_input
    if resume_inputs:
      self.resume_inputs = dict(resume_inputs)
    try:
      await self._attempts()
    except (asyncio.CancelledError, KeyboardInterrupt, SystemExit):
      raise
    except BaseException as exc:
      if self.kept_ctx is None:
        raise
      self.kept_ctx.error = exc
    ctx, self.kept_ctx = self.kept_ctx, None
    ctx._wf_run = None
    if self.has_output and not ctx.has_output:
      ctx._output = self.output
    host = self.host
    if not ctx.has_output and host.prior_output is not None:
      ctx._output = host.prior_output
    if self.route is not None:
      ctx.route = self.route
    ctx.interrupt_ids = set(self.interrupts) | set(host.prior_interrupt_ids or ())
    return ctx

  async def _attempts(self) -> None:
    node = self.node
    policy = node.retry_config
    attempt = 1
    try:
      while True:
        ic = self.host.ic
        if self.branch != ic.branch:
          ic = ic.model_copy(update={"branch": self.branch})
        author = None if isinstance(node, BaseAgent) and not _is_workflow(node) else self.host.author
        ctx = Context(ic, node=node, node_path=self.path, run_id=self.run_id, attempt_count=attempt,
                      resume_inputs=self.resume_inputs, event_author=author or self.host.author,
                      parent_ctx=self.host.parent_ctx, run_node=self.host.run_dynamic)
        ctx._offload = len(self.host.running) > 1  # others are running: a blocking function goes to a thread
        if self.host.isolation_scope is not None:
          ctx.isolation_scope = self.host.isolation_scope
        ctx._wf_run = self
        self.ctx = ctx
        self.output, self.has_output, self.route, self.interrupts = None, False, None, []
        self.output_emitted = self.delegated = False
        self.route_emitted = None
        self.child_counts = None
        self.paused_by_child = False
        try:
          if node.timeout:
            try:
              async with asyncio.timeout(node.timeout) as scope:
                await self._drive(ctx)
            except TimeoutError as exc:
              if scope.expired():
                raise NodeTimeoutError(node.name, node.timeout) from exc
              raise
          else:
            await self._drive(ctx)
          return
        except asyncio.CancelledError:
          raise
        except Exception as caught:
          # A `ctx.run_node` child's failure the node let through: the run fails with the child's own
          # exception (reported already, by the child), as google-adk's NodeRunner unwraps it.
          exc = caught.error if isinstance(caught, DynamicNodeFailError) else caught
          self.error_path = caught.error_node_path if exc is not caught else self.path
          # One error event per failure, as in google-adk: from the node that raised, not again
          # from an enclosing workflow node, a parent of a dynamic node or the Runner.
          invocation_id = self.host.ic.invocation_id
          if _callbacks.reported_in(exc) != invocation_id:
            # google-adk's code, and the traceback the inspector folds.
            await self._emit(Event(error_code=event_error_code(exc), error_message=str(exc),
                                        custom_metadata={TRACEBACK_KEY: traceback_text(exc)}))
            _callbacks.mark_reported(exc, invocation_id)
          if policy is not None and _should_retry_node(exc, policy, NodeState(attempt_count=attempt)):
            _callbacks.take_origin(exc)  # swallowed by the retry: a raise of the same object is new
            await asyncio.sleep(_get_retry_delay(policy, NodeState(attempt_count=attempt)))
            attempt += 1
            continue
          if exc is caught:
            raise
        raise exc  # outside the handler: the child's exception, not chained to its wrapper
    finally:
      if self.host.keeps_ctx:
        self.kept_ctx = ctx
      # The run and its Context point at each other; unlinked here, a finished run (and the
      # session copy its invocation holds) is freed at once instead of waiting for the cycle
      # collector, whose passes would otherwise walk that copy of the whole history.
      self.ctx = None

  async def _drive(self, ctx: Context) -> None:
    node = self.node
    node_input = self.input
    if node.input_schema is not None:
      own = getattr(node, "_validate_input_data", None)  # a JoinNode checks each joined input
      node_input = own(node_input) if own is not None else _validate(node.input_schema, node_input)
    if _is_workflow(node):
      result = GraphResult()
      async for event in node._graph_events(ctx._invocation_context, self.path, node_input, result, ctx,
                                            tuple(self.host.output_for(self)[1:])):
        await self._emit(event)
      if result.interrupts:
        self.interrupts = list(result.interrupts)
      elif result.has_output:
        # A workflow's output_schema checks (and coerces) what its terminal node produced.
        output = _validate(node.output_schema, result.output)
        self.output, self.has_output, self.output_emitted = output, True, True
      return
    if isinstance(node, BaseAgent):
      await self._drive_agent(ctx, node, node_input)
      return
    if self.buffer is not None and getattr(node, "_is_plain_sync", False):
      # A plain function run inline: call it directly, no generator to drive.
      event = self._to_event(ctx, node.func(**node._bind(ctx, node_input)))
      if event is not None:
        await self._emit(event)
    else:
      if type(node).run is _BASE_RUN:
        stream = node._run_impl(ctx=ctx, node_input=node_input)
      else:  # a subclass that overrides google-adk's public `run`: its Events are taken as they are
        stream = node.run(ctx=ctx, node_input=node_input)
      try:
        async for item in stream:
          event = self._to_event(ctx, item)
          if event is None:
            continue
          await self._emit(event)
          if ctx.interrupt_ids:
            break  # the node stops at its interrupt: code after the yield does not run
      except NodeInterruptedError:
        self.paused_by_child = True  # a ctx.run_node child asked for input; its ids are in ctx
      except BaseException:
        await self._settle_children(cancel=True)
        raise
      finally:
        await stream.aclose()
      await self._settle_children()
    self.interrupts = list(ctx.interrupt_ids)
    if ctx.has_output and not self.has_output:
      self.output, self.has_output = _validate(node.output_schema, ctx.output), True
      self.output_emitted = self.delegated  # a delegated run's output was (or is not to be) emitted
    if ctx.route is not None:
      self.route = ctx.route
    if self.interrupts:
      return
    pending_route = ctx.route is not None and self.route_emitted != ctx.route
    pending = ctx.pending_actions
    if (self.has_output and not self.output_emitted) or pending_route or (pending is not None and (
        pending.state_delta or pending.artifact_delta)):
      event = Event(output=self.output if self.has_output and not self.output_emitted else None)
      if ctx.route is not None:
        event.actions.route = ctx.route
      if self.has_output and not self.output_emitted:
        event.node_info = NodeInfo(path=self.path, output_for=self.host.output_for(self))
        self.output_emitted = True
      await self._emit(event)

  async def _drive_agent(self, ctx: Context, agent: BaseAgent, node_input: Any) -> None:
    from ..agents.llm_agent import LlmAgent

    ic = ctx._invocation_context
    llm = isinstance(agent, LlmAgent)
    if llm and node_input is not None and node_input is not ic.user_content and not self.resume_inputs:
      # The node input becomes the agent's user turn: committed to the session, not yielded
      # (as google-adk does, and as the Runner does with the user's own message).
      turn = Event(invocation_id=ic.invocation_id, author="user", branch=self.branch,
                   content=_user_content(node_input), node_info=NodeInfo(path=self.path))
      await ic.session_service.append_event(ic.session, turn)
    text: Optional[str] = None
    task = FinishTaskOutput.of(agent)  # a task-mode agent's output is its finish_task result
    async for event in agent.run_async(ic):
      if event.author:
        ctx.event_author = event.author  # as google-adk: the agent's error event has its last author
      if event.long_running_tool_ids:
        ctx.interrupt_ids.extend(sorted(event.long_running_tool_ids))
      if task is not None:
        if task.see(event):
          event.node_info = NodeInfo(path=self.path, output_for=self.host.output_for(self))
          self.output, self.has_output, self.output_emitted = task.output, True, True
      elif ((event.author == agent.name if llm else event.author != "user") and not event.partial
          and event.content is not None
          and event.is_final_response() and not event.get_function_responses()
          and not event.long_running_tool_ids and not event.error_code):
        text = event.text
        event.node_info = NodeInfo(path=self.path, message_as_output=True)
      await self._emit(event)
    self.interrupts = list(ctx.interrupt_ids)
    if self.interrupts or text is None or task is not None:
      return
    value: Any = text
    if llm and agent.output_schema is not None:
      from ..utils._schema_utils import is_basemodel_schema, validate_schema

      value = (agent.output_schema.model_validate_json(text).model_dump()
               if is_basemodel_schema(agent.output_schema) else validate_schema(agent.output_schema, text))
    self.output, self.has_output, self.output_emitted = value, True, True

  def _to_event(self, ctx: Context, item: Any) -> Optional[Event]:
    if item is None:
      return None
    if self.delegated and not isinstance(item, RequestInput):
      # After `ctx.run_node(..., use_as_output=True)` the child's output is this run's: the node's own
      # outputs are dropped, as in google-adk (an event keeps what else it carries).
      # (A run marked delegated with no delegate's output yet, `ctx._output_delegated = True`, keeps
      # the value as its result without emitting it.)
      if not isinstance(item, Event):
        if not isinstance(item, types.Content):
          self._keep_unemitted(ctx, _validate(self.node.output_schema, item))
        return None
      if item.output is not None:
        self._keep_unemitted(ctx, item.output)
        item.output = None
        if not _carries_more_than_output(item):
          return None
    if isinstance(item, Event):
      if item.output is not None:
        ctx.output = _validate(self.node.output_schema, item.output)
        item.output = ctx.output
        self.output, self.has_output, self.output_emitted = ctx.output, True, True
        if not item.node_info.path:
          item.node_info.path = self.path
        item.node_info.output_for = self.host.output_for(self)
      if item.actions.route is not None and (not item.author or item.author == ctx.event_author):
        ctx.route = item.actions.route
      if item.long_running_tool_ids:
        ctx.interrupt_ids.extend(sorted(item.long_running_tool_ids))
      if ctx.event_author:
        item.author = ctx.event_author  # as google-adk: the runner authors what a node yields
      return item
    if isinstance(item, RequestInput):
      self.host.check_new_interrupt(self, item.interrupt_id)
      ctx.interrupt_ids.append(item.interrupt_id)
      return _request_input_event(item)
    if isinstance(item, types.Content) and self.node.output_schema is None:  # with a schema: parsed below
      ctx.output = item
      self.output, self.has_output, self.output_emitted = item, True, True
      return Event(content=item, node_info=NodeInfo(path=self.path, output_for=self.host.output_for(self),
                                                    message_as_output=True))
    value = _validate(self.node.output_schema, item)
    if isinstance(value, BaseModel):
      value = value.model_dump()
    ctx.output = value
    self.output, self.has_output, self.output_emitted = value, True, True
    event = Event(output=value, node_info=NodeInfo(path=self.path, output_for=self.host.output_for(self)))
    if ctx.route is not None:
      event.actions.route = ctx.route
    return event

  def _keep_unemitted(self, ctx: Context, value: Any) -> None:
    if not ctx.has_output:
      ctx._output = value
      self.output, self.has_output, self.output_emitted = value, True, True

  async def _emit(self, event: Event) -> None:
    """Stamps the event and hands it on; returns once it was committed (or buffered, inline)."""
    self._stamp(self.ctx, event)
    if self.buffer is not None:
      self.buffer.append(event)
      return
    await self.host.deliver(event)

  def _stamp(self, ctx: Optional[Context], event: Event) -> None:
    if not event.invocation_id:
      event.invocation_id = self.host.ic.invocation_id
    if not event.author:
      event.author = ctx.event_author if ctx is not None and ctx.event_author else self.host.author
    if not event.node_info.path:  # an event made outside a graph: its NodeInfo is empty
      event.node_info.path = self.path
    if event.branch is None:
      event.branch = self.branch
    if event.actions.route is not None:
      self.route_emitted = event.actions.route
    actions = ctx.pending_actions if ctx is not None else None
    # A partial (streamed) event is not committed: pending deltas wait for the next whole one.
    if actions is not None and actions is not event.actions and not event.partial:
      if actions.state_delta:
        for key, value in actions.state_delta.items():
          event.actions.state_delta.setdefault(key, value)
        actions.state_delta.clear()
      if actions.artifact_delta:
        for key, value in actions.artifact_delta.items():
          event.actions.artifact_delta.setdefault(key, value)
        actions.artifact_delta.clear()

  async def _settle_children(self, cancel: bool = False) -> None:
    """Waits for (or cancels) the run's ctx.run_node children still running in their own tasks.

    When one child of an asyncio.gather pauses, its siblings keep running: they finish (or
    pause too) before the caller's run ends, so every request of the pass is recorded.
    """
    pending = [t for t in self.children if not t.done()]
    self.children.clear()
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


class _Standalone:
  """The host of a NodeRunner used on its own, under an existing Context."""

  keeps_ctx = True

  def __init__(self, node: BaseNode, parent_ctx: Context, use_as_output: bool = False, prior_output: Any = None,
               prior_interrupt_ids: Optional[set[str]] = None, isolation_scope: Optional[str] = None) -> None:
    self.ic = parent_ctx._invocation_context
    self.author = parent_ctx.event_author or node.name
    self.parent_ctx = parent_ctx
    self.counts: dict[str, int] = {}
    self.running: dict[str, NodeRunner] = {}
    self.use_as_output = use_as_output
    self.prior_output = prior_output
    self.prior_interrupt_ids = prior_interrupt_ids
    self.isolation_scope = isolation_scope

  def output_for(self, runner: NodeRunner) -> list[str]:
    if self.use_as_output and self.parent_ctx.node_path:
      return [runner.path, self.parent_ctx.node_path]
    return [runner.path]

  def check_new_interrupt(self, runner: NodeRunner, interrupt_id: str) -> None:
    return None

  async def run_dynamic(self, parent: Context, target: Any, node_input: Any, name: Optional[str],
                        run_id: Optional[str] = None, use_as_output: bool = False) -> Any:
    from ._node import build_node

    node = build_node(target, name=name) if name else build_node(target)
    if run_id is None:
      run_id = str(self.counts.get(node.name, 0) + 1)
      self.counts[node.name] = int(run_id)
    run = NodeRunner(node, parent, run_id)
    ctx = await run.run(node_input=node_input)
    if ctx.error is not None:
      raise dynamic_node_failure(ctx.error, node.name, run.error_path or run.path)
    if ctx.interrupt_ids:
      parent.interrupt_ids.extend(sorted(ctx.interrupt_ids))
      raise NodeInterruptedError()
    if use_as_output:
      parent.output = ctx.output
    return ctx.output

  async def deliver(self, event: Event) -> None:
    if self.isolation_scope is not None and event.isolation_scope is None:
      event.isolation_scope = self.isolation_scope
    enqueue = getattr(self.ic, "_enqueue_event", None)
    if enqueue is not None:
      await enqueue(event)
    elif not event.partial:
      await self.ic.session_service.append_event(self.ic.session, event)


_BASE_RUN = BaseNode.run


def _carries_more_than_output(event: Event) -> bool:
  actions = event.actions
  return bool(event.content is not None or event.long_running_tool_ids or event.error_code
              or actions.state_delta or actions.artifact_delta or actions.route is not None
              or actions.transfer_to_agent or actions.escalate)


def _is_workflow(node: Any) -> bool:
  return node._is_workflow_node
