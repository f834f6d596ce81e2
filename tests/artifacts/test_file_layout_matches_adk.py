"""A FileArtifactService folder written by adk_nb is read by google-adk's, and the other way round.

Runs google-adk in its own interpreter ($ADK_NB_DIFF_ADK_PYTHON or bench/.venv-adk); skips
when it is not available.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest
from google.genai import types

from adk_nb.artifacts import FileArtifactService
from tests.support import adk_python as control_python

REPO_ROOT = Path(__file__).resolve().parents[2]
SCOPE = dict(app_name="shop", user_id="ada", session_id="s1")

ADK_SIDE = """
import asyncio, json, sys
from google.genai import types
from google.adk.artifacts import FileArtifactService
scope = dict(app_name="shop", user_id="ada", session_id="s1")
async def main(root):
  service = FileArtifactService(root)
  report = await service.load_artifact(filename="reports/q1.bin", **scope)
  note = await service.load_artifact(filename="user:note.txt", **scope)
  keys = await service.list_artifact_keys(**scope)
  await service.save_artifact(filename="from_adk.txt", artifact=types.Part(text="hello from adk"), **scope)
  await service.save_artifact(filename="img/pic.png", artifact=types.Part(inline_data=types.Blob(
      data=b"PNG", mime_type="image/png")), custom_metadata={"by": "adk"}, **scope)
  print(json.dumps({"report": [report.inline_data.data.decode(), report.inline_data.mime_type],
                    "note": note.text, "keys": keys}))
asyncio.run(main(sys.argv[1]))
"""


async def test_a_folder_is_shared_with_google_adk_both_ways(tmp_path):
  python = control_python()
  if python is None:
    pytest.skip("google-adk is not available ($ADK_NB_DIFF_ADK_PYTHON or bench/.venv-adk)")
  service = FileArtifactService(tmp_path)
  await service.save_artifact(filename="reports/q1.bin", artifact=types.Part(inline_data=types.Blob(
      data=b"v0", mime_type="application/pdf")), **SCOPE)
  await service.save_artifact(filename="reports/q1.bin", artifact=types.Part(inline_data=types.Blob(
      data=b"v1", mime_type="application/pdf")), **SCOPE)
  await service.save_artifact(filename="user:note.txt", artifact=types.Part(text="a note"), **SCOPE)
  done = subprocess.run([python, "-c", ADK_SIDE, str(tmp_path)], capture_output=True, text=True, timeout=120,
                        env={**os.environ, "PYTHONWARNINGS": "ignore"})
  assert done.returncode == 0, done.stderr[-3000:]
  seen = json.loads(done.stdout.strip().splitlines()[-1])
  assert seen["report"] == ["v1", "application/pdf"] and seen["note"] == "a note"
  assert sorted(seen["keys"]) == ["reports/q1.bin", "user:note.txt"]
  assert (await service.load_artifact(filename="from_adk.txt", **SCOPE)).text == "hello from adk"
  pic = await service.load_artifact(filename="img/pic.png", **SCOPE)
  assert (pic.inline_data.data, pic.inline_data.mime_type) == (b"PNG", "image/png")
  info = await service.get_artifact_version(filename="img/pic.png", **SCOPE)
  assert info.custom_metadata == {"by": "adk"} and info.canonical_uri.endswith("/img/pic.png/versions/0/pic.png")
  assert await service.list_artifact_keys(**SCOPE) == ["from_adk.txt", "img/pic.png", "reports/q1.bin",
                                                        "user:note.txt"]
