"""Rewinding a session to before one of its invocations (google-adk's `sessions/_rewind_utils`).

A rewind writes nothing back and deletes nothing: it appends one event, authored by the user, whose
`rewind_before_invocation_id` names the invocation, whose state delta puts the session-scoped state
back as it stood before that invocation, and whose artifact delta points each session-scoped
artifact back at the version it had then (saved again as a new version; an artifact that did not
exist then gets google-adk's "absent" marker). From then on the rewound events are history only:
no model request contains them (`flows._contents.without_rewound`).

As in google-adk, `app:` and `user:` state and `user:` artifacts are shared with other sessions
and are not rewound. Beyond google-adk 2.13 (its PR #7118, for issue #4933): state given to
`create_session` survives, because only keys that events at or after the rewind point wrote are
put back; google-adk 2.13 clears every key no earlier event wrote.
"""

from __future__ import annotations

import logging
import uuid
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional

from ..errors._invocation_not_found_error import InvocationNotFoundError
from ..events.event import Event
from ..events.event_actions import EventActions
from .base_session_service import BaseSessionService
from .session import Session
from .state import State

if TYPE_CHECKING:
  from ..artifacts.base_artifact_service import BaseArtifactService

logger = logging.getLogger("adk_nb.sessions.rewind")

_SHARED_PREFIXES = (State.APP_PREFIX, State.USER_PREFIX, State.TEMP_PREFIX)


def invocation_start(session: Session, invocation_id: str) -> int:
  """The index of the first event of `invocation_id` in `session.events`.

  Raises InvocationNotFoundError (nothing is written) when no event belongs to it.
  """
  for index, event in enumerate(session.events):
    if event.invocation_id == invocation_id:
      return index
  raise InvocationNotFoundError(
      f"Invocation ID not found: {invocation_id} (session {session.id!r} has no event of it). "
      "Take the id from an event of this session: `event.invocation_id`."
  )


def session_state_at(session: Session, index: int) -> dict[str, Any]:
  """The session-scoped state replayed from the state deltas of `session.events[:index]`
  (a key set to None is absent). `app:`, `user:` and `temp:` keys are left out."""
  state: dict[str, Any] = {}
  for event in session.events[:index]:
    delta = event.actions.state_delta
    if not delta:
      continue
    for key, value in delta.items():
      if key.startswith(_SHARED_PREFIXES):
        continue
      if value is None:
        state.pop(key, None)
      else:
        state[key] = value
  return state


async def compute_state_delta_for_rewind(session: Session, rewind_event_index: int) -> dict[str, Any]:
  """The state delta that puts the session-scoped state back as before `events[rewind_event_index]`.

  Keys written at or after that event go back to their earlier value (None when no earlier event
  set them); every other key, including state given at `create_session`, keeps its value.
  """
  before = session_state_at(session, rewind_event_index)
  written_since: set[str] = set()
  for event in session.events[rewind_event_index:]:
    if event.actions.state_delta:
      written_since.update(k for k in event.actions.state_delta if not k.startswith(_SHARED_PREFIXES))
  current = session.state
  delta: dict[str, Any] = {}
  # Same order as google-adk (restored values first, then removals), so both write the same event.
  for key, value in before.items():
    if key in written_since and (key not in current or current[key] != value):
      delta[key] = value
  for key in current:
    if key in written_since and key not in before and not key.startswith(_SHARED_PREFIXES):
      delta[key] = None
  return delta


def artifact_versions_at(session: Session, index: int) -> dict[str, int]:
  """filename -> the version `session.events[:index]` last recorded in their artifact deltas."""
  versions: dict[str, int] = {}
  for event in session.events[:index]:
    if event.actions.artifact_delta:
      versions.update(event.actions.artifact_delta)
  return versions


async def compute_artifact_delta_for_rewind(
    session: Session,
    rewind_event_index: int,
    *,
    artifact_service: Optional["BaseArtifactService"] = None,
    app_name: Optional[str] = None,
) -> dict[str, int]:
  """Saves, for each session-scoped artifact changed at or after the rewind point, the version it
  had before it (or google-adk's "absent" marker) as a new version; returns filename -> that version.

  Without an artifact service there is nothing to restore: {}.
  """
  if artifact_service is None:
    return {}
  from ..artifacts.artifact_util import _new_rewind_tombstone

  before = artifact_versions_at(session, rewind_event_index)
  now = artifact_versions_at(session, len(session.events))
  delta: dict[str, int] = {}
  for filename, latest in now.items():
    if filename.startswith(State.USER_PREFIX):
      continue  # user artifacts are shared by the user's sessions: not rewound
    version = before.get(filename)
    if version == latest:
      continue
    part = None
    if version is not None:
      part = await artifact_service.load_artifact(app_name=app_name or session.app_name, user_id=session.user_id,
                                                  session_id=session.id, filename=filename, version=version)
      if part is None:
        logger.warning("Artifact %r version %d of session %r is gone; the rewind marks it absent.",
                       filename, version, session.id)
    delta[filename] = await artifact_service.save_artifact(
        app_name=app_name or session.app_name, user_id=session.user_id, session_id=session.id,
        filename=filename, artifact=part if part is not None else _new_rewind_tombstone())
  return delta


async def rewind_session(
    *,
    session_service: BaseSessionService,
    session: Session,
    rewind_before_invocation_id: str,
    artifact_service: Optional["BaseArtifactService"] = None,
    app_name: Optional[str] = None,
    compute_state_delta: Optional[Callable[[Session, int], Awaitable[dict[str, Any]]]] = None,
    compute_artifact_delta: Optional[Callable[[Session, int], Awaitable[dict[str, int]]]] = None,
) -> Event:
  """Appends the rewind event to `session` (see the module docstring) and returns it.

  `session` must hold all its events. An unknown invocation raises InvocationNotFoundError before
  anything (state, artifacts) is written.
  """
  index = invocation_start(session, rewind_before_invocation_id)
  if compute_state_delta is not None:
    state_delta = await compute_state_delta(session, index)
  else:
    state_delta = await compute_state_delta_for_rewind(session, index)
  if compute_artifact_delta is not None:
    artifact_delta = await compute_artifact_delta(session, index)
  else:
    artifact_delta = await compute_artifact_delta_for_rewind(session, index, artifact_service=artifact_service,
                                                             app_name=app_name)
  event = Event(
      invocation_id=f"e-{uuid.uuid4()}", author="user",
      actions=EventActions(rewind_before_invocation_id=rewind_before_invocation_id, state_delta=state_delta,
                           artifact_delta=artifact_delta),
  )
  logger.info("Rewinding session %r to before invocation %s", session.id, rewind_before_invocation_id)
  await session_service.append_event(session, event)
  return event
