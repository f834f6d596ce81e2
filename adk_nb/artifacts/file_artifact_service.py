"""Artifacts as files under one directory, in google-adk's layout, so either reads the other's.

Layout under `root_dir` (one directory per version, published with an atomic rename,
so readers never see a half-written version and concurrent savers never share a number):

    apps/<app>/users/<user>/sessions/<session>/artifacts/<path>/versions/<n>/{<name>,metadata.json}
    apps/<app>/users/<user>/artifacts/<path>/versions/<n>/...          (user: artifacts)

`<path>` is the filename (without `user:`), its `/` making sub-folders, and `<name>` its
last segment; metadata.json holds ADK's fields (fileName, mimeType, version, canonicalUri,
customMetadata, createTime, displayName). A text artifact has no mimeType, as in ADK.
Nothing is ever read or written outside `root_dir`: filenames with `..` segments,
absolute paths or NUL bytes are rejected, and so is any path that would pass through a
symbolic link. `metadata.json` as a name and `versions` as a path segment are reserved.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import shutil
import time
import uuid
from pathlib import Path
from typing import Any, Optional, Union

from google.genai import types

from ..errors import codes
from ..errors.adk_nb_error import AdkNbError
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

_METADATA = "metadata.json"
_VERSIONS = "versions"


class UnsafeArtifactPathError(AdkNbError, ValueError):
  """A filename or id would read or write outside the artifact root; nothing was touched."""

  error_code = codes.UNSAFE_ARTIFACT_PATH


def _check_segment(value: Any, what: str) -> str:
  if not isinstance(value, str) or not value:
    raise ValueError(f"{what} must be a non-empty str, got {value!r}.")
  if value in (".", "..") or any(c in value for c in "/\\\x00"):
    raise UnsafeArtifactPathError(
        f"{what} {value!r} cannot be used as a folder name (it contains '/', '\\', NUL or is "
        "'.'/'..'); use ids made of letters, digits, '-' and '_'."
    )
  return value


def _check_path_safe(filename: str) -> list[str]:
  """The folder segments of an artifact; rejects names that try to leave their folder, saying what to use."""
  name = bare_name(check_filename(filename))
  if name.startswith(("/", "\\")) or (
      len(name) > 2 and name[1] == ":" and name[0].isalpha() and name[2] in "/\\"):
    raise UnsafeArtifactPathError(
        f"Artifact filename {filename!r} is an absolute path; use a relative name like "
        "'report.pdf' (the store decides where files live)."
    )
  parts = name.split("/")
  if any(p in ("..", ".", "") or "\\" in p for p in parts):
    raise UnsafeArtifactPathError(
        f"Artifact filename {filename!r} contains an empty, '.' or '..' path segment or a backslash, "
        "which could escape the artifact folder; use a plain name like 'report.pdf'."
    )
  if any(p.rstrip(" .").casefold() == _VERSIONS for p in parts) or parts[-1].rstrip(" .").casefold() == _METADATA:
    raise ValueError(
        f"Artifact filename {filename!r} is reserved: 'versions' cannot be a path segment and "
        "'metadata.json' cannot be the name (the store uses them); rename it."
    )
  if any(len(p.encode()) > 240 for p in parts):
    raise ValueError(f"Artifact filename {filename!r} is too long; keep each segment under ~200 characters.")
  return parts


class FileArtifactService(BaseArtifactService):
  """Versioned artifacts stored as files under `root_dir` (created if missing).

  Each version keeps the bytes (or text), the MIME type and the custom metadata.
  `file_data` parts (a URI, no bytes) are stored as the reference.
  """

  def __init__(self, root_dir: Union[str, os.PathLike]) -> None:
    self.root_dir = Path(root_dir).expanduser().resolve()
    self.root_dir.mkdir(parents=True, exist_ok=True)

  # -- paths -----------------------------------------------------------------

  def _scope_dir(self, app_name: str, user_id: str, session_id: Optional[str]) -> Path:
    base = self.root_dir / "apps" / _check_segment(app_name, "app_name") / "users" / \
        _check_segment(user_id, "user_id")
    if session_id is None:
      return base / "artifacts"
    return base / "sessions" / _check_segment(session_id, "session_id") / "artifacts"

  def _artifact_dir(self, app_name: str, user_id: str, filename: str,
                    session_id: Optional[str]) -> Path:
    segments = _check_path_safe(filename)
    scope = None if is_user_scoped(filename, session_id) else session_id
    return self._no_symlinks(self._scope_dir(app_name, user_id, scope).joinpath(*segments))

  def _no_symlinks(self, path: Path) -> Path:
    """The path, once sure that no part of it below root_dir is a symbolic link."""
    if os.path.realpath(path) != str(path):
      raise UnsafeArtifactPathError(
          f"Refusing to use {path}: part of it below the artifact root {self.root_dir} is a "
          "symbolic link, which could lead outside it. Remove the link."
      )
    return path

  @staticmethod
  def _versions_in(artifact_dir: Path) -> list[int]:
    try:
      names = os.listdir(artifact_dir / _VERSIONS)
    except (FileNotFoundError, NotADirectoryError):
      return []
    return sorted(int(n) for n in names if n.isdigit())

  # -- saving ----------------------------------------------------------------

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
    artifact_dir = self._artifact_dir(app_name, user_id, filename, session_id)
    part = ensure_part(artifact)
    mime_type_of(part)  # refuses a part with no inline_data, text or file_data, naming the fix
    metadata: dict[str, Any] = {
        "fileName": filename,
        "customMetadata": check_custom_metadata(custom_metadata) or {},
        "createTime": time.time(),
    }
    if part.inline_data is not None:
      metadata["mimeType"] = part.inline_data.mime_type or "application/octet-stream"
      metadata["displayName"] = part.inline_data.display_name
      payload: Optional[bytes] = part.inline_data.data or b""
    elif part.text is not None:
      payload = part.text.encode("utf-8")  # no mimeType: ADK's mark of a text artifact
    else:  # beyond ADK: a file_data reference (ADK's store reads it as absent)
      metadata["mimeType"] = part.file_data.mime_type
      metadata["displayName"] = part.file_data.display_name
      metadata["fileUri"] = part.file_data.file_uri
      payload = None
    return await asyncio.to_thread(self._save, artifact_dir, payload, metadata)

  def _save(self, artifact_dir: Path, payload: Optional[bytes], metadata: dict[str, Any]) -> int:
    versions_dir = artifact_dir / _VERSIONS
    versions_dir.mkdir(parents=True, exist_ok=True)
    self._no_symlinks(versions_dir)
    stage = versions_dir / f".pending-{uuid.uuid4().hex}"
    stage.mkdir()
    try:
      if payload is not None:
        (stage / artifact_dir.name).write_bytes(payload)
      while True:
        versions = self._versions_in(artifact_dir)
        version = versions[-1] + 1 if versions else 0
        meta = {**metadata, "version": version,
                "canonicalUri": (versions_dir / str(version) / artifact_dir.name).as_uri()}
        (stage / _METADATA).write_text(json.dumps({k: v for k, v in meta.items() if v is not None}),
                                       encoding="utf-8")
        try:
          # Renaming onto an existing (non-empty) version fails: another saver took it.
          os.rename(stage, versions_dir / str(version))
          return version
        except OSError as exc:
          if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
            raise
    finally:
      if stage.exists():
        shutil.rmtree(stage, ignore_errors=True)

  # -- loading ---------------------------------------------------------------

  def _version_dir(self, artifact_dir: Path, version: Optional[int]) -> Optional[Path]:
    versions = self._versions_in(artifact_dir)
    if not versions:
      return None
    if version is None:
      version = versions[-1]
    if version not in versions:
      return None
    return self._no_symlinks(artifact_dir / _VERSIONS / str(version))

  @staticmethod
  def _read_metadata(version_dir: Path) -> dict[str, Any]:
    path = version_dir / _METADATA
    try:
      data = json.loads(path.read_text(encoding="utf-8"))
      if not isinstance(data, dict):
        raise ValueError("not a JSON object")
      return data
    except (OSError, ValueError) as exc:
      raise ValueError(
          f"Artifact metadata {path} is unreadable ({exc}); restore it from a backup or "
          f"delete the version folder {version_dir}."
      ) from None

  def _info(self, version_dir: Path) -> ArtifactVersion:
    meta = self._read_metadata(version_dir)
    payload = version_dir / version_dir.parent.parent.name
    return ArtifactVersion(
        version=int(version_dir.name), canonical_uri=meta.get("fileUri") or payload.as_uri(),
        custom_metadata=meta.get("customMetadata") or {},
        create_time=meta.get("createTime") or 0.0, mime_type=meta.get("mimeType") or "text/plain",
    )

  def _load(self, artifact_dir: Path, version: Optional[int]) -> Optional[types.Part]:
    version_dir = self._version_dir(artifact_dir, version)
    if version_dir is None:
      return None
    meta = self._read_metadata(version_dir)
    if meta.get("fileUri"):
      return types.Part(file_data=types.FileData(
          file_uri=meta["fileUri"], mime_type=meta.get("mimeType"), display_name=meta.get("displayName")))
    # The payload's place comes from the layout, never from the metadata (which anyone can edit).
    data = (version_dir / artifact_dir.name).read_bytes()
    if not meta.get("mimeType"):
      return types.Part(text=data.decode("utf-8"))
    part = types.Part(inline_data=types.Blob(
        data=data, mime_type=meta["mimeType"], display_name=meta.get("displayName")))
    return None if _is_rewind_tombstone(part) else part  # a rewind's "absent" marker

  async def load_artifact(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      session_id: Optional[str] = None,
      version: Optional[int] = None,
  ) -> Optional[types.Part]:
    artifact_dir = self._artifact_dir(app_name, user_id, filename, session_id)
    return await asyncio.to_thread(self._load, artifact_dir, version)

  def _names_in(self, scope_dir: Path) -> list[str]:
    """Artifact paths under a scope folder: every folder holding a `versions` folder with a version."""
    try:
      self._no_symlinks(scope_dir)
    except FileNotFoundError:
      return []
    names = []
    for dirpath, dirnames, _ in os.walk(scope_dir, followlinks=False):
      here = Path(dirpath)
      if _VERSIONS in dirnames:
        dirnames.remove(_VERSIONS)  # an artifact folder may also hold nested artifacts
        if self._versions_in(here):
          names.append(here.relative_to(scope_dir).as_posix())
    return names

  async def list_artifact_keys(
      self, *, app_name: str, user_id: str, session_id: Optional[str] = None
  ) -> list[str]:
    def names() -> list[str]:
      found = {USER_PREFIX + n for n in self._names_in(self._scope_dir(app_name, user_id, None))}
      if session_id is not None:
        found.update(self._names_in(self._scope_dir(app_name, user_id, session_id)))
      return sorted(found)
    return await asyncio.to_thread(names)

  async def delete_artifact(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      session_id: Optional[str] = None,
  ) -> None:
    artifact_dir = self._artifact_dir(app_name, user_id, filename, session_id)
    await asyncio.to_thread(shutil.rmtree, artifact_dir, True)

  async def list_versions(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      session_id: Optional[str] = None,
  ) -> list[int]:
    return self._versions_in(self._artifact_dir(app_name, user_id, filename, session_id))

  async def list_artifact_versions(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      session_id: Optional[str] = None,
  ) -> list[ArtifactVersion]:
    artifact_dir = self._artifact_dir(app_name, user_id, filename, session_id)
    return [self._info(self._no_symlinks(artifact_dir / _VERSIONS / str(v)))
            for v in self._versions_in(artifact_dir)]

  async def get_artifact_version(
      self,
      *,
      app_name: str,
      user_id: str,
      filename: str,
      session_id: Optional[str] = None,
      version: Optional[int] = None,
  ) -> Optional[ArtifactVersion]:
    artifact_dir = self._artifact_dir(app_name, user_id, filename, session_id)
    version_dir = self._version_dir(artifact_dir, version)
    return None if version_dir is None else self._info(version_dir)
