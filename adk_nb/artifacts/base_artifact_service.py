"""The contract every artifact store implements: versioned files per session or per user."""

from __future__ import annotations

import abc
import json
import time
from typing import Any, Optional, Union

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, alias_generators

USER_PREFIX = "user:"
"""Filenames starting with this are shared by all sessions of a user."""


class ArtifactVersion(BaseModel):
  """What is known about one saved version of an artifact (not its bytes)."""

  model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True)

  version: int
  """0 for the first save, then 1, 2, ..."""
  canonical_uri: str
  """Where this version's payload lives (`memory://...` or `file://...`)."""
  custom_metadata: dict[str, Any] = Field(default_factory=dict)
  """JSON metadata given to `save_artifact`."""
  create_time: float = Field(default_factory=time.time)
  """When the version was saved (seconds since the epoch)."""
  mime_type: Optional[str] = None
  """The payload's MIME type (`text/plain` for text parts)."""


def ensure_part(artifact: Union[types.Part, dict[str, Any]]) -> types.Part:
  """Accepts a Part, or a dict in Part's shape (camelCase or snake_case keys)."""
  if isinstance(artifact, types.Part):
    return artifact
  if isinstance(artifact, dict):
    return types.Part.model_validate(artifact)
  raise TypeError(
      f"An artifact is a google.genai types.Part, not {type(artifact).__name__}; build one "
      "with types.Part.from_bytes(data=..., mime_type=...) or types.Part(text=...)."
  )


def mime_type_of(part: types.Part) -> Optional[str]:
  """The MIME type stored with a part; raises ValueError for a part with no payload."""
  if part.inline_data is not None:
    return part.inline_data.mime_type
  if part.text is not None:
    return "text/plain"
  if part.file_data is not None:
    return part.file_data.mime_type
  raise ValueError(
      "The artifact has no inline_data, text or file_data to save; build it with "
      "types.Part.from_bytes(data=..., mime_type=...) or types.Part(text=...)."
  )


def check_filename(filename: Any) -> str:
  """Rejects names no store can keep: not a string, empty, or containing NUL."""
  if not isinstance(filename, str):
    raise TypeError(f"An artifact filename is a str, not {type(filename).__name__}.")
  bare = filename[len(USER_PREFIX):] if filename.startswith(USER_PREFIX) else filename
  if not bare.strip():
    raise ValueError(f"Artifact filename {filename!r} is empty; name the file, e.g. 'report.pdf'.")
  if "\x00" in filename:
    raise ValueError(f"Artifact filename {filename!r} contains a NUL byte; remove it.")
  return filename


def check_custom_metadata(custom_metadata: Optional[dict[str, Any]]) -> dict[str, Any]:
  """A JSON copy of the metadata; raises ValueError naming the fix when it is not JSON."""
  if not custom_metadata:
    return {}
  try:
    return json.loads(json.dumps(custom_metadata))
  except (TypeError, ValueError) as exc:
    raise ValueError(
        f"custom_metadata must be JSON (str, numbers, bools, None, lists, dicts): {exc}."
    ) from None


def is_user_scoped(filename: str, session_id: Optional[str]) -> bool:
  """True for artifacts shared by every session of the user: `user:` names, or no session."""
  return filename.startswith(USER_PREFIX) or session_id is None


def bare_name(filename: str) -> str:
  """The filename without its `user:` prefix."""
  return filename[len(USER_PREFIX):] if filename.startswith(USER_PREFIX) else filename


class BaseArtifactService(abc.ABC):
  """Saves and loads versioned artifacts (files a tool or agent produced).

  An artifact belongs to one session, unless its filename starts with `user:` (or no
  session_id is given): then every session of that user sees it. Each save makes a new
  version, numbered 0, 1, 2, ...
  """

  @abc.abstractmethod
  async def save_artifact(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      artifact: Union[types.Part, dict[str, Any]],
      session_id: Optional[str] = None,
      custom_metadata: Optional[dict[str, Any]] = None,
  ) -> int:
    """Saves a new version of `filename` and returns its version number (0 for the first)."""

  @abc.abstractmethod
  async def load_artifact(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      session_id: Optional[str] = None,
      version: Optional[int] = None,
  ) -> Optional[types.Part]:
    """Loads a version (the newest when `version` is None); None when there is none."""

  @abc.abstractmethod
  async def list_artifact_keys(
      self, *, app_name: str, user_id: str, session_id: Optional[str] = None
  ) -> list[str]:
    """Sorted names visible to the session: its own and the user's (`user:`-prefixed)."""

  @abc.abstractmethod
  async def delete_artifact(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      session_id: Optional[str] = None,
  ) -> None:
    """Deletes every version of an artifact; deleting a missing one is not an error."""

  @abc.abstractmethod
  async def list_versions(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      session_id: Optional[str] = None,
  ) -> list[int]:
    """The version numbers of an artifact, oldest first ([] when it does not exist)."""

  @abc.abstractmethod
  async def list_artifact_versions(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      session_id: Optional[str] = None,
  ) -> list[ArtifactVersion]:
    """Every version's metadata (MIME type, custom metadata, time), oldest first."""

  @abc.abstractmethod
  async def get_artifact_version(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      session_id: Optional[str] = None,
      version: Optional[int] = None,
  ) -> Optional[ArtifactVersion]:
    """One version's metadata (the newest when `version` is None); None when absent."""
