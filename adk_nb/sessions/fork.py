"""Forking a session: a new session that starts as the original stood at some point, which stays untouched.

`Runner.fork_async` is the usual way in; `fork_session` does the work on any store through its
public API (`get_session`, `create_session`, `append_event`) and the artifact service, and
`lineage(session)` says where a fork came from.

    fork = await runner.fork_async(user_id="u", session_id="s", before_invocation_id=inv)
    lineage(fork)  # Lineage(session_id='s', before_invocation_id=inv, events_copied=12, ...)

Edit and continue: `at_event_id=E, replace_with=X` copies the events before E, then X (an Event,
or a Content with the edited parts) in E's place, in E's invocation; `runner.run_async(...,
session_id=fork.id, invocation_id=E.invocation_id)` then continues that invocation from the edit.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Optional, Union

from google.genai import types

from ..errors import NotFoundError, SessionNotFoundError
from ..events.event import Event
from ..events.protocol import EDITED_FROM_KEY
from . import _rewind_utils
from .base_session_service import BaseSessionService
from .session import Session
from .state import State

if TYPE_CHECKING:
  from ..artifacts.base_artifact_service import BaseArtifactService

LINEAGE_KEY = "adk_nb:forked_from"
"""The session-state key holding a fork's lineage (JSON, written at create_session, never by an event,
so rewinds inside the fork keep it)."""


_SHARED = (State.APP_PREFIX, State.USER_PREFIX, State.TEMP_PREFIX)


@dataclass(frozen=True)
class Lineage:
  """Where a forked session came from."""

  session_id: str
  """The session it was forked from (same app and user)."""
  app_name: str
  user_id: str
  events_copied: int
  """How many of the original's events the fork started with (before the edit, if any)."""
  before_invocation_id: Optional[str] = None
  """The invocation the fork stops before; None when it copied up to an event, or everything."""
  at_event_id: Optional[str] = None
  """The event the fork stops at (edit and continue); None for a plain fork."""
  edited_event_id: Optional[str] = None
  """The id of the event put in place of `at_event_id`; None for a plain fork."""
  created: float = 0.0
  """When the fork was made (seconds since the epoch)."""

  def as_dict(self) -> dict[str, Any]:
    return asdict(self)


def lineage(session: Session) -> Optional[Lineage]:
  """Where `session` was forked from, or None when it is not a fork."""
  record = session.state.get(LINEAGE_KEY)
  if not isinstance(record, dict):
    return None
  return Lineage(**{k: v for k, v in record.items() if k in Lineage.__dataclass_fields__})


async def fork_session(
    session_service: BaseSessionService,
    *,
    app_name: str,
    user_id: str,
    session_id: str,
    before_invocation_id: Optional[str] = None,
    new_session_id: Optional[str] = None,
    at_event_id: Optional[str] = None,
    replace_with: Union[Event, types.Content, None] = None,
    artifact_service: Optional["BaseArtifactService"] = None,
) -> Session:
  """Creates a new session of the same app and user that starts where the original stood.

  The fork holds copies of the original's events before invocation `before_invocation_id` (all
  of them when None), or before event `at_event_id` followed by `replace_with` in its place.
  Its session state is the original's as it stood there (state given at the original's
  `create_session` included, as rewind keeps it); `app:` and `user:` state are shared by the
  user's sessions and are not forked: the copies never apply their `app:` / `user:` deltas again (a
  database store creates the fork and copies the stored rows as they are in one transaction, so a
  fork is never seen half-made; other stores append copies whose deltas hold only the
  session-scoped keys).
  Session artifacts are copied version by version up to the version each had there, so the
  copies' `artifact_delta` numbers name the same content in the fork. The lineage is in
  `lineage(fork)`. The original is never written to.

  Raises SessionNotFoundError (unknown session), InvocationNotFoundError / NotFoundError (unknown
  invocation or event), AlreadyExistsError (`new_session_id` taken), ValueError (conflicting
  arguments); nothing is left behind on any of them.
  """
  if before_invocation_id is not None and at_event_id is not None:
    raise ValueError("Pass before_invocation_id=... or at_event_id=..., not both: a fork stops at one place.")
  if replace_with is not None and at_event_id is None:
    raise ValueError("replace_with=... needs at_event_id=...: the id of the event it takes the place of.")
  if replace_with is not None and not isinstance(replace_with, (Event, types.Content)):
    raise TypeError("replace_with must be an Event or a google.genai.types.Content (the edited parts), "
                    f"not {type(replace_with).__name__}.")
  original = await session_service.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
  if original is None:
    raise SessionNotFoundError(f"Session not found: {session_id!r} (app {app_name!r}, user {user_id!r}); "
                               "nothing to fork.")
  events = original.events
  if at_event_id is not None:
    index = next((i for i, e in enumerate(events) if e.id == at_event_id), None)
    if index is None:
      raise NotFoundError(f"Event {at_event_id!r} is not in session {session_id!r}; take the id from one of "
                          "its events (`session.events[i].id`).")
  elif before_invocation_id is not None:
    index = _rewind_utils.invocation_start(original, before_invocation_id)
  else:
    index = len(events)
  edited = _replacement(events[index], replace_with) if replace_with is not None else None

  state = {k: v for k, v in original.state.items() if not k.startswith(_SHARED)}
  for key, value in (await _rewind_utils.compute_state_delta_for_rewind(original, index)).items():
    if value is None:
      state.pop(key, None)
    else:
      state[key] = value
  record = Lineage(session_id=session_id, app_name=app_name, user_id=user_id, events_copied=index,
                   before_invocation_id=before_invocation_id, at_event_id=at_event_id,
                   edited_event_id=edited.id if edited is not None else None, created=time.time())
  state[LINEAGE_KEY] = record.as_dict()
  fork_id = new_session_id or f"{session_id}-fork-{uuid.uuid4().hex[:8]}"
  create_fork = getattr(session_service, "_create_fork", None)
  if create_fork is not None:
    # A database store makes the session and copies the stored rows in one transaction (exact copies).
    fork = await create_fork(original, index, session_id=fork_id, state=state)
  else:
    fork = await session_service.create_session(app_name=app_name, user_id=user_id, state=state, session_id=fork_id)
  try:
    if create_fork is None:
      for event in events[:index]:
        await session_service.append_event(fork, _copy(event))
    if edited is not None:
      await session_service.append_event(fork, edited)
    if artifact_service is not None:
      await _copy_artifacts(artifact_service, original, fork, index)
  except BaseException:
    # A fork that stopped half-way is not a fork: remove it (the original was never written to).
    await session_service.delete_session(app_name=app_name, user_id=user_id, session_id=fork.id)
    raise
  return fork


