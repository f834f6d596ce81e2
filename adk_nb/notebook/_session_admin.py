"""A notebook's sessions, managed as in `adk web`: list with status, rename, export and import (google-adk's JSON), delete.

    %agent sessions AGENT [--user ID]           the sessions view (a table where no widget can be drawn)
    %agent sessions AGENT --table [--user ID]   a DataFrame: session, name, user, current, last update, events, status
    %agent rename AGENT --session S NAME        sets S's display name ("" removes it; see _session_names)
    %agent export AGENT --session S [PATH]      writes S as google-adk's session JSON (default S.session.json)
    %agent import AGENT PATH [--session NEW]    creates a session from such a file (its events replayed)
    %agent delete AGENT --session S             deletes S from the agent's store

`%agent resume AGENT --session S` opens a session as a view (with its buttons when it is paused).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from ..pending import pending_of
from ..sessions import Session
from ..sessions.fork import lineage
from ._session_names import names_of, set_name
from ._loop import logger
from ._sessions import NotebookAgent

COLUMNS = ["session", "name", "user", "current", "last_update", "events", "status", "forked_from", "forked_at"]


def status_of(session: Session) -> str:
  """'paused' (calls wait for an answer), 'error' (the last answer was an error), 'done', or 'new' (no events)."""
  if not session.events:
    return "new"
  if pending_of(session)[0]:
    return "paused"
  last = next((e for e in reversed(session.events) if e.author != "user"), None)
  return "error" if last is not None and last.error_code else "done"


async def session_rows(entry: NotebookAgent, user_id: Optional[str] = None) -> list[dict[str, Any]]:
  """The agent's sessions (of one user, or all) as plain rows (JSON-ready; `last_update` in seconds since the
  epoch), newest activity first."""
  runner = entry.runner
  service = runner.session_service
  listed = await service.list_sessions(app_name=runner.app_name, user_id=user_id)
  try:
    names = names_of(entry)
  except ValueError as exc:  # a damaged names file: the sessions are listed all the same, without names
    logger.warning("adk_nb: %s", exc)
    names = {}
  rows = []
  for stub in listed.sessions:
    session = await service.get_session(app_name=runner.app_name, user_id=stub.user_id, session_id=stub.id)
    if session is None:  # deleted meanwhile
      continue
    origin = lineage(session)
    rows.append({"session": session.id, "name": names.get((session.user_id, session.id), ""),
                 "user": session.user_id, "current": session.id == entry.session_id,
                 "last_update": session.last_update_time or None,
                 "events": len(session.events), "status": status_of(session),
                 # A fork's lineage: the session and the point it was forked at.
                 "forked_from": origin.session_id if origin else None,
                 "forked_at": (origin.at_event_id or origin.before_invocation_id or "the end") if origin else None})
  rows.sort(key=lambda r: r["last_update"] or float("-inf"), reverse=True)
  return rows


async def sessions_table(entry: NotebookAgent, user_id: Optional[str] = None):
  """The agent's sessions (of one user, or all) as a DataFrame, newest activity first."""
  import pandas as pd

  rows = await session_rows(entry, user_id)
  for row in rows:
    row["last_update"] = pd.to_datetime(row["last_update"], unit="s") if row["last_update"] else None
  return pd.DataFrame(rows, columns=COLUMNS)


async def find_session(entry: NotebookAgent, session_id: str, shown: str = "", user_id: Optional[str] = None) -> Session:
  runner = entry.runner
  listed = await runner.session_service.list_sessions(app_name=runner.app_name)
  users = [s.user_id for s in listed.sessions if s.id == session_id and user_id in (None, s.user_id)]
  if not users:
    known = ", ".join(s.id for s in listed.sessions) or "none"
    raise ValueError(f"No session {session_id!r} in {entry.name}'s store (sessions: {known}); "
                     f"`%agent sessions {shown or entry.name}` lists them.")
  session = await runner.session_service.get_session(app_name=runner.app_name, user_id=users[0],
                                                     session_id=session_id)
  if session is None:
    raise ValueError(f"Session {session_id!r} was deleted meanwhile; nothing was done.")
  return session


async def export_session(entry: NotebookAgent, session_id: str, path: Optional[str] = None, shown: str = "",
                         user_id: Optional[str] = None) -> Path:
  """Writes the session as google-adk's session JSON (camelCase, as `adk web` exports it); returns the file."""
  session = await find_session(entry, session_id, shown, user_id)
  target = Path(path) if path else Path(f"{session_id}.session.json")
  target.write_text(session_json(session), encoding="utf-8")
  return target


def session_json(session: Session) -> str:
  """google-adk's session JSON of `session` (what `adk web` exports and imports)."""
  return session.model_dump_json(by_alias=True, exclude_none=True, indent=2)


async def import_session(entry: NotebookAgent, path: str, session_id: Optional[str] = None,
                         user_id: Optional[str] = None, free_id: bool = False) -> Session:
  """Creates a session in the agent's store from google-adk's session JSON: its events are appended in order.

  Raises ValueError naming the fix (nothing is written) when the file is not a session, or when a
  session with that id exists already.
  """
  source = Path(path)
  if not source.is_file():
    raise ValueError(f"No file {str(source)!r}; export one with `%agent export AGENT --session S`.")
  return await import_session_text(entry, source.read_text(encoding="utf-8"), str(source), session_id, user_id,
                                   free_id)


