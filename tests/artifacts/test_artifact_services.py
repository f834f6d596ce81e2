"""Artifact stores, in memory and on disk: versions, scopes, metadata, and path safety."""

from __future__ import annotations

import asyncio
import os

import pytest
from google.genai import types

from adk_nb.artifacts import (
    ArtifactVersion,
    BaseArtifactService,
    FileArtifactService,
    InMemoryArtifactService,
    UnsafeArtifactPathError,
)

APP, USER, S1, S2 = "shop", "ada", "s1", "s2"


@pytest.fixture(params=["memory", "file"])
def service(request, tmp_path) -> BaseArtifactService:
  if request.param == "memory":
    return InMemoryArtifactService()
  return FileArtifactService(tmp_path / "artifacts")


def png(data: bytes = b"\x89PNG\r\n\x00\xff") -> types.Part:
  return types.Part.from_bytes(data=data, mime_type="image/png")


async def save(service, filename, part, session_id=S1, **kw):
  return await service.save_artifact(app_name=APP, user_id=USER, session_id=session_id,
                                     filename=filename, artifact=part, **kw)


async def load(service, filename, session_id=S1, **kw):
  return await service.load_artifact(app_name=APP, user_id=USER, session_id=session_id,
                                     filename=filename, **kw)


async def test_versions_start_at_zero_and_each_can_be_loaded(service):
  assert await save(service, "chart.png", png(b"v0")) == 0
  assert await save(service, "chart.png", png(b"v1")) == 1
  assert await save(service, "chart.png", types.Part(text="v2")) == 2
  assert (await load(service, "chart.png")).text == "v2"
  assert (await load(service, "chart.png", version=0)).inline_data.data == b"v0"
  assert (await load(service, "chart.png", version=1)).inline_data.mime_type == "image/png"
  assert await load(service, "chart.png", version=7) is None
  assert await service.list_versions(app_name=APP, user_id=USER, session_id=S1,
                                     filename="chart.png") == [0, 1, 2]


async def test_missing_artifacts_load_as_none(service):
  assert await load(service, "nothing.txt") is None
  assert await service.list_versions(app_name=APP, user_id=USER, session_id=S1,
                                     filename="nothing.txt") == []
  assert await service.get_artifact_version(app_name=APP, user_id=USER, session_id=S1,
                                            filename="nothing.txt") is None


async def test_bytes_text_and_file_references_round_trip(service):
  await save(service, "raw.bin", types.Part.from_bytes(data=bytes(range(256)), mime_type="application/octet-stream"))
  await save(service, "note.md", types.Part(text="# héllo ✓"))
  await save(service, "video", types.Part(file_data=types.FileData(
      file_uri="gs://bucket/v.mp4", mime_type="video/mp4")))
  assert (await load(service, "raw.bin")).inline_data.data == bytes(range(256))
  assert (await load(service, "note.md")).text == "# héllo ✓"
  ref = await load(service, "video")
  assert ref.file_data.file_uri == "gs://bucket/v.mp4" and ref.file_data.mime_type == "video/mp4"


async def test_dict_artifacts_are_accepted_like_adk(service):
  await save(service, "d.txt", {"text": "from a dict"})
  assert (await load(service, "d.txt")).text == "from a dict"


async def test_mime_type_and_custom_metadata_are_kept_per_version(service):
  await save(service, "chart.png", png(), custom_metadata={"source": "plot", "n": [1, 2]})
  await save(service, "chart.png", types.Part(text="caption"))
  versions = await service.list_artifact_versions(app_name=APP, user_id=USER, session_id=S1,
                                                  filename="chart.png")
  assert [v.version for v in versions] == [0, 1]
  assert all(isinstance(v, ArtifactVersion) for v in versions)
  assert versions[0].mime_type == "image/png" and versions[0].custom_metadata == {"source": "plot", "n": [1, 2]}
  assert versions[1].mime_type == "text/plain" and versions[1].custom_metadata == {}
  assert versions[0].create_time <= versions[1].create_time
  latest = await service.get_artifact_version(app_name=APP, user_id=USER, session_id=S1,
                                              filename="chart.png")
  assert latest.version == 1
  first = await service.get_artifact_version(app_name=APP, user_id=USER, session_id=S1,
                                             filename="chart.png", version=0)
  assert first.custom_metadata["source"] == "plot" and first.canonical_uri


