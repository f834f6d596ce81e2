"""What a LiveRun reads and writes in its runner's stores outside a turn: artifact listings, state edits, and
the event an edit-and-continue replaces."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

from ..events.event import Event
from ..events.event_actions import EventActions
from ._loop import logger

if TYPE_CHECKING:
  from .live_run import LiveRun


async def list_artifacts(run: "LiveRun") -> Optional[list[dict[str, Any]]]:
  """The session's artifacts by name with their versions, or None (no artifact service, or the listing failed)."""
  service = getattr(run.runner, "artifact_service", None)
  if service is None:
    return None
  where = {"app_name": run.runner.app_name, "user_id": run.user_id, "session_id": run.session_id}
  try:
    found = []
    for name in await service.list_artifact_keys(**where):
      versions = await service.list_artifact_versions(filename=name, **where)
      found.append({"name": name, "versions": [{"version": v.version, "mime_type": v.mime_type or "",
                                                "create_time": v.create_time} for v in versions]})
  except Exception as exc:  # noqa: BLE001 - a listing must never fail the run
    logger.warning("adk_nb: could not list the artifacts of session %s: %s", run.session_id, exc)
    return None
  return found


async def load_artifact(run: "LiveRun", name: str, version: Optional[int]) -> Optional[types.Part]:
  service = getattr(run.runner, "artifact_service", None)
  if service is None:
    raise ValueError(f"{run.label}'s runner has no artifact service; pass artifact_service= to its Runner.")
  return await service.load_artifact(app_name=run.runner.app_name, user_id=run.user_id,
                                     session_id=run.session_id, filename=name, version=version)


async def record_state(run: "LiveRun", delta: dict[str, Any]) -> Event:
  """Appends a user event carrying `delta` to the run's session (an edit between turns); returns it."""
  service = run.runner.session_service
  session = await service.get_session(app_name=run.runner.app_name, user_id=run.user_id, session_id=run.session_id)
  if session is None:
    raise ValueError(f"Session {run.session_id!r} no longer exists; nothing was changed.")
  event = Event(invocation_id=run.invocation_id or "", author="user", actions=EventActions(state_delta=delta))
  await service.append_event(session, event)
  return event


def event_of(events: Any, step: Any) -> Event:
  """The event of `events` (a run's) that `step` (a Step, an Event or an event id) stands for; a tool call's
  is its result's (what `LiveRun.edit` replaces). Raises ValueError naming what to pass."""
  if isinstance(step, Event):
    step = step.id
  if isinstance(step, str):
    for event in events:
      if event.id == step:
        return event
    raise ValueError(f"Event {step!r} is not one of this run's events (`run.events`).")
  kind, event_id, tool = getattr(step, "kind", None), getattr(step, "event_id", ""), getattr(step, "tool", "")
  index = next((i for i, e in enumerate(events) if e.id == event_id), None)
  if index is None:
    raise ValueError(f"Step {getattr(step, 'title', step)!r} has no event of this run; pass a step of "
                     "`run.steps.steps.values()`, an event of `run.events`, or an event id.")
  if kind == "tool_call":
    calls = {c.id for c in events[index].get_function_calls() if c.name == tool}
    for event in events[index + 1:]:
      if any(r.id in calls for r in event.get_function_responses()):
        return event
    raise ValueError(f"The call of {tool!r} has no result yet to edit; edit the model's call instead (its model_call step).")
  return events[index]
