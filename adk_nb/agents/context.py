"""Context: what a workflow node sees while it runs (ADK 2.x `google.adk.agents.context.Context`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from ..events.event_actions import EventActions
from ..sessions.state import State
from .callback_context import CallbackContext
from .readonly_context import ReadonlyContext

if TYPE_CHECKING:
  from ..workflow._base_node import BaseNode
  from .invocation_context import InvocationContext

RouteValue = Union[bool, int, str]
_UNSET = object()


class Context(CallbackContext):
  """The context of one node run: session state, the node's output and route, its path and run id.

  Writes to `state` are recorded and committed with the node's next event. `output` can be
  set once per run; `route` chooses which routed edges fire after the node.
  """

  _wf_run: Any = None
  """The workflow's record of this run (its NodeRunner), set by the runner while the node runs."""
  _offload: bool = False
  """Set by the runner: other nodes are running, so a blocking function node goes to a thread."""

  def __init__(
      self,
      invocation_context: "InvocationContext",
      *,
      node: Optional["BaseNode"] = None,
      node_path: Optional[str] = "",
      run_id: str = "1",
      attempt_count: int = 1,
      resume_inputs: Optional[dict[str, Any]] = None,
      event_author: Optional[str] = None,
      parent_ctx: Optional["Context"] = None,
      event_actions: Optional[EventActions] = None,
      run_node: Optional[Callable[..., Any]] = None,
      function_call_id: Optional[str] = None,
      tool_confirmation: Any = None,
      use_as_output: bool = False,
  ) -> None:
    """ADK 2.x: `Context(invocation_context, function_call_id=..., tool_confirmation=...)` makes the
    context a tool sees (request_confirmation / request_credential need the call id). When the node
    (or, else, the parent context) has a `state_schema`, writes to `state` are checked against it
    (StateSchemaError)."""
    # The actions and the state view are made on first use: most nodes never touch them.
    ReadonlyContext.__init__(self, invocation_context)
    self._ea = event_actions
    self._sv = None
    self.node = node
    """The node being run."""
    self.function_call_id = function_call_id
    """The id of the tool call being answered; None outside a tool."""
    self.use_as_output = use_as_output
    """True when this run's output is also its parent's (a `run_node(..., use_as_output=True)` child)."""
    self.node_path = node_path or ""
    """Where the run sits in the graph, e.g. 'pipeline@1/review@2'."""
    self.run_id = run_id
    """This run's id: '1', '2', ... per node path (each loop iteration gets the next one)."""
    self.attempt_count = attempt_count
    """1 on the first attempt, 2 on the first retry, ..."""
    self.resume_inputs: dict[str, Any] = dict(resume_inputs or {})
    """Answers (interrupt id -> response) when a rerun_on_resume node runs again after a pause."""
    self.event_author = event_author
    """The author stamped on this node's events (the enclosing workflow, for non-agent nodes)."""
    self.parent_ctx = parent_ctx
    self.isolation_scope: Optional[str] = (parent_ctx.isolation_scope if parent_ctx is not None
                                           else getattr(invocation_context, "isolation_scope", None))
    """The delegated task whose events this run sees and writes (None: the whole conversation)."""
    self.interrupt_ids: list[str] = []
    """Ids of the RequestInput / long-running calls this run is waiting on."""
    self.error: Optional[BaseException] = None
    self.tool_confirmation: Any = tool_confirmation
    """The person's answer (a ToolConfirmation) when a node with require_confirmation runs after approval."""
    self._output: Any = _UNSET
    self._route: Any = None
    self._run_node = run_node

  @property
  def _event_actions(self) -> EventActions:
    if self._ea is None:
      self._ea = EventActions()
    return self._ea

  @property
  def _state(self) -> State:
    if self._sv is None:
      self._sv = State(value=self._invocation_context.session.state, delta=self._event_actions.state_delta,
                       schema=self._state_schema())
    return self._sv

  def _state_schema(self) -> Any:
    """The state schema writes are checked against: the node's, else the parent context's, else
    (for a node of the top-level workflow) the schema of the agent the invocation runs."""
    schema = getattr(self.node, "state_schema", None)
    if schema is None and self.parent_ctx is not None:
      schema = self.parent_ctx._state_schema()
    elif schema is None and self.node is not None:
      schema = getattr(self._invocation_context.agent, "state_schema", None)
    return schema if isinstance(schema, type) else None

  def _state_to_read(self) -> Any:
    """State for lookups only: the session's own mapping while nothing is pending, so reading
    a parameter from state does not build the write-recording view and its actions."""
    if self._sv is None and self._ea is None:
      return self._invocation_context.session.state
    return self._state

  def get_invocation_context(self) -> "InvocationContext":
    """A copy of the invocation seen from this run: its session and `isolation_scope` (ADK 2.x)."""
    return self._invocation_context.model_copy(update={"session": self.session,
                                                       "isolation_scope": self.isolation_scope})

  @property
  def pending_actions(self) -> EventActions | None:
    """The actions recorded so far, or None when the node wrote nothing (no state, no artifact)."""
    return self._ea

  @property
  def output(self) -> Any:
    """The node's result; None until set. Setting it a second time raises ValueError (after
    `run_node(..., use_as_output=True)` the child's output is the result, and a set is ignored)."""
    return None if self._output is _UNSET else self._output

  @output.setter
  def output(self, value: Any) -> None:
    if self._output is not _UNSET:
      run = self._wf_run
      if run is not None and run.delegated:
        return  # as google-adk: after ctx.run_node(..., use_as_output=True) the child's output stands
      raise ValueError(
          f"Output already set for node {self.node_path or '?'}: a node can produce at most one output. "
          "Return (or yield) a single value, or collect several into a list or dict."
      )
    self._output = value

  @property
  def _output_delegated(self) -> bool:
    """True once a `run_node(..., use_as_output=True)` child gave this run its output (google-adk's flag;
    setting it makes the run keep its own output without emitting it)."""
    run = self._wf_run
    return bool(run is not None and run.delegated)

  @_output_delegated.setter
  def _output_delegated(self, value: bool) -> None:
    run = self._wf_run
    if run is not None:
      run.delegated = bool(value)

  @property
  def has_output(self) -> bool:
    """True once the output was set (possibly to None)."""
    return self._output is not _UNSET

  @property
  def route(self) -> Any:
    """The route taken (a value or a list of values); routed edges with a matching route fire."""
    return self._route

  @route.setter
  def route(self, value: Any) -> None:
    self._route = value

  @property
  def branch(self) -> Optional[str]:
    """The branch of this run ('name@run' lanes after a fan-out; None on the trunk)."""
    return self._invocation_context.branch

  async def run_node(self, node: Any, node_input: Any = None, *, use_as_output: bool = False,
                     run_id: Optional[str] = None, name: Optional[str] = None, raise_on_wait: bool = True) -> Any:
    """Runs another node (function, agent, workflow) as a child of this one and returns its output.

    The child's events stream like any node's, under this node's path ('parent@1/child@1',
    'child@2', ... or 'child@{run_id}' with an explicit, non-numeric `run_id`). Runs started
    together with asyncio.gather overlap. With `use_as_output` the child's output is also this
    node's output: the child's output event stands for both, and the node may also return
    that same value (`return await ctx.run_node(b, use_as_output=True)`) without a second
    output event.

    A child that asks for input (a RequestInput, a tool confirmation inside an agent) pauses
    the workflow: the calling node stops there, and when the answer comes it runs again from
    the top; children that had finished return their recorded output without running again,
    and the answered child completes with the answer (or runs again with `resume_inputs`
    when it has `rerun_on_resume=True`). Unlike google-adk, the calling node needs no
    `rerun_on_resume=True` for this. `raise_on_wait` is accepted for google-adk's signature: adk_nb
    always stops the caller at a waiting child (google-adk's `raise_on_wait=True`); google-adk's
    default instead returns None to the caller, which then runs on without the child's output.
    """
    if self._run_node is None:
      raise ValueError("ctx.run_node is only available to nodes running inside a Workflow.")
    return await self._run_node(self, node, node_input, name, run_id, use_as_output)