async def test_session_artifacts_stay_in_their_session_user_ones_are_shared(service):
  await save(service, "draft.txt", types.Part(text="s1 only"), session_id=S1)
  await save(service, "user:profile.json", types.Part(text="{}"), session_id=S1)
  assert await load(service, "draft.txt", session_id=S2) is None
  assert (await load(service, "user:profile.json", session_id=S2)).text == "{}"
  # A second save from another session is the next version of the same artifact.
  assert await save(service, "user:profile.json", types.Part(text="{1}"), session_id=S2) == 1
  assert await service.list_artifact_keys(app_name=APP, user_id=USER, session_id=S1) == [
      "draft.txt", "user:profile.json"]
  assert await service.list_artifact_keys(app_name=APP, user_id=USER, session_id=S2) == [
      "user:profile.json"]
  # Other users and apps see nothing.
  assert await service.list_artifact_keys(app_name=APP, user_id="bob", session_id=S1) == []
  assert await service.list_artifact_keys(app_name="other", user_id=USER, session_id=S1) == []
  assert await service.load_artifact(app_name=APP, user_id="bob", session_id=S1,
                                     filename="user:profile.json") is None


async def test_without_a_session_id_artifacts_are_user_scoped(service):
  await save(service, "cv.pdf", types.Part(text="cv"), session_id=None)
  assert (await load(service, "user:cv.pdf", session_id=S2)).text == "cv"
  assert await service.list_artifact_keys(app_name=APP, user_id=USER) == ["user:cv.pdf"]


async def test_delete_removes_every_version(service):
  await save(service, "a.txt", types.Part(text="1"))
  await save(service, "a.txt", types.Part(text="2"))
  await save(service, "b.txt", types.Part(text="b"))
  await service.delete_artifact(app_name=APP, user_id=USER, session_id=S1, filename="a.txt")
  assert await load(service, "a.txt") is None
  assert await service.list_artifact_keys(app_name=APP, user_id=USER, session_id=S1) == ["b.txt"]
  # Saving again starts over at version 0; deleting a missing artifact is fine.
  assert await save(service, "a.txt", types.Part(text="new")) == 0
  await service.delete_artifact(app_name=APP, user_id=USER, session_id=S1, filename="ghost")


async def test_names_with_slashes_and_odd_characters_are_one_artifact(service):
  for name in ("reports/2024/q1.pdf", "100% done?.txt", "naïve — file.txt", "user:a/b"):
    await save(service, name, types.Part(text=name))
    assert (await load(service, name)).text == name
  assert await service.list_artifact_keys(app_name=APP, user_id=USER, session_id=S1) == sorted(
      ["reports/2024/q1.pdf", "100% done?.txt", "naïve — file.txt", "user:a/b"])


async def test_changing_a_part_after_saving_or_loading_changes_nothing_stored(service):
  part = types.Part(text="original")
  await save(service, "t.txt", part)
  part.text = "mutated"
  loaded = await load(service, "t.txt")
  loaded.text = "mutated too"
  assert (await load(service, "t.txt")).text == "original"


@pytest.mark.parametrize("artifact, match", [
    (types.Part(), "no inline_data, text or file_data"),
    ("just a string", "types.Part"),
])
async def test_parts_without_payload_are_refused(service, artifact, match):
  with pytest.raises((ValueError, TypeError), match=match):
    await save(service, "x", artifact)


async def test_metadata_that_is_not_json_is_refused(service):
  with pytest.raises(ValueError, match="custom_metadata must be JSON"):
    await save(service, "x.txt", types.Part(text="x"), custom_metadata={"f": object()})
  assert await load(service, "x.txt") is None


@pytest.mark.parametrize("filename", ["", "user:", "bad\x00name.txt"])
async def test_empty_names_and_nul_bytes_are_refused(service, filename):
  with pytest.raises(ValueError):
    await save(service, filename, types.Part(text="x"))


# -- files on disk --------------------------------------------------------------


async def test_files_survive_a_new_service_on_the_same_root(tmp_path):
  first = FileArtifactService(tmp_path / "root")
  await save(first, "user:keep.txt", types.Part(text="kept"), custom_metadata={"k": 1})
  second = FileArtifactService(tmp_path / "root")
  assert (await load(second, "user:keep.txt", session_id=S2)).text == "kept"
  [info] = await second.list_artifact_versions(app_name=APP, user_id=USER, session_id=S2,
                                               filename="user:keep.txt")
  assert info.custom_metadata == {"k": 1} and info.canonical_uri.startswith("file://")


