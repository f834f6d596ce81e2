"""Artifact services built from URIs."""

from __future__ import annotations

import pytest
from google.genai import types

from adk_nb.artifacts import FileArtifactService, InMemoryArtifactService
from adk_nb.services import artifact_service_from_uri, file_uri_to_path


def test_memory_uri_gives_an_in_memory_store():
  assert isinstance(artifact_service_from_uri("memory://"), InMemoryArtifactService)


async def test_file_uri_gives_a_file_store_in_that_folder(tmp_path):
  folder = tmp_path / "my artifacts"
  service = artifact_service_from_uri(folder.as_uri())
  assert isinstance(service, FileArtifactService) and service.root_dir == folder
  await service.save_artifact(app_name="a", user_id="u", session_id="s", filename="x.txt",
                              artifact=types.Part(text="x"))
  assert any(folder.rglob("versions/0/x.txt"))


@pytest.mark.parametrize("uri, path", [
    ("file:///data/artifacts", "/data/artifacts"),
    ("file://localhost/data/x", "/data/x"),
    ("file://relative/dir", "relative/dir"),
    ("file:///with%20space", "/with space"),
])
def test_file_uris_name_folders(uri, path):
  assert file_uri_to_path(uri) == path


@pytest.mark.parametrize("uri", ["gs://bucket", "s3://b", "/plain/path"])
def test_unknown_schemes_list_the_supported_ones(uri):
  with pytest.raises(ValueError, match="file://"):
    artifact_service_from_uri(uri)
