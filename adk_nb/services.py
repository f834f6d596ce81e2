"""Builds session, artifact and memory services from URIs, as `adk web --session_service_uri` does.

    session_service_from_uri("memory://")                     # InMemorySessionService
    session_service_from_uri("sqlite:///sessions.db")         # DatabaseSessionService (file)
    session_service_from_uri("postgresql://u:pw@host/db")     # DatabaseSessionService (server)
    artifact_service_from_uri("memory://")                    # InMemoryArtifactService
    artifact_service_from_uri("file:///data/artifacts")       # FileArtifactService
    memory_service_from_uri("memory://")                      # InMemoryMemoryService

Other schemes can be added with `get_service_registry().register_session_service(...)`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Optional
from urllib.parse import unquote, urlparse

if TYPE_CHECKING:
  from .artifacts.base_artifact_service import BaseArtifactService
  from .memory.base_memory_service import BaseMemoryService
  from .sessions.base_session_service import BaseSessionService

ServiceFactory = Callable[..., Any]
"""`factory(uri, **kwargs)` returning a service."""


def _scheme(uri: str) -> str:
  if not isinstance(uri, str) or not uri.strip():
    raise ValueError(f"A service URI is a non-empty str, got {uri!r}; for example 'memory://'.")
  return uri.split(":", 1)[0].lower() if ":" in uri else uri.lower()


def _memory_sessions(uri: str, **kwargs: Any):
  from .sessions.in_memory_session_service import InMemorySessionService

  return InMemorySessionService()


def _database_sessions(uri: str, **kwargs: Any):
  from .sessions.database_session_service import DatabaseSessionService

  if uri.lower().startswith(("sqlite:///", "sqlite+aiosqlite:///")):
    path = uri.split(":///", 1)[1].split("?", 1)[0]
    if path and path != ":memory:" and not path.startswith("file:"):
      # A new store in a new folder is the common case in notebooks; SQLite will not create folders.
      os.makedirs(os.path.dirname(os.path.abspath(path)) or ".", exist_ok=True)
  return DatabaseSessionService(uri, **kwargs)


def _memory_artifacts(uri: str, **kwargs: Any):
  from .artifacts.in_memory_artifact_service import InMemoryArtifactService

  return InMemoryArtifactService()


def file_uri_to_path(uri: str) -> str:
  """The folder a `file://` URI names: `file:///abs/dir`, `file://relative/dir`, `file:dir`."""
  parsed = urlparse(uri)
  netloc = "" if parsed.netloc in ("", "localhost") else parsed.netloc
  path = unquote(netloc + parsed.path)
  if not path:
    raise ValueError(f"{uri!r} names no folder; use 'file:///absolute/folder' or 'file://relative/folder'.")
  return os.path.expanduser(path)


def _file_artifacts(uri: str, **kwargs: Any):
  from .artifacts.file_artifact_service import FileArtifactService

  return FileArtifactService(file_uri_to_path(uri))


def _memory_memory(uri: str, **kwargs: Any):
  from .memory.in_memory_memory_service import InMemoryMemoryService

  return InMemoryMemoryService()


class ServiceRegistry:
  """Maps URI schemes to factories for session, artifact and memory services."""

  def __init__(self) -> None:
    self._factories: dict[str, dict[str, ServiceFactory]] = {"session": {}, "artifact": {}, "memory": {}}

  def register_session_service(self, scheme: str, factory: ServiceFactory) -> None:
    """Makes `session_service_from_uri('<scheme>://...')` call `factory(uri, **kwargs)`."""
    self._factories["session"][scheme.lower()] = factory

  def register_artifact_service(self, scheme: str, factory: ServiceFactory) -> None:
    """Makes `artifact_service_from_uri('<scheme>://...')` call `factory(uri, **kwargs)`."""
    self._factories["artifact"][scheme.lower()] = factory

  def register_memory_service(self, scheme: str, factory: ServiceFactory) -> None:
    """Makes `memory_service_from_uri('<scheme>://...')` call `factory(uri, **kwargs)`."""
    self._factories["memory"][scheme.lower()] = factory

  def _create(self, kind: str, uri: str, examples: str, **kwargs: Any) -> Any:
    scheme = _scheme(uri)
    factory = self._factories[kind].get(scheme)
    if factory is None:
      known = ", ".join(sorted(f"{s}://" for s in self._factories[kind]))
      raise ValueError(
          f"Unknown {kind} service URI scheme {scheme!r} in {uri!r}; use one of {known} "
          f"(for example {examples}), or register one with "
          f"get_service_registry().register_{kind}_service(scheme, factory)."
      )
    return factory(uri, **kwargs)

  def create_session_service(self, uri: str, **kwargs: Any) -> "BaseSessionService":
    """The session service for `uri`."""
    return self._create("session", uri, "'memory://' or 'sqlite:///sessions.db'", **kwargs)

  def create_artifact_service(self, uri: str, **kwargs: Any) -> "BaseArtifactService":
    """The artifact service for `uri`."""
    return self._create("artifact", uri, "'memory://' or 'file:///path/to/artifacts'", **kwargs)

  def create_memory_service(self, uri: str, **kwargs: Any) -> "BaseMemoryService":
    """The memory service for `uri`."""
    return self._create("memory", uri, "'memory://'", **kwargs)


_registry: Optional[ServiceRegistry] = None


def get_service_registry() -> ServiceRegistry:
  """The process-wide registry, with the built-in schemes registered."""
  global _registry
  if _registry is None:
    registry = ServiceRegistry()
    registry.register_session_service("memory", _memory_sessions)
    for scheme in ("sqlite", "sqlite+aiosqlite", "postgresql", "postgres", "postgresql+asyncpg"):
      registry.register_session_service(scheme, _database_sessions)
    registry.register_artifact_service("memory", _memory_artifacts)
    registry.register_artifact_service("file", _file_artifacts)
    registry.register_memory_service("memory", _memory_memory)
    _registry = registry
  return _registry


def session_service_from_uri(uri: str, **kwargs: Any) -> "BaseSessionService":
  """A session service for `uri`: 'memory://', 'sqlite:///file.db' or 'postgresql://...'.

  Extra keyword arguments go to the service (for databases: SQLAlchemy engine options).
  The folder of a new SQLite file is created if missing.
  """
  return get_service_registry().create_session_service(uri, **kwargs)


def artifact_service_from_uri(uri: str, **kwargs: Any) -> "BaseArtifactService":
  """An artifact service for `uri`: 'memory://' or 'file:///folder' (created if missing)."""
  return get_service_registry().create_artifact_service(uri, **kwargs)


def memory_service_from_uri(uri: str, **kwargs: Any) -> "BaseMemoryService":
  """A memory service for `uri`: 'memory://'."""
  return get_service_registry().create_memory_service(uri, **kwargs)
