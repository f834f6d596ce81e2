"""BaseAgent: an agent is an async generator of Events, wrapped in callbacks."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, AsyncGenerator, ClassVar, Iterator, Optional

from google.genai import types
from pydantic import ConfigDict, Field, field_validator

from ..events.event import Event
from ..events.event_actions import EventActions
from ..telemetry import progress, tracing
from ..workflow._base_node import BaseNode
from . import _callbacks
from ._agent_state import BaseAgentState
from ._callbacks import AfterAgentCallback, BeforeAgentCallback  # noqa: F401  (google-adk's aliases)
from .callback_context import CallbackContext
from .invocation_context import InvocationContext

if TYPE_CHECKING:
  from ..pending import PendingItem
  from ..sessions.session import Session

logger = logging.getLogger(__name__)

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_set = object.__setattr__


class BaseAgent(BaseNode):
  """The base of every agent. Subclasses implement `_run_async_impl`.

  An agent is a workflow node (as in ADK 2.x), so it can stand in a Workflow's edges.
  """

  model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

  name: str
  """A Python-identifier name, unique within the agent tree; 'user' is reserved."""
  description: str = ""
  """One line on what the agent does; other agents read it to decide on transfers."""
  parent_agent: Optional["BaseAgent"] = Field(default=None, init=False)
  """Set when this agent is added as a sub-agent."""
  sub_agents: list["BaseAgent"] = Field(default_factory=list)
  """Child agents, for transfer or workflow composition."""
  before_agent_callback: _callbacks.CallbackOrList = None
  """`(callback_context) -> Content | None`; returning Content skips the agent and replies with it."""
  after_agent_callback: _callbacks.CallbackOrList = None
  """`(callback_context) -> Content | None`; returning Content adds a reply after the agent's."""


  config_type: ClassVar[Optional[type]] = None

  step_kind: ClassVar[str] = "agent"
  """How views draw this agent and its run ('agent', 'sequential', 'parallel', 'loop', 'workflow').

  A class attribute, so a subclass of LoopAgent is drawn as a loop: a custom agent class that
  orchestrates its children the same way may set it too."""

  @field_validator("name")
  @classmethod
  def _validate_name(cls, value: str) -> str:
    if not _NAME.fullmatch(value or ""):
      raise ValueError(
          f"Invalid agent name {value!r}: use a Python identifier (letters, digits, underscores; "
          f"not starting with a digit), e.g. {re.sub(r'[^A-Za-z0-9_]', '_', value or 'agent') or 'agent'!r}."
      )
    if value == "user":
      raise ValueError("The agent name 'user' is reserved for the end user's events; pick another name.")
    return value

  def model_post_init(self, __context: Any) -> None:
    owner = f"Agent {self.name!r}"
    # Runtime caches live in the instance __dict__, not pydantic PrivateAttrs: pydantic's
    # private-attribute lookup costs microseconds per read, and these are read every step.
    _set(self, "_before_cbs", _callbacks.normalize("before_agent_callback", self.before_agent_callback, owner))
    _set(self, "_after_cbs", _callbacks.normalize("after_agent_callback", self.after_agent_callback, owner))
    seen: set[str] = set()
    for sub in self.sub_agents:
      if sub.name in seen:
        raise ValueError(f"Agent {self.name!r} has two sub-agents named {sub.name!r}; agent names must be unique.")
      seen.add(sub.name)
      if sub.parent_agent is not None and sub.parent_agent is not self:
        raise ValueError(
            f"Agent {sub.name!r} already has parent {sub.parent_agent.name!r}, so it cannot also be "
            f"a sub-agent of {self.name!r}. Build a second instance (agent.clone(name=...)) or wrap it "
            "in AgentTool."
        )
      sub.parent_agent = self
    _warn_repeated_names(self)

  def __setattr__(self, name: str, value: Any) -> None:
    super().__setattr__(name, value)
    if name in type(self).model_fields:
      self._field_changed(name)

  def _field_changed(self, name: str) -> None:
    """Refreshes what was derived from a field at construction (`agent.before_agent_callback = f`)."""
    owner = f"Agent {self.name!r}"
    if name == "before_agent_callback":
      _set(self, "_before_cbs", _callbacks.normalize(name, self.before_agent_callback, owner))
    elif name == "after_agent_callback":
      _set(self, "_after_cbs", _callbacks.normalize(name, self.after_agent_callback, owner))

  # ---- tree navigation -------------------------------------------------------------------

  @property
  def root_agent(self) -> "BaseAgent":
    """The top of the agent tree."""
    agent = self
    while agent.parent_agent is not None:
      agent = agent.parent_agent
    return agent

  def find_agent(self, name: str) -> Optional["BaseAgent"]:
    """This agent or a descendant with that name; None when absent."""
    if self.name == name:
      return self
    return self.find_sub_agent(name)

  def find_sub_agent(self, name: str) -> Optional["BaseAgent"]:
    """A descendant with that name (the first, depth first); None when absent."""
    for agent in self._descendants():
      if agent.name == name:
        return agent
    return None

  def _descendants(self) -> Iterator["BaseAgent"]:
    """Every agent below this one, depth first; ValueError naming the loop if sub_agents has one."""
    path = [self]
    stack = [iter(self.sub_agents)]
    while stack:
      sub = next(stack[-1], None)
      if sub is None:
        stack.pop()
        path.pop()
        continue
      if any(sub is above for above in path):
        loop = " -> ".join(a.name for a in path[path.index(sub):]) + f" -> {sub.name}"
        raise ValueError(
            f"The agents' sub_agents form a loop ({loop}); an agent cannot contain itself or its "
            "parent. Remove it from sub_agents, or use a copy (agent.clone()) or AgentTool(agent).")
      yield sub
      path.append(sub)
      stack.append(iter(sub.sub_agents))

  def resume_entry(self, session: "Session", invocation_id: str,
                   paused: "PendingItem") -> tuple["BaseAgent", Optional[str]]:
    """Where a paused invocation of this tree continues: (the agent to run, its branch).

    Called on the root when a message answers `paused` (one of the invocation's pending
    items). The default walks up from the agent that paused to the highest agent that left
    a checkpoint (see `adk_nb.resume.checkpointed_entry`); a graph Workflow overrides this to
    continue at a node path instead. Raises `PausingAgentNotInTreeError` when the agent
    that paused is not in this tree.
    """
    from ..resume import checkpointed_entry

    return checkpointed_entry(self, session, invocation_id, paused)

  def clone(self, update: Optional[dict[str, Any]] = None) -> "BaseAgent":
    """A copy with no parent (sub-agents cloned too), with fields replaced from `update`."""
    update = dict(update or {})
    if "parent_agent" in update:
      raise ValueError("Cannot update `parent_agent` field in clone: add the clone to a parent's "
                       "sub_agents instead.")
    unknown = sorted(set(update) - set(type(self).model_fields))
    if unknown:
      raise ValueError(f"Cannot update nonexistent fields in {type(self).__name__}: {unknown}. "
                       f"Fields are: {sorted(type(self).model_fields)}.")
    data = {name: getattr(self, name) for name in type(self).model_fields if name != "parent_agent"}
    if "sub_agents" not in update:
      data["sub_agents"] = [sub.clone() for sub in self.sub_agents]
    for key in ("tools",):
      if key in data and isinstance(data[key], list):
        data[key] = list(data[key])
    data.update(update)
    return type(self)(**data)

  # ---- running ---------------------------------------------------------------------------

  async def run_async(self, parent_context: InvocationContext) -> AsyncGenerator[Event, None]:
    """Runs the agent: before-callbacks, `_run_async_impl`, after-callbacks. Do not override."""
    ctx = self._create_context(parent_context)
    span = tracing.agent_span(ctx)
    progress.agent_started(ctx)
    failure: Optional[BaseException] = None
    try:
      event = await self._handle_before_agent(ctx)
      if event is not None:
        yield event
      if ctx.end_invocation:
        return
      async for event in self._run_async_impl(ctx):
        yield event
      if ctx.end_invocation or ctx.paused:
        return
      event = await self._handle_after_agent(ctx)
      if event is not None:
        yield event
    except Exception as exc:
      failure = exc
      _callbacks.mark_origin(exc, self.name, ctx.branch)
      raise
    finally:
      tracing.end_span(span, failure)
      progress.agent_ended(ctx, failure)

  async def run_live(self, parent_context: InvocationContext) -> AsyncGenerator[Event, None]:
    raise NotImplementedError(f"Live (audio/video) runs are not supported by adk_nb ({type(self).__name__}).")
    yield  # pragma: no cover

  async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
    """The agent's own logic: yield Events. Override this in custom agents."""
    raise NotImplementedError(f"{type(self).__name__} must implement _run_async_impl(ctx).")
    yield  # pragma: no cover

  def _create_context(self, parent_context: InvocationContext) -> InvocationContext:
    return parent_context.model_copy(update={"agent": self})

  async def _handle_before_agent(self, ctx: InvocationContext) -> Optional[Event]:
    return await self._handle_agent_hook(ctx, "before_agent_callback", self._before_cbs)

  async def _handle_after_agent(self, ctx: InvocationContext) -> Optional[Event]:
    return await self._handle_agent_hook(ctx, "after_agent_callback", self._after_cbs)

  async def _handle_agent_hook(self, ctx: InvocationContext, kind: str, callbacks: tuple) -> Optional[Event]:
    """Runs plugin hooks then the agent's callbacks; returns the event they produce, if any.

    Content from a before-callback skips the agent (ADK's short-circuit); state writes or
    saved artifacts alone become an event carrying only their delta.
    """
    pm = ctx.plugin_manager
    if not callbacks and not (pm is not None and pm.has(kind)):
      return None
    cc = CallbackContext(ctx)
    content = await _callbacks.run_hooks(pm, kind, callbacks,
                                         plugin_kwargs={"agent": self, "callback_context": cc},
                                         callback_context=cc)
    if content is not None:
      if kind == "before_agent_callback":
        ctx.end_invocation = True
      return self._callback_event(ctx, content, cc.actions)
    if cc.state.has_delta() or cc.actions.artifact_delta:
      return self._callback_event(ctx, None, cc.actions)
    return None

  def _callback_event(self, ctx: InvocationContext, content: Optional[types.Content],
                      actions: EventActions) -> Event:
    if content is not None and not isinstance(content, types.Content):
      raise TypeError(
          f"Agent {self.name!r}: an agent callback must return types.Content or None, got "
          f"{type(content).__name__}."
      )
    return Event(invocation_id=ctx.invocation_id, author=self.name, branch=ctx.branch,
                 content=content, actions=actions)

  def _new_event(self, ctx: InvocationContext, **kwargs: Any) -> Event:
    """An event authored by this agent in the current invocation and branch."""
    return Event(invocation_id=ctx.invocation_id, author=self.name, branch=ctx.branch, **kwargs)

  def _load_agent_state(self, ctx: InvocationContext, state_type: type) -> Optional[BaseAgentState]:
    """This agent's checkpoint in the invocation, as `state_type` (a BaseAgentState); None if none."""
    raw = ctx.agent_states.get(self.name)
    return None if raw is None else state_type.model_validate(raw)

  def _create_agent_state_event(self, ctx: InvocationContext) -> Event:
    """An event carrying this agent's current checkpoint (or end-of-agent mark), to be yielded."""
    actions = EventActions()
    if self.name in ctx.agent_states:
      actions.agent_state = ctx.agent_states[self.name]
    if ctx.end_of_agents.get(self.name):
      actions.end_of_agent = True
    return self._new_event(ctx, actions=actions)

  def __repr__(self) -> str:
    return f"{type(self).__name__}(name={self.name!r})"

  # Agents form a tree with parent links; field-wise equality would recurse through it.
  __eq__ = object.__eq__
  __hash__ = object.__hash__


InvocationContext.model_rebuild()


def _warn_repeated_names(agent: BaseAgent) -> None:
  """Warns, as google-adk does, when a name repeats in the tree this agent now heads."""
  seen = {agent.name}
  repeated: set[str] = set()
  for sub in agent.sub_agents:  # repeats inside one sub-tree were reported when it was built
    names = {sub.name, *(node.name for node in sub._descendants())}
    repeated |= seen & names
    seen |= names
  if repeated:
    logger.warning(
        "Agent names repeat in the tree of %r: %s. Transfers, the agent that answers the next turn "
        "and resumed approvals find agents by name and take the first one depth first; give each "
        "agent its own name (agent.clone(update={'name': ...})).",
        agent.name, ", ".join(repr(n) for n in sorted(repeated)))
