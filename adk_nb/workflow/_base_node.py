"""BaseNode: the unit of a workflow graph. Agents are nodes too (BaseAgent subclasses BaseNode).

This module sits low (beside events): agents import it, and it imports nothing from agents
or from the scheduler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncGenerator, ClassVar, Optional

from pydantic import BaseModel, ConfigDict, field_validator

from ._retry_config import RetryConfig

if TYPE_CHECKING:
  from ..agents.context import Context


class BaseNode(BaseModel):
  """A step of a workflow graph: it receives one input and produces at most one output per run.

  Subclass it and implement `_run_impl`, an async generator (or override `run`, as google-adk allows). Whatever it yields becomes an
  event: an `Event` passes through, a `RequestInput` pauses the run for a person's answer,
  and any other value is the node's output (passed to the nodes its edges lead to).
  """

  model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

  _is_workflow_node: ClassVar[bool] = False
  """True for Workflow: the scheduler runs its graph in place instead of calling `_run_impl`."""

  name: str
  """A Python identifier, unique within the workflow."""
  description: str = ""
  """What the node does, in one line."""
  rerun_on_resume: bool = False
  """After a pause, run the node again with `ctx.resume_inputs` (True) or take the answer as its output (False)."""
  wait_for_output: bool = False
  """A run that ends with neither output nor route leaves the node waiting (no successors fire)."""
  retry_config: Optional[RetryConfig] = None
  """Run the node again when it raises (see RetryConfig)."""
  timeout: Optional[float] = None
  """Seconds one attempt may take; past it the attempt fails with NodeTimeoutError."""
  input_schema: Any = None
  """A type the node input is validated (and coerced) against before the node runs."""
  output_schema: Any = None
  """A type the node output is validated (and coerced) against."""

  @field_validator("name")
  @classmethod
  def _validate_name(cls, value: str) -> str:
    if not isinstance(value, str) or not value.isidentifier():
      raise ValueError(
          f"Invalid node name {value!r}: a node name must be a Python identifier (letters, digits, "
          "underscores, not starting with a digit); pass name=... explicitly."
      )
    return value

  async def run(self, *, ctx: "Context", node_input: Any) -> AsyncGenerator[Any, None]:
    """Runs `_run_impl` and yields what it yields as Events (google-adk 2.x's public entry point).

    `node_input` is checked against `input_schema` first and each output against `output_schema`;
    a RequestInput becomes its `adk_request_input` event, any other value `Event(output=value)`. A
    subclass may override `run` instead of `_run_impl` (as google-adk allows): the workflow then
    calls it and takes its Events as they are.
    """
    from ..events.event import Event
    from ..events.request_input import RequestInput
    from ._values import request_input_event, validate

    if self.input_schema is not None:
      node_input = validate(self.input_schema, node_input)
    stream = self._run_impl(ctx=ctx, node_input=node_input)
    try:
      async for item in stream:
        if item is None:
          continue
        if isinstance(item, Event):
          if item.output is not None:
            item.output = validate(self.output_schema, item.output)
          yield item
        elif isinstance(item, RequestInput):
          yield request_input_event(item)
        else:
          yield Event(output=validate(self.output_schema, item))
    finally:
      await stream.aclose()

  async def _run_impl(self, *, ctx: "Context", node_input: Any) -> AsyncGenerator[Any, None]:
    """The node's logic: yield its output (or Events, or a RequestInput). Override this."""
    raise NotImplementedError(f"{type(self).__name__} must implement _run_impl(*, ctx, node_input).")
    yield  # pragma: no cover

  # ---- hooks the graph uses --------------------------------------------------------------------

  @property
  def _requires_all_predecessors(self) -> bool:
    """True for barrier nodes (JoinNode): run once every predecessor has completed."""
    return False

  def _validate_outgoing_edges(self, edges: list) -> None:
    """Lets a node reject the edges leaving it; raise ValueError naming the fix."""

  def _iter_static_children(self):
    """Nodes nested inside this one (a Workflow's graph nodes), for tree walks."""
    return iter(())

  def __repr__(self) -> str:
    return f"{type(self).__name__}(name={self.name!r})"

  __eq__ = object.__eq__
  __hash__ = object.__hash__


class _Start(BaseNode):
  """The entry of every graph; its output is the user's message."""


START = _Start(name="__START__")
"""The entry node. In `edges`, the string "START" means the same."""
