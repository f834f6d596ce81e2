"""SaveFilesAsArtifactsPlugin: an attached file becomes an artifact; the model reads a note naming it."""

from __future__ import annotations

from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.models import ScriptedModel
from adk_nb.plugins import SaveFilesAsArtifactsPlugin
from adk_nb.testing import run_turn, session_of


def message_with_file(data: bytes, name: str = "notes.txt") -> list[types.Part]:
  return [types.Part(text="Summarise this"),
          types.Part(inline_data=types.Blob(mime_type="text/plain", data=data, display_name=name))]


async def test_an_attached_file_is_saved_and_the_model_gets_a_note_in_its_place():
  seen = []

  def model(request):
    seen.append([p.text for p in request.contents[-1].parts])
    return "done"

  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel(model)), app_name="app",
                          plugins=[SaveFilesAsArtifactsPlugin()])
  await run_turn(runner, message_with_file(b"hello file"))
  assert seen == [["Summarise this", '[File saved as artifact "notes.txt"]']]
  saved = await runner.artifact_service.load_artifact(app_name="app", user_id="user", session_id="session",
                                                      filename="notes.txt")
  assert saved.inline_data.data == b"hello file"
  session = await session_of(runner)
  assert [e.actions.artifact_delta for e in session.events if e.actions.artifact_delta] == [{"notes.txt": 0}]
  assert session.events[0].content.parts[1].inline_data is None  # the stored message holds the note


async def test_a_file_over_the_limit_is_not_kept_and_the_note_says_so():
  seen = []
  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel(lambda r: seen.append(r.contents[-1]) or "ok")),
                          app_name="app", plugins=[SaveFilesAsArtifactsPlugin(max_file_bytes=4)])
  await run_turn(runner, message_with_file(b"too long"))
  assert "was not kept" in seen[0].parts[1].text
  assert await runner.artifact_service.list_artifact_keys(app_name="app", user_id="user",
                                                          session_id="session") == []