async def test_concurrent_saves_get_distinct_versions(tmp_path):
  service = FileArtifactService(tmp_path / "root")
  versions = await asyncio.gather(*(save(service, "log.txt", types.Part(text=str(i)))
                                    for i in range(12)))
  assert sorted(versions) == list(range(12))
  texts = {(await load(service, "log.txt", version=v)).text for v in range(12)}
  assert texts == {str(i) for i in range(12)}


@pytest.mark.parametrize("filename", [
    "../escape.txt", "../../etc/passwd", "a/../../b", "user:../x", "./x", "a/./b",
    "/etc/passwd", "\\\\server\\share", "..\\windows.txt", "C:\\evil.txt", "C:/evil.txt",
])
async def test_filenames_that_could_escape_the_root_are_rejected(tmp_path, filename):
  root = tmp_path / "root"
  service = FileArtifactService(root)
  with pytest.raises(UnsafeArtifactPathError):
    await save(service, filename, types.Part(text="x"))
  with pytest.raises(UnsafeArtifactPathError):
    await load(service, filename)
  with pytest.raises(UnsafeArtifactPathError):
    await service.delete_artifact(app_name=APP, user_id=USER, session_id=S1, filename=filename)
  outside = [p for p in tmp_path.rglob("*") if not str(p).startswith(str(root))]
  assert outside == [root] or outside == []


@pytest.mark.parametrize("field, value", [
    ("app_name", "../x"), ("user_id", "a/b"), ("session_id", ".."), ("user_id", "nul\x00"),
])
async def test_ids_that_could_escape_the_root_are_rejected(tmp_path, field, value):
  service = FileArtifactService(tmp_path / "root")
  kwargs = {"app_name": APP, "user_id": USER, "session_id": S1, field: value}
  with pytest.raises(UnsafeArtifactPathError):
    await service.save_artifact(filename="x.txt", artifact=types.Part(text="x"), **kwargs)


async def test_a_symlink_inside_the_root_is_never_followed(tmp_path):
  root = tmp_path / "root"
  outside = tmp_path / "outside"
  outside.mkdir()
  (outside / "secret.txt").write_text("secret")
  service = FileArtifactService(root)
  await save(service, "first.txt", types.Part(text="x"))
  # Someone replaces the user's folder with a link to elsewhere.
  user_dir = root / "apps" / APP / "users" / USER
  os.rename(user_dir, tmp_path / "moved")
  os.symlink(outside, user_dir)
  with pytest.raises(UnsafeArtifactPathError, match="symbolic link"):
    await save(service, "x.txt", types.Part(text="planted"))
  with pytest.raises(UnsafeArtifactPathError, match="symbolic link"):
    await load(service, "first.txt")
  with pytest.raises(UnsafeArtifactPathError, match="symbolic link"):
    await service.list_artifact_keys(app_name=APP, user_id=USER, session_id=S1)
  with pytest.raises(UnsafeArtifactPathError):
    await service.delete_artifact(app_name=APP, user_id=USER, session_id=S1, filename="first.txt")
  assert sorted(os.listdir(outside)) == ["secret.txt"]


async def test_a_symlinked_version_folder_is_refused(tmp_path):
  root = tmp_path / "root"
  service = FileArtifactService(root)
  await save(service, "a.txt", types.Part(text="mine"))
  artifact_dir = root / "apps" / APP / "users" / USER / "sessions" / S1 / "artifacts" / "a.txt"
  target = tmp_path / "elsewhere"
  target.mkdir()
  (target / "a.txt").write_bytes(b"not yours")
  (target / "metadata.json").write_text('{"fileName": "a.txt", "version": 1}')
  os.symlink(target, artifact_dir / "versions" / "1")
  with pytest.raises(UnsafeArtifactPathError):
    await load(service, "a.txt")
  assert (await load(service, "a.txt", version=0)).text == "mine"


async def test_corrupt_metadata_names_the_file_and_the_fix(tmp_path):
  root = tmp_path / "root"
  service = FileArtifactService(root)
  await save(service, "a.txt", types.Part(text="x"))
  meta = root / "apps" / APP / "users" / USER / "sessions" / S1 / "artifacts" / "a.txt" / "versions" / "0" / "metadata.json"
  meta.write_text("{broken")
  with pytest.raises(ValueError, match="metadata.json is unreadable.*delete the version folder"):
    await load(service, "a.txt")
