"""Continuing an invocation from an edited step (a fork made with `replace_with`, adk_nb.sessions.fork).

`runner.run_async(session_id=fork.id, invocation_id=E.invocation_id)` with no message continues E's
invocation. What comes next depends on the step the edit put last:
- a tool result (FunctionResponse): the model is called with it, as after any tool result;
- a model turn that calls tools: those calls run (the edited arguments), then the model;
- a model's final answer: the invocation is complete; nothing runs.
Nothing before the edit runs again: the copied events are the recording.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ..events.event import Event
from ..events.protocol import EDITED_FROM_KEY

if TYPE_CHECKING:
  from ..agents.base_agent import BaseAgent
  from ..agents.invocation_context import InvocationContext
  from ..sessions.session import Session


def edited_step(session: "Session", invocation_id: Optional[str]) -> Optional[Event]:
  """The session's last event when it is an edit in invocation `invocation_id` (else None). Reads one event."""
  if not invocation_id or not session.events:
    return None
  last = session.events[-1]
  if last.invocation_id != invocation_id or not last.custom_metadata or EDITED_FROM_KEY not in last.custom_metadata:
    return None
  return last


def waiting_call_ids(session: "Session", invocation_id: Optional[str]) -> set[str]:
  """Ids of the calls an edited model turn makes, which the continuation is about to run (so they are
  not "interrupted" calls)."""
  step = edited_step(session, invocation_id)
  return {c.id for c in step.get_function_calls() if c.id} if step is not None else set()


def continuation_of(agent: "BaseAgent", ctx: "InvocationContext") -> Optional[Event]:
  """The edited step `agent` continues from in this run, or None for an ordinary run (one check)."""
  if ctx.user_content is not None or ctx.resumed:
    return None
  step = edited_step(ctx.session, ctx.invocation_id)
  return step if step is not None and step.author == agent.name else None
