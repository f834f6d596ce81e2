"""Sessions, prefix-scoped state and the stores that keep them."""

from .base_session_service import BaseSessionService, GetSessionConfig, ListSessionsResponse
from .fork import Lineage, lineage
from .in_memory_session_service import InMemorySessionService
from .session import Session
from .state import State, StateSchemaError

__all__ = [
    "BaseSessionService",
    "DatabaseSessionService",
    "GetSessionConfig",
    "InMemorySessionService",
    "Lineage",
    "ListSessionsResponse",
    "Session",
    "State",
    "StateSchemaError",
    "lineage",
]


def __getattr__(name: str):
  # SQLAlchemy is imported only when the database store is asked for.
  if name == "DatabaseSessionService":
    from .database_session_service import DatabaseSessionService

    return DatabaseSessionService
  raise AttributeError(f"module 'adk_nb.sessions' has no attribute {name!r}")
