"""Display names of sessions (what "rename" sets): kept beside the store, never in a session.

A name is for the person looking at the list, so it lives outside the session: not in its state
(an agent would read it, and an instruction's `{key}` could pick it up), not in its events, not
in the store's tables. google-adk opens the store as it was and `%agent export` writes google-adk's
session JSON unchanged. Where a store keeps its names:

- a SQLite store `sqlite:///DIR/sessions.db`: `DIR/session_names.json`, beside it (as the artifacts are);
- another database URL: `.adk_nb/session_names.json` in the working folder, under that URL (its
  password left out);
- `memory://` or a Runner you built: in memory, for this kernel (as its sessions are).

The file: {store: {app: {user: {session id: name}}}}, written whole through a temporary file.
"""

from __future__ import annotations

import json
import os
import re
import weakref
from typing import Any, Optional

from ._sessions import DEFAULT_STORE_DIR, NotebookAgent

FILE_NAME = "session_names.json"
MAX_LENGTH = 120
"""Characters a display name may have."""

_in_memory: "weakref.WeakKeyDictionary[Any, dict[tuple[str, str, str], str]]" = weakref.WeakKeyDictionary()
"""Names of sessions in stores that have no file (memory://, a Runner's own service): they live and go with the
service object (keyed by the object, not its id, so a new service never inherits an old one's names)."""
_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@")


def _where(entry: NotebookAgent) -> Optional[tuple[str, str]]:
  """(the JSON file, the store's key in it) for a stored store; None when names stay in memory."""
  store = entry.store
  if store is None or store.startswith("memory") or store == ":memory:":
    return None
  if store.startswith("sqlite:///"):
    folder = os.path.dirname(os.path.abspath(store[len("sqlite:///"):])) or "."
    return os.path.join(folder, FILE_NAME), os.path.basename(store[len("sqlite:///"):])
  return os.path.abspath(os.path.join(DEFAULT_STORE_DIR, FILE_NAME)), _PASSWORD.sub(r"\1***@", store)


def _read(path: str) -> dict[str, Any]:
  try:
    with open(path, encoding="utf-8") as f:
      data = json.load(f)
  except FileNotFoundError:
    return {}
  except ValueError as exc:
    raise ValueError(f"{path} is not valid JSON ({exc}); fix or delete that file (it holds only session "
                     "display names; the sessions are not in it).") from None
  return data if isinstance(data, dict) else {}


def names_of(entry: NotebookAgent) -> dict[tuple[str, str], str]:
  """{(user id, session id): display name} for the agent's app in its store."""
  app = entry.runner.app_name
  where = _where(entry)
  if where is None:
    kept = _in_memory.get(entry.runner.session_service, {})
    return {(u, s): n for (a, u, s), n in kept.items() if a == app}
  path, key = where
  by_user = _read(path).get(key, {}).get(app, {})
  return {(u, s): n for u, sessions in by_user.items() if isinstance(sessions, dict)
          for s, n in sessions.items() if isinstance(n, str)}


def check_name(name: Any) -> str:
  """The name as stored (trimmed); ValueError naming the fix when it cannot be one."""
  if not isinstance(name, str):
    raise ValueError(f"A session name is text, got {type(name).__name__}.")
  name = name.strip()
  if "\n" in name or "\r" in name:
    raise ValueError("A session name is one line; nothing was renamed.")
  if len(name) > MAX_LENGTH:
    raise ValueError(f"A session name has at most {MAX_LENGTH} characters (got {len(name)}); nothing was renamed.")
  return name


def set_name(entry: NotebookAgent, user_id: str, session_id: str, name: str) -> None:
  """Sets (or with "" removes) a session's display name."""
  name = check_name(name)
  app = entry.runner.app_name
  where = _where(entry)
  if where is None:
    kept = _in_memory.setdefault(entry.runner.session_service, {})
    if name:
      kept[(app, user_id, session_id)] = name
    else:
      kept.pop((app, user_id, session_id), None)
    return
  path, key = where
  data = _read(path)
  sessions = data.setdefault(key, {}).setdefault(app, {}).setdefault(user_id, {})
  if name:
    sessions[session_id] = name
  else:
    sessions.pop(session_id, None)
  os.makedirs(os.path.dirname(path), exist_ok=True)
  partial = f"{path}.{os.getpid()}.tmp"
  with open(partial, "w", encoding="utf-8") as f:
    json.dump(data, f, indent=1, ensure_ascii=False)
  os.replace(partial, path)
