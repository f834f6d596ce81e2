"""artifact:// URIs at google-adk's path."""

import pytest
from google.genai import types

from adk_nb.artifacts.artifact_util import ParsedArtifactUri, get_artifact_uri, is_artifact_ref, parse_artifact_uri


def test_uris_round_trip_for_session_and_user_scope():
  uri = get_artifact_uri("app", "u1", "report.pdf", 3, session_id="s1")
  assert uri == "artifact://apps/app/users/u1/sessions/s1/artifacts/report.pdf/versions/3"
  assert parse_artifact_uri(uri) == ParsedArtifactUri("app", "u1", "s1", "report.pdf", 3)
  user_uri = get_artifact_uri("app", "u1", "user:notes/a.txt", 0)
  assert user_uri == "artifact://apps/app/users/u1/artifacts/user:notes/a.txt/versions/0"
  assert parse_artifact_uri(user_uri) == ParsedArtifactUri("app", "u1", None, "user:notes/a.txt", 0)


@pytest.mark.parametrize("uri", ["", "gs://b/f", "artifact://apps/a/users/u/artifacts/f", "artifact://x"])
def test_other_strings_are_not_artifact_uris(uri):
  assert parse_artifact_uri(uri) is None


def test_is_artifact_ref():
  ref = types.Part(file_data=types.FileData(file_uri="artifact://apps/a/users/u/artifacts/f/versions/1",
                                            mime_type="text/plain"))
  assert is_artifact_ref(ref)
  assert not is_artifact_ref(types.Part(text="artifact://apps"))
  assert not is_artifact_ref(types.Part(file_data=types.FileData(file_uri="gs://b/f", mime_type="text/plain")))
