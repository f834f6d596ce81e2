"""Checkpoints that let a paused workflow agent continue exactly where it stopped."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ..events.event import Event
from ..events.event_actions import EventActions
from ..resume import PauseWindow

if TYPE_CHECKING:
  from .base_agent import BaseAgent
  from .invocation_context import InvocationContext


def pause_checkpoint(agent: "BaseAgent", ctx: "InvocationContext", state: dict[str, Any]) -> Event:
  """An event recording where `agent` was when the invocation paused (committed like any event)."""
  return Event(invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch,
               actions=EventActions(agent_state=state))


def progress_checkpoint(agent: "BaseAgent", ctx: "InvocationContext", state: dict[str, Any]) -> Optional[Event]:
  """In a resumable app, the event recording a workflow agent's progress (ADK's agent_state
  format, e.g. {'current_sub_agent': 'b'}); None otherwise."""
  if not ctx.is_resumable:
    return None
  return pause_checkpoint(agent, ctx, state)


async def commit_pause_checkpoint(agent: "BaseAgent", ctx: "InvocationContext", state: dict[str, Any]) -> None:
  """Commits the checkpoint of a pause to the session without yielding it.

  The resume reads it back from the session (`PauseWindow`); a client sees what google-adk 2.13
  shows at a workflow agent's pause, resumable app or not: nothing after the paused sub-agent's
  last event. (The Workflow scheduler records its own pause checkpoint the same way.)
  """
  await ctx.session_service.append_event(ctx.session, pause_checkpoint(agent, ctx, state))


def end_of_agent(agent: "BaseAgent", ctx: "InvocationContext") -> Optional[Event]:
  """In a resumable app, the event saying `agent` finished (end_of_agent); None otherwise,
  and None when the agent stopped because the invocation paused or ended early."""
  if not ctx.is_resumable or ctx.paused or ctx.end_invocation:
    return None
  return Event(invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch,
               actions=EventActions(end_of_agent=True))


def ended_before_handover(agent: "BaseAgent", ctx: "InvocationContext") -> bool:
  """True when this run resumed an agent whose end marker was already streamed: a top-level agent
  (no parent, or an LlmAgent parent) of a resumable app that had handed the turn over by transfer
  ends before its target starts (flows.llm_flow), so the resume that finishes the target ends nothing
  of it, as in google-adk."""
  if not (ctx.is_resumable and ctx.resumed):
    return False
  saved = _pause_window(ctx).state_of(agent.name, ctx.branch)
  if not (saved and saved.get("transferred_to")):
    return False
  from .llm_agent import LlmAgent

  parent = agent.parent_agent
  return parent is None or isinstance(parent, LlmAgent)


def _pause_window(ctx: "InvocationContext") -> PauseWindow:
  """The checkpoints of this invocation's latest pause, read once per resume."""
  shared = ctx._shared
  if shared.pause_window is None:
    shared.pause_window = PauseWindow.read(ctx.session.events, ctx.invocation_id)
  return shared.pause_window


def restored_state(agent: "BaseAgent", ctx: "InvocationContext") -> Optional[dict[str, Any]]:
  """The checkpoint to continue from, once per resume; None on a fresh run.

  Besides the checkpoints of a paused invocation, a resumable context may carry states set through
  google-adk's API (`ctx.agent_states[name] = ...`, `populate_invocation_agent_states`): the agent
  continues from those.
  """
  key = (agent.name, ctx.branch or "")
  shared = ctx._shared
  if key in shared.restored:
    return None
  if not ctx.resumed:
    given = ctx.agent_states.get(agent.name) if ctx.is_resumable else None
    if not given:
      return None
    shared.restored.add(key)
    return given if isinstance(given, dict) else given.model_dump(mode="json")
  shared.restored.add(key)
  return _pause_window(ctx).state_of(agent.name, ctx.branch)


def sub_agent_index(agent: "BaseAgent", name: Optional[str]) -> int:
  """The position of the sub-agent called `name` (google-adk's `current_sub_agent`); 0 when unnamed or unknown."""
  for index, sub_agent in enumerate(agent.sub_agents):
    if sub_agent.name == name:
      return index
  return 0
