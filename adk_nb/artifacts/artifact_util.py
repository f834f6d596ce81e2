"""`artifact://` URIs: how one artifact version is named, so a Part can refer to another artifact.

`artifact://apps/<app>/users/<user>[/sessions/<session>]/artifacts/<filename>/versions/<n>`
(google-adk's scheme; a user-scoped artifact has no sessions segment).
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional

from google.genai import types

SCHEME = "artifact://"
_SEGMENT = r"((?:(?!/(?:apps|users|sessions|artifacts|versions)/).)+?)"
_SESSION_URI = re.compile(rf"artifact://apps/{_SEGMENT}/users/{_SEGMENT}/sessions/{_SEGMENT}"
                          r"/artifacts/(.+)/versions/(\d+)")
_USER_URI = re.compile(rf"artifact://apps/{_SEGMENT}/users/{_SEGMENT}/artifacts/(.+)/versions/(\d+)")


class ParsedArtifactUri(NamedTuple):
  """The parts of an `artifact://` URI."""

  app_name: str
  user_id: str
  session_id: Optional[str]
  """None for a user-scoped artifact (`user:` filename)."""
  filename: str
  version: int


def parse_artifact_uri(uri: str) -> Optional[ParsedArtifactUri]:
  """The parts of an `artifact://` URI; None when `uri` is not one."""
  if not uri or not uri.startswith(SCHEME):
    return None
  match = _SESSION_URI.fullmatch(uri)
  if match:
    app, user, session, filename, version = match.groups()
    return ParsedArtifactUri(app, user, session, filename, int(version))
  match = _USER_URI.fullmatch(uri)
  if match:
    app, user, filename, version = match.groups()
    return ParsedArtifactUri(app, user, None, filename, int(version))
  return None


def get_artifact_uri(app_name: str, user_id: str, filename: str, version: int,
                     session_id: Optional[str] = None) -> str:
  """The `artifact://` URI of one version; session-scoped when `session_id` is given."""
  scope = f"apps/{app_name}/users/{user_id}"
  if session_id:
    scope += f"/sessions/{session_id}"
  return f"{SCHEME}{scope}/artifacts/{filename}/versions/{version}"


def is_artifact_ref(artifact: types.Part) -> bool:
  """True when the Part only points at another artifact (`file_data.file_uri` is an `artifact://` URI)."""
  file_data = artifact.file_data
  return bool(file_data and file_data.file_uri and file_data.file_uri.startswith(SCHEME))


__all__ = ["ParsedArtifactUri", "get_artifact_uri", "is_artifact_ref", "parse_artifact_uri"]


_REWIND_MARKER_MIME = "application/octet-stream"


def _new_rewind_tombstone() -> types.Part:
  """The part a session rewind saves as a new version of an artifact that did not exist at the
  rewind point (google-adk's marker: empty `application/octet-stream` bytes). Versions are never
  deleted, so the marker stands for "absent": every artifact service loads it as None."""
  return types.Part(inline_data=types.Blob(mime_type=_REWIND_MARKER_MIME, data=b""))


def _is_rewind_tombstone(artifact: Optional[types.Part]) -> bool:
  """True when `artifact` is the rewind marker (so an artifact saved as exactly empty
  `application/octet-stream` bytes also loads as absent, as in google-adk)."""
  blob = artifact.inline_data if artifact is not None else None
  return bool(blob is not None and blob.mime_type == _REWIND_MARKER_MIME and not blob.data
              and artifact.text is None and artifact.file_data is None)
