"""`%agent pending` and `%agent resume` after a kernel restart: find paused runs in the store, re-open one."""

from __future__ import annotations

from typing import Any, Optional

from ..pending import PendingItem, pending_items, pending_of
from ._sessions import NotebookAgent
from .live_run import LiveRun


async def owner_of(entry: NotebookAgent, session_id: str, user_id: Optional[str] = None) -> str:
  """The user whose session `session_id` is: `user_id` when given; else the agent's current user when
  that user has such a session, else the one user of the store who has. A session id several other
  users share raises ValueError naming them (pass --user); an unknown one gives the current user
  (LiveRun.attach then says the session is not in the store)."""
  if user_id is not None:
    return user_id
  service, app = entry.runner.session_service, entry.runner.app_name
  if await service.get_session(app_name=app, user_id=entry.user_id, session_id=session_id) is not None:
    return entry.user_id
  listed = await service.list_sessions(app_name=app)
  owners = sorted({s.user_id for s in listed.sessions if s.id == session_id})
  if len(owners) > 1:
    raise ValueError(f"Session {session_id!r} of {entry.name} exists for users {', '.join(map(repr, owners))}; "
                     f"name one: --user {owners[0]}.")
  return owners[0] if owners else entry.user_id


async def paused_sessions(entry: NotebookAgent, session_id: Optional[str] = None,
                          user_id: Optional[str] = None) -> list[tuple[Any, list[PendingItem]]]:
  """[(session, its pending items)] of the agent's store: the named session (of its owner, see
  `owner_of`), else every session that waits."""
  service, app = entry.runner.session_service, entry.runner.app_name
  if session_id is not None:
    ids = [(await owner_of(entry, session_id, user_id), session_id)]
  else:
    listed = await service.list_sessions(app_name=app)
    ids = [(s.user_id, s.id) for s in sorted(listed.sessions, key=lambda s: s.last_update_time or 0, reverse=True)]
  found = []
  for user_id, sid in ids:
    session = await service.get_session(app_name=app, user_id=user_id, session_id=sid)
    if session is None:
      continue
    # The named session through its kept ledger (read incrementally); a scan of every session of the store
    # reads each once and keeps nothing, so it does not push the sessions in use out of the ledger cache.
    items = pending_of(session)[0] if session_id is not None else pending_items(session.events)
    if items or session_id is not None:
      found.append((session, items))
  return found


async def pending_list(entry: NotebookAgent, session_id: Optional[str] = None,
                       user_id: Optional[str] = None) -> list[PendingItem]:
  """What `%agent pending AGENT [--session S] [--user U]` returns: the pending calls of the named (or current)
  session, else of every session of the store that waits (each such session is printed, to resume it by name)."""
  session_id = session_id or entry.session_id
  found = await paused_sessions(entry, session_id, user_id)
  if session_id is None:
    for session, items in found:
      print(f"session {session.id} (user {session.user_id}): {len(items)} pending: "
            + ", ".join(item.tool for item in items))
  return [item for _, items in found for item in items]


async def reopen(entry: NotebookAgent, session_id: Optional[str] = None, user_id: Optional[str] = None) -> LiveRun:
  """What `%agent resume AGENT [--session S] [--user U]` returns: the paused run, with its tree and buttons.

  Without --session: the agent's current session if it waits, else the most recently
  updated session that does. A named session is opened as its owner's (`owner_of`): another
  user's session too. The session and its user become the agent's current ones.
  """
  if session_id is None and entry.session_id is not None:
    current = await paused_sessions(entry, entry.session_id)
    if current and current[0][1]:
      session_id = entry.session_id
  if session_id is None:
    waiting = await paused_sessions(entry)
    if not waiting:
      raise ValueError(f"No session of {entry.name} waits for an answer in this store; "
                       "`%agent sessions AGENT` lists its sessions.")
    session_id, user_id = waiting[0][0].id, waiting[0][0].user_id
  else:
    user_id = await owner_of(entry, session_id, user_id)
  run = await LiveRun.attach(entry.runner, session_id=session_id, user_id=user_id, label=entry.name)
  entry.session_id, entry.user_id = session_id, user_id
  entry.runs.append(run)
  return run
