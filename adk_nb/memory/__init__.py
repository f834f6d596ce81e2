"""Long-term memory: remember past sessions and search them from tools."""

from .base_memory_service import BaseMemoryService, SearchMemoryResponse
from .in_memory_memory_service import InMemoryMemoryService
from .memory_entry import MemoryEntry

__all__ = ["BaseMemoryService", "InMemoryMemoryService", "MemoryEntry", "SearchMemoryResponse"]
