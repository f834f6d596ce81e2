"""Progress between events: when agents start and end and when model calls start and end.

Events say what an agent produced, not when it started or how long the model alone took.
A viewer (the notebook's inspector) that wants those moments watches a session:

    stop = progress.watch(session_id, lambda kind, info: ...)
    ...
    stop()

`kind` is 'agent_started', 'agent_ended', 'model_started' or 'model_ended'; `info` is a dict
(see the functions below). Listeners run on the loop that runs the agent, between its
steps, and must be quick. With nobody watching, each hook costs one dict lookup.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any, Callable, Optional

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext

Listener = Callable[[str, dict[str, Any]], None]

_listeners: dict[str, list[Listener]] = {}
_logger = logging.getLogger(__name__)


def watch(session_id: str, listener: Listener) -> Callable[[], None]:
  """Calls `listener(kind, info)` for every progress point of runs in `session_id`; returns the unwatch function."""
  _listeners.setdefault(session_id, []).append(listener)

  def stop() -> None:
    listeners = _listeners.get(session_id)
    if listeners and listener in listeners:
      listeners.remove(listener)
      if not listeners:
        del _listeners[session_id]
  return stop


def _tell(ctx: "InvocationContext", kind: str, info: dict[str, Any]) -> None:
  for listener in list(_listeners.get(ctx.session.id, ())):
    try:
      listener(kind, info)
    except Exception as exc:  # noqa: BLE001 - a viewer must never break a run
      _logger.debug("adk_nb: progress listener failed on %s: %s", kind, exc)


def agent_started(ctx: "InvocationContext") -> None:
  """An agent starts: info has invocation_id, agent (the agent object), branch, time."""
  if _listeners and ctx.session.id in _listeners:
    _tell(ctx, "agent_started", {"invocation_id": ctx.invocation_id, "agent": ctx.agent, "branch": ctx.branch,
                                 "time": time.time()})


def agent_ended(ctx: "InvocationContext", error: Optional[BaseException]) -> None:
  """An agent ends: info has invocation_id, agent, branch, time, paused, error (a message or None)."""
  if _listeners and ctx.session.id in _listeners:
    _tell(ctx, "agent_ended", {"invocation_id": ctx.invocation_id, "agent": ctx.agent, "branch": ctx.branch,
                               "time": time.time(), "paused": ctx.paused,
                               "error": None if error is None else f"{type(error).__name__}: {error}"})


def model_started(ctx: "InvocationContext", event_id: str, model: str, request: Any) -> None:
  """A model call starts: info has invocation_id, agent (name), branch, event_id (of the event it will
  yield), model (name), request (the LlmRequest as sent, by reference), time."""
  if _listeners and ctx.session.id in _listeners:
    _tell(ctx, "model_started", {"invocation_id": ctx.invocation_id, "agent": ctx.agent.name,
                                 "branch": ctx.branch, "event_id": event_id, "model": model,
                                 "request": request, "time": time.time()})


def model_ended(ctx: "InvocationContext", event_id: str, response: Any) -> None:
  """A model call's final response arrived (before after-model callbacks): info has event_id, response, time."""
  if _listeners and ctx.session.id in _listeners:
    _tell(ctx, "model_ended", {"invocation_id": ctx.invocation_id, "event_id": event_id, "response": response,
                               "time": time.time()})
