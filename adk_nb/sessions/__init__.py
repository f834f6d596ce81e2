"""Sessions, prefix-scoped state and the stores that keep them."""

from .base_session_service import BaseSessionService, GetSessionConfig, ListSessionsResponse
from .fork import Lineage, lineage
from .in_memory_session_service import InMemorySessionService
from .session import Session
from .state import State, StateSchemaError
from ..utils.lazy import lazy_exports

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


# SQLAlchemy is imported only when the database store is asked for.
__getattr__ = lazy_exports(__name__, {"DatabaseSessionService": ".database_session_service"})