def _copy(event: Event) -> Event:
  """A copy of `event` for the fork: same id, invocation and content; only its session-scoped state delta."""
  actions = event.actions
  delta = actions.state_delta
  kept = {k: v for k, v in delta.items() if not k.startswith(_SHARED)} if delta else {}
  return event.model_copy(update={"actions": actions.model_copy(update={"state_delta": kept})})


def _replacement(replaced: Event, replace_with: Union[Event, types.Content]) -> Event:
  """The event that takes `replaced`'s place: in its invocation, branch and author (for a Content),
  marked with the id it replaces."""
  metadata = {EDITED_FROM_KEY: replaced.id}
  if isinstance(replace_with, types.Content):
    role = replace_with.role or (replaced.content.role if replaced.content else None) or "model"
    content = _with_answer_ids(replace_with.model_copy(update={"role": role}), replaced)
    return Event(invocation_id=replaced.invocation_id, author=replaced.author, branch=replaced.branch,
                 content=content, custom_metadata=metadata, node_info=replaced.node_info.model_copy())
  update: dict[str, Any] = {"invocation_id": replaced.invocation_id,
                            "custom_metadata": {**(replace_with.custom_metadata or {}), **metadata}}
  if not replace_with.author:
    update["author"] = replaced.author
  if not replace_with.node_info.path and replaced.node_info.path:  # (outside a graph node_info.path is '')
    update["node_info"] = replaced.node_info.model_copy()  # a workflow node's output stays that node's
  if replace_with.branch is None:
    update["branch"] = replaced.branch
  if replace_with.id == replaced.id:
    update["id"] = Event.new_id()
  return replace_with.model_copy(update=update)


def _with_answer_ids(content: types.Content, replaced: Event) -> types.Content:
  """`content` with ids where the edit left them out: a FunctionResponse or FunctionCall takes the id
  of the replaced event's answer or call of the same name (in order), so an edited tool result
  still answers its call; a new call gets a fresh id."""
  ids: dict[tuple[str, str], list[str]] = {}
  for kind, items in (("response", replaced.get_function_responses()), ("call", replaced.get_function_calls())):
    for item in items:
      if item.id:
        ids.setdefault((kind, item.name or ""), []).append(item.id)
  parts = []
  for part in content.parts or []:
    for kind, field in (("response", "function_response"), ("call", "function_call")):
      item = getattr(part, field)
      if item is not None and not item.id:
        known = ids.get((kind, item.name or ""))
        new_id = known.pop(0) if known else f"adk-{uuid.uuid4()}"
        part = part.model_copy(update={field: item.model_copy(update={"id": new_id})})
    parts.append(part)
  return content.model_copy(update={"parts": parts})


async def _copy_artifacts(artifact_service: "BaseArtifactService", original: Session, fork: Session,
                          index: int) -> None:
  """Copies each session artifact the copied events recorded, versions 0..v (v: the version they last
  recorded), so version numbers match. A version that loads as absent is copied as absent."""
  from ..artifacts.artifact_util import _new_rewind_tombstone

  for filename, version in _rewind_utils.artifact_versions_at(original, index).items():
    if filename.startswith(State.USER_PREFIX):
      continue  # shared by the user's sessions: the fork sees the same ones
    for v in range(version + 1):
      part = await artifact_service.load_artifact(app_name=original.app_name, user_id=original.user_id,
                                                  session_id=original.id, filename=filename, version=v)
      await artifact_service.save_artifact(app_name=fork.app_name, user_id=fork.user_id, session_id=fork.id,
                                           filename=filename, artifact=part if part is not None else _new_rewind_tombstone())