async def import_session_text(entry: NotebookAgent, text: str, source: str = "the file",
                              session_id: Optional[str] = None, user_id: Optional[str] = None,
                              free_id: bool = False) -> Session:
  """`import_session` from the JSON text itself (what the sessions view's file picker sends).

  `free_id`: when the file's session id is taken (and no `session_id` is given), import it as
  `ID-copy` (or `ID-copy2`, ...) instead of refusing: what the sessions view does.
  """
  try:
    loaded = Session.model_validate_json(text)
  except ValueError as exc:
    raise ValueError(f"{source!r} is not a session in google-adk's JSON format ({type(exc).__name__}); "
                     "nothing was imported.") from None
  runner = entry.runner
  service = runner.session_service
  new_id = session_id or loaded.id
  user = user_id or loaded.user_id or entry.user_id or "user"
  copies = 1
  while free_id and session_id is None and await service.get_session(
      app_name=runner.app_name, user_id=user, session_id=new_id) is not None:
    new_id = f"{loaded.id}-copy{copies if copies > 1 else ''}"
    copies += 1
  if await service.get_session(app_name=runner.app_name, user_id=user, session_id=new_id) is not None:
    raise ValueError(f"Session {new_id!r} already exists in {entry.name}'s store; nothing was imported. "
                     f"Pass --session NEW_ID to import it under another id.")
  session = await service.create_session(app_name=runner.app_name, user_id=user, session_id=new_id)
  done = 0
  try:
    for event in loaded.events:
      await service.append_event(session, event)
      done += 1
  except Exception as exc:
    # The store refused an event: the half-made session goes, so what is listed is what was imported.
    await service.delete_session(app_name=runner.app_name, user_id=user, session_id=new_id)
    raise ValueError(f"{source!r}: the store refused event {done + 1} of {len(loaded.events)} "
                     f"({type(exc).__name__}: {exc}); nothing was imported.") from exc
  return session


async def delete_session(entry: NotebookAgent, session_id: str, shown: str = "", user_id: Optional[str] = None) -> str:
  """Deletes the session and its display name (refused while a run of it is running); returns its user."""
  session = await find_session(entry, session_id, shown, user_id)
  entry.refuse_if_running(session.id, session.user_id)
  runner = entry.runner
  await runner.session_service.delete_session(app_name=runner.app_name, user_id=session.user_id,
                                              session_id=session.id)
  if entry.session_id == session.id:
    entry.session_id = None  # the next %%agent cell starts a new session
  set_name(entry, session.user_id, session.id, "")
  return session.user_id


async def rename_session(entry: NotebookAgent, session_id: str, name: str, shown: str = "",
                         user_id: Optional[str] = None) -> Session:
  """Gives a session a display name ("" removes it); the session itself is not written (see `_session_names`)."""
  session = await find_session(entry, session_id, shown, user_id)
  set_name(entry, session.user_id, session.id, name)
  return session


async def admin_command(entry: NotebookAgent, command: str, words: list[str], shown: str = "") -> Any:
  """`%agent export|import|delete|rename` after the agent's name (`shown`, as typed): parses `--session`, `--user`, a path."""
  shown = shown or entry.name
  words = list(words)
  options: dict[str, str] = {}
  for flag in ("--session", "--user"):
    if flag in words:
      at = words.index(flag)
      if at + 1 >= len(words):
        raise ValueError(f"{flag} needs a value.")
      options[flag] = words[at + 1]
      del words[at:at + 2]
  if len(words) > 1:
    raise ValueError(f"usage: %agent {command} AGENT " + {"export": "--session S [PATH]",
                                                            "import": "PATH [--session NEW_ID] [--user ID]",
                                                            "delete": "--session S",
                                                            "rename": "--session S NAME"}[command])
  if command == "import":
    if not words:
      raise ValueError("usage: %agent import AGENT PATH [--session NEW_ID] [--user ID]")
    session = await import_session(entry, words[0], options.get("--session"), options.get("--user"))
    print(f"Imported {words[0]} as session {session.id} of user {session.user_id} "
          f"({len((await find_session(entry, session.id)).events)} events).")
    return session.id
  if "--session" not in options:
    raise ValueError(f"Name the session: %agent {command} {shown} --session S "
                     f"(`%agent sessions {shown}` lists them).")
  if command == "rename":
    name = words[0] if words else ""
    session = await rename_session(entry, options["--session"], name, shown, options.get("--user"))
    print(f"Session {session.id} is now named {name.strip()!r}." if name.strip()
          else f"Session {session.id} has no name now.")
    return None
  if command == "export":
    target = await export_session(entry, options["--session"], words[0] if words else None, shown,
                                  options.get("--user"))
    print(f"Exported session {options['--session']} to {target} (google-adk's session JSON).")
    return target
  user = await delete_session(entry, options["--session"], shown, options.get("--user"))
  print(f"Deleted session {options['--session']} of user {user}.")
  return None
