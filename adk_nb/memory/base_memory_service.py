"""The contract every memory store implements: ingest past sessions, search them."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Mapping, Optional, Sequence

from pydantic import BaseModel, Field

from .memory_entry import MemoryEntry

if TYPE_CHECKING:
  from ..events.event import Event
  from ..sessions.session import Session


class SearchMemoryResponse(BaseModel):
  """The memories that match a search, best first."""

  memories: list[MemoryEntry] = Field(default_factory=list)
  """The matching memories."""


class BaseMemoryService(abc.ABC):
  """Long-term memory across sessions: add finished sessions, search them by query."""

  @abc.abstractmethod
  async def add_session_to_memory(self, session: "Session") -> None:
    """Remembers a session's events; adding the same session again refreshes it."""

  async def add_events_to_memory(
      self,
      *,
      app_name: str,
      user_id: str,
      events: Sequence["Event"],
      session_id: Optional[str] = None,
      custom_metadata: Optional[Mapping[str, object]] = None,
  ) -> None:
    """Remembers some events (for example only the newest turn) without a whole session."""
    raise NotImplementedError(
        f"{type(self).__name__} cannot add single events; call add_session_to_memory(session)."
    )

  async def add_memory(
      self,
      *,
      app_name: str,
      user_id: str,
      memories: Sequence[MemoryEntry],
      custom_metadata: Optional[Mapping[str, object]] = None,
  ) -> None:
    """Remembers explicit memory entries (facts written directly, not taken from events)."""
    raise NotImplementedError(
        f"{type(self).__name__} cannot store explicit memories; call add_session_to_memory(session)."
    )

  @abc.abstractmethod
  async def search_memory(self, *, app_name: str, user_id: str, query: str) -> SearchMemoryResponse:
    """Memories of this app and user that match `query`, best first."""

  async def delete_memory(self, *, app_name: str, user_id: str, memory_id: Optional[str] = None) -> None:
    """Forgets one memory (by `MemoryEntry.id`)."""
    raise NotImplementedError(f"{type(self).__name__} cannot delete single memories.")
