"""A notebook's sessions, managed as in `adk web`: list with status, export and import (google-adk's JSON), delete.

    %agent sessions AGENT                       a table: session, user, current, last update, events, status
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
from ._sessions import NotebookAgent

COLUMNS = ["session", "user", "current", "last_update", "events", "status", "forked_from", "forked_at"]


def status_of(session: Session) -> str:
  """'paused' (calls wait for an answer), 'error' (the last answer was an error), 'done', or 'new' (no events)."""
  if not session.events:
    return "new"
  if pending_of(session)[0]:
    return "paused"
  last = next((e for e in reversed(session.events) if e.author != "user"), None)
  return "error" if last is not None and last.error_code else "done"


async def sessions_table(entry: NotebookAgent):
  """The agent's sessions as a DataFrame, newest activity first."""
  import pandas as pd

  runner = entry.runner
  service = runner.session_service
  listed = await service.list_sessions(app_name=runner.app_name)
  rows = []
  for stub in listed.sessions:
    session = await service.get_session(app_name=runner.app_name, user_id=stub.user_id, session_id=stub.id)
    if session is None:  # deleted meanwhile
      continue
    origin = lineage(session)
    rows.append({"session": session.id, "user": session.user_id, "current": session.id == entry.session_id,
                 "last_update": pd.to_datetime(session.last_update_time, unit="s") if session.last_update_time else None,
                 "events": len(session.events), "status": status_of(session),
                 # A fork's lineage: the session and the point it was forked at.
                 "forked_from": origin.session_id if origin else None,
                 "forked_at": (origin.at_event_id or origin.before_invocation_id or "the end") if origin else None})
  rows.sort(key=lambda r: r["last_update"].timestamp() if r["last_update"] is not None else float("-inf"), reverse=True)
  return pd.DataFrame(rows, columns=COLUMNS)


async def _find(entry: NotebookAgent, session_id: str, shown: str = "") -> Session:
  runner = entry.runner
  listed = await runner.session_service.list_sessions(app_name=runner.app_name)
  users = [s.user_id for s in listed.sessions if s.id == session_id]
  if not users:
    known = ", ".join(s.id for s in listed.sessions) or "none"
    raise ValueError(f"No session {session_id!r} in {entry.name}'s store (sessions: {known}); "
                     f"`%agent sessions {shown or entry.name}` lists them.")
  session = await runner.session_service.get_session(app_name=runner.app_name, user_id=users[0],
                                                     session_id=session_id)
  if session is None:
    raise ValueError(f"Session {session_id!r} was deleted meanwhile; nothing was exported.")
  return session


async def export_session(entry: NotebookAgent, session_id: str, path: Optional[str] = None, shown: str = "") -> Path:
  """Writes the session as google-adk's session JSON (camelCase, as `adk web` exports it); returns the file."""
  session = await _find(entry, session_id, shown)
  target = Path(path) if path else Path(f"{session_id}.session.json")
  target.write_text(session.model_dump_json(by_alias=True, exclude_none=True, indent=2), encoding="utf-8")
  return target


async def import_session(entry: NotebookAgent, path: str, session_id: Optional[str] = None,
                         user_id: Optional[str] = None) -> Session:
  """Creates a session in the agent's store from google-adk's session JSON: its events are appended in order.

  Raises ValueError naming the fix (nothing is written) when the file is not a session, or when a
  session with that id exists already.
  """
  source = Path(path)
  if not source.is_file():
    raise ValueError(f"No file {str(source)!r}; export one with `%agent export AGENT --session S`.")
  try:
    loaded = Session.model_validate_json(source.read_text(encoding="utf-8"))
  except ValueError as exc:
    raise ValueError(f"{str(source)!r} is not a session in google-adk's JSON format ({type(exc).__name__}); "
                     "nothing was imported.") from None
  runner = entry.runner
  service = runner.session_service
  new_id = session_id or loaded.id
  user = user_id or loaded.user_id or entry.user_id or "user"
  if await service.get_session(app_name=runner.app_name, user_id=user, session_id=new_id) is not None:
    raise ValueError(f"Session {new_id!r} already exists in {entry.name}'s store; nothing was imported. "
                     f"Pass --session NEW_ID to import it under another id.")
  session = await service.create_session(app_name=runner.app_name, user_id=user, session_id=new_id)
  for event in loaded.events:
    await service.append_event(session, event)
  return session


async def delete_session(entry: NotebookAgent, session_id: str, shown: str = "") -> str:
  """Deletes the session (refused while a run of it is running); returns the user it belonged to."""
  session = await _find(entry, session_id, shown)
  entry.refuse_if_running(session.id, session.user_id)
  runner = entry.runner
  await runner.session_service.delete_session(app_name=runner.app_name, user_id=session.user_id,
                                              session_id=session.id)
  if entry.session_id == session.id:
    entry.session_id = None  # the next %%agent cell starts a new session
  return session.user_id


async def admin_command(entry: NotebookAgent, command: str, words: list[str], shown: str = "") -> Any:
  """`%agent export|import|delete` after the agent's name (`shown`, as typed): parses `--session`, `--user`, a path."""
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
                                                            "delete": "--session S"}[command])
  if command == "import":
    if not words:
      raise ValueError("usage: %agent import AGENT PATH [--session NEW_ID] [--user ID]")
    session = await import_session(entry, words[0], options.get("--session"), options.get("--user"))
    print(f"Imported {words[0]} as session {session.id} of user {session.user_id} "
          f"({len((await _find(entry, session.id)).events)} events).")
    return session.id
  if "--session" not in options:
    raise ValueError(f"Name the session: %agent {command} {shown} --session S "
                     f"(`%agent sessions {shown}` lists them).")
  if command == "export":
    target = await export_session(entry, options["--session"], words[0] if words else None, shown)
    print(f"Exported session {options['--session']} to {target} (google-adk's session JSON).")
    return target
  user = await delete_session(entry, options["--session"], shown)
  print(f"Deleted session {options['--session']} of user {user}.")
  return None
