"""Artifacts kept in this process's memory: for tests and notebooks that need no files."""

from __future__ import annotations

import copy
from typing import Any, Optional, Union
from urllib.parse import quote

from google.genai import types

from .artifact_util import _is_rewind_tombstone
from .base_artifact_service import (
    USER_PREFIX,
    ArtifactVersion,
    BaseArtifactService,
    bare_name,
    check_custom_metadata,
    check_filename,
    ensure_part,
    is_user_scoped,
    mime_type_of,
)

_Key = tuple[str, str, Optional[str], str]


class InMemoryArtifactService(BaseArtifactService):
  """Versioned artifacts in a dict; gone when the process ends.

  Saved and loaded parts are copies, so changing a part after saving it (or after
  loading it) never changes what is stored.
  """

  def __init__(self) -> None:
    self._versions: dict[_Key, list[tuple[types.Part, ArtifactVersion]]] = {}

  @staticmethod
  def _key(app_name: str, user_id: str, filename: str, session_id: Optional[str]) -> _Key:
    check_filename(filename)
    if is_user_scoped(filename, session_id):
      return (app_name, user_id, None, bare_name(filename))
    return (app_name, user_id, session_id, filename)

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
    key = self._key(app_name, user_id, filename, session_id)
    part = ensure_part(artifact)
    mime_type = mime_type_of(part)
    metadata = check_custom_metadata(custom_metadata)
    versions = self._versions.setdefault(key, [])
    version = len(versions)
    scope = "" if key[2] is None else f"/sessions/{quote(key[2], safe='')}"
    uri = (f"memory://apps/{quote(app_name, safe='')}/users/{quote(user_id, safe='')}{scope}"
           f"/artifacts/{quote(key[3], safe='')}/versions/{version}")
    info = ArtifactVersion(version=version, canonical_uri=uri, custom_metadata=metadata,
                           mime_type=mime_type)
    versions.append((part.model_copy(deep=True), info))
    return version

  def _entry(self, app_name: str, user_id: str, filename: str, session_id: Optional[str],
             version: Optional[int]):
    versions = self._versions.get(self._key(app_name, user_id, filename, session_id))
    if not versions:
      return None
    if version is None:
      return versions[-1]
    if 0 <= version < len(versions):
      return versions[version]
    return None

  async def load_artifact(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      session_id: Optional[str] = None,
      version: Optional[int] = None,
  ) -> Optional[types.Part]:
    entry = self._entry(app_name, user_id, filename, session_id, version)
    if entry is None or _is_rewind_tombstone(entry[0]):  # a rewind's "absent" marker
      return None
    return entry[0].model_copy(deep=True)

  async def list_artifact_keys(
      self, *, app_name: str, user_id: str, session_id: Optional[str] = None
  ) -> list[str]:
    names = set()
    for (app, user, session, name), versions in self._versions.items():
      if app != app_name or user != user_id or not versions:
        continue
      if session is None:
        names.add(USER_PREFIX + name)
      elif session_id is not None and session == session_id:
        names.add(name)
    return sorted(names)

  async def delete_artifact(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      session_id: Optional[str] = None,
  ) -> None:
    self._versions.pop(self._key(app_name, user_id, filename, session_id), None)

  async def list_versions(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      session_id: Optional[str] = None,
  ) -> list[int]:
    versions = self._versions.get(self._key(app_name, user_id, filename, session_id), [])
    return [info.version for _, info in versions]

  async def list_artifact_versions(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      session_id: Optional[str] = None,
  ) -> list[ArtifactVersion]:
    versions = self._versions.get(self._key(app_name, user_id, filename, session_id), [])
    return [copy.deepcopy(info) for _, info in versions]

  async def get_artifact_version(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      session_id: Optional[str] = None,
      version: Optional[int] = None,
  ) -> Optional[ArtifactVersion]:
    entry = self._entry(app_name, user_id, filename, session_id, version)
    return None if entry is None else copy.deepcopy(entry[1])
