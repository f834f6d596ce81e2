"""Which runner and session a notebook uses for each agent, and where sessions are stored."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from typing import Any, Optional

from ..agents.base_agent import BaseAgent
from ..apps.app import App
from ..runners import Runner
from ._loop import logger
from ..errors import SessionBusyError  # one class for "another run holds this session", as the store raises it

DEFAULT_STORE_DIR = ".adk_nb"
"""Folder (in the working folder) that holds the default SQLite store."""
DEFAULT_USER = "user"


def default_store() -> str:
  """The default store: SQLite under `.adk_nb/` in the working folder, so sessions survive a restart."""
  path = os.path.abspath(os.path.join(DEFAULT_STORE_DIR, "sessions.db"))
  return f"sqlite:///{path}"


def session_service_for(uri: str) -> Any:
  """A session service for a store URI: 'memory://' or a database URL such as 'sqlite:///file.db'."""
  try:
    from ..services import session_service_from_uri  # type: ignore[attr-defined]
  except ImportError:
    session_service_from_uri = None
  if session_service_from_uri is not None:
    return session_service_from_uri(uri)
  if uri in ("memory://", "memory", ":memory:"):
    from ..sessions.in_memory_session_service import InMemorySessionService

    return InMemorySessionService()
  if uri.startswith("sqlite:///"):
    os.makedirs(os.path.dirname(os.path.abspath(uri[len("sqlite:///"):])) or ".", exist_ok=True)
  from ..sessions import DatabaseSessionService

  return DatabaseSessionService(uri)


def artifact_service_for(uri: str) -> Any:
  """Where a store's artifacts live: in memory for 'memory://', else files beside the SQLite file (or `.adk_nb/`)."""
  from ..artifacts import FileArtifactService, InMemoryArtifactService

  if uri in ("memory://", "memory", ":memory:"):
    return InMemoryArtifactService()
  folder = DEFAULT_STORE_DIR
  if uri.startswith("sqlite:///"):
    folder = os.path.dirname(os.path.abspath(uri[len("sqlite:///"):])) or "."
  return FileArtifactService(os.path.join(folder, "artifacts"))




@dataclass
class NotebookAgent:
  """One agent (or App, or Runner) as the notebook uses it: its runner and current session."""

  target: Any
  runner: Runner
  store: Optional[str]
  user_id: str = DEFAULT_USER
  session_id: Optional[str] = None
  runs: list = field(default_factory=list)

  @property
  def name(self) -> str:
    return self.runner.app_name

  def choose_session(self, session_id: Optional[str], user_id: str, new: bool) -> str:
    """The session to run in: the named one, a new one, or this agent's current one; it becomes current."""
    if new or (session_id is None and (self.session_id is None or user_id != self.user_id)):
      session_id = session_id or f"nb-{uuid.uuid4().hex[:8]}"
    elif session_id is None:
      session_id = self.session_id
    self.session_id, self.user_id = session_id, user_id
    return session_id

  def refuse_if_running(self, session_id: str, user_id: str) -> None:
    """Raises SessionBusyError, naming the fix, when a run in this session is still running."""
    busy = next((r for r in self.runs if r.session_id == session_id and r.user_id == user_id
                 and r.status == "running"), None)
    if busy is not None:
      raise SessionBusyError(
          f"Session {session_id!r} is still running ({busy!r}); `await run` (or run.cancel()) first, "
          "or start another session with --new (new=True).")

  async def create_if_missing(self, session_id: str, user_id: str, new: bool) -> None:
    """Creates the session on first use; `new` refuses to continue an existing one."""
    service = self.runner.session_service
    app = self.runner.app_name
    existing = await service.get_session(app_name=app, user_id=user_id, session_id=session_id)
    if existing is None:
      await service.create_session(app_name=app, user_id=user_id, session_id=session_id)
    elif new:
      raise ValueError(f"--new with --session {session_id!r}: that session already exists; "
                       "drop --new to continue it, or pick another name.")


class Registry:
  """The notebook's agents: one runner per (agent, store), reused by every cell."""

  def __init__(self) -> None:
    self._agents: dict[tuple[int, str], NotebookAgent] = {}
    self._services: dict[tuple[str, int], Any] = {}
    self.last: Optional[NotebookAgent] = None

  def service(self, uri: str) -> Any:
    import asyncio

    try:
      loop_id = id(asyncio.get_running_loop())
    except RuntimeError:
      loop_id = 0
    key = (uri, loop_id)
    if key not in self._services:
      self._services[key] = session_service_for(uri)
      if not uri.startswith("memory"):
        logger.info("adk_nb: sessions are stored in %s", uri)
    return self._services[key]

  def artifacts(self, uri: str) -> Any:
    """The artifact service of a store (one per store, shared by its agents, as sessions are)."""
    key = ("artifacts:" + uri, 0)
    if key not in self._services:
      self._services[key] = artifact_service_for(uri)
    return self._services[key]

  def get(self, target: Any, store: Optional[str] = None) -> NotebookAgent:
    """The notebook entry for an agent, App or Runner (made on first use)."""
    if isinstance(target, Runner):
      if store is not None:
        raise ValueError(f"--store does not apply to a Runner: it already has its session service "
                         f"({type(target.session_service).__name__}). Pass the agent instead, or drop --store.")
      key = (id(target), "")
    else:
      if not isinstance(target, (BaseAgent, App)):
        raise TypeError(f"Expected an agent, an App or a Runner, got {type(target).__name__}. "
                        "Build one with Agent(name=..., model=...).")
      store = store or default_store()
      key = (id(target), store)
    entry = self._agents.get(key)
    if entry is None or entry.target is not target:
      if isinstance(target, Runner):
        runner = target
      elif isinstance(target, App):
        runner = Runner(app=target, session_service=self.service(store), artifact_service=self.artifacts(store))
      else:
        runner = Runner(agent=target, app_name=target.name, session_service=self.service(store),
                        artifact_service=self.artifacts(store))
      entry = NotebookAgent(target=target, runner=runner, store=store)
      self._agents[key] = entry
    self.last = entry
    return entry

  def used(self, target: Any) -> Optional[NotebookAgent]:
    """The entry this agent last ran with (whatever its store), or None if it never ran."""
    if self.last is not None and self.last.target is target:
      return self.last
    found = [e for e in self._agents.values() if e.target is target]
    return found[-1] if found else None

  def entries(self) -> list[NotebookAgent]:
    return list(self._agents.values())

  def clear(self) -> None:
    self._agents.clear()
    self._services.clear()
    self.last = None


registry = Registry()
"""The notebook's agents and their current sessions (one per kernel)."""
