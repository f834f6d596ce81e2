"""`GcsArtifactService` at google-adk's path: importable, refused on use.

adk_nb has no Google Cloud Storage backend (README "Compatibility": absent, no issue). Use
`FileArtifactService` (a folder, google-adk's on-disk layout) or `InMemoryArtifactService`.
"""

from __future__ import annotations

from typing import Any


class GcsArtifactService:
  """Not available in adk_nb: constructing it raises NotImplementedError."""

  def __init__(self, *args: Any, **kwargs: Any):
    raise NotImplementedError(
        "GcsArtifactService (Google Cloud Storage) is not implemented in adk_nb (see README "
        "'Compatibility'); use adk_nb.artifacts.FileArtifactService('folder') or InMemoryArtifactService().")


__all__ = ["GcsArtifactService"]
