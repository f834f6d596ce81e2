"""Versioned artifacts (files agents and tools produce): in memory or on disk."""

from .base_artifact_service import ArtifactVersion, BaseArtifactService
from .file_artifact_service import FileArtifactService, UnsafeArtifactPathError
from .in_memory_artifact_service import InMemoryArtifactService

__all__ = [
    "ArtifactVersion",
    "BaseArtifactService",
    "FileArtifactService",
    "InMemoryArtifactService",
    "UnsafeArtifactPathError",
]
