"""Tools save and load artifacts through ToolContext; the event records artifact_delta."""

from __future__ import annotations

import pytest
from google.genai import types

from adk_nb import Agent, Runner
from adk_nb.artifacts import FileArtifactService, InMemoryArtifactService
from adk_nb.sessions import InMemorySessionService
from adk_nb.testing import ScriptedModel, call, run_turn
from adk_nb.tools import ToolContext


@pytest.fixture(params=["memory", "file"])
def artifacts(request, tmp_path):
  return InMemoryArtifactService() if request.param == "memory" else FileArtifactService(tmp_path / "a")


async def write_report(title: str, tool_context: ToolContext) -> dict:
  """Writes a report."""
  version = await tool_context.save_artifact(
      "report.md", types.Part(text=f"# {title}"), custom_metadata={"title": title})
  shared = await tool_context.save_artifact("user:notes.txt", types.Part(text="kept for the user"))
  return {"version": version, "shared": shared, "names": await tool_context.list_artifacts()}


async def read_report(tool_context: ToolContext) -> dict:
  """Reads the report."""
  part = await tool_context.load_artifact("report.md")
  first = await tool_context.load_artifact("report.md", version=0)
  return {"latest": part.text, "first": first.text}


async def test_a_tool_saves_artifacts_and_the_event_records_the_versions(artifacts):
  model = ScriptedModel([call("write_report", title="Q1"), call("write_report", title="Q2"),
                         call("read_report"), "Done."])
  agent = Agent(name="writer", model=model, tools=[write_report, read_report])
  runner = Runner(agent=agent, app_name="app", session_service=InMemorySessionService(),
                  artifact_service=artifacts)
  events = await run_turn(runner, "write the reports")
  responses = [(e, r) for e in events for r in e.get_function_responses()]
  (first_event, first), (second_event, second), (_, read) = responses
  assert first.response == {"version": 0, "shared": 0, "names": ["report.md", "user:notes.txt"]}
  assert first_event.actions.artifact_delta == {"report.md": 0, "user:notes.txt": 0}
  assert second_event.actions.artifact_delta == {"report.md": 1, "user:notes.txt": 1}
  assert read.response == {"latest": "# Q2", "first": "# Q1"}
  # The stored session has the deltas too, and the artifacts are where a user looks for them.
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert [e.actions.artifact_delta for e in session.events if e.actions.artifact_delta] == [
      {"report.md": 0, "user:notes.txt": 0}, {"report.md": 1, "user:notes.txt": 1}]
  info = await artifacts.get_artifact_version(app_name="app", user_id="user", session_id="session",
                                              filename="report.md", version=0)
  assert info.custom_metadata == {"title": "Q1"} and info.mime_type == "text/plain"
  other = await artifacts.list_artifact_keys(app_name="app", user_id="user", session_id="other")
  assert other == ["user:notes.txt"]


async def test_without_an_artifact_service_a_tool_gets_an_error_naming_the_fix():
  seen = {}

  async def save(tool_context: ToolContext) -> dict:
    """Saves."""
    try:
      await tool_context.save_artifact("x.txt", types.Part(text="x"))
    except ValueError as exc:
      seen["error"] = str(exc)
    return {}

  agent = Agent(name="a", model=ScriptedModel([call("save"), "ok"]), tools=[save])
  runner = Runner(agent=agent, app_name="app", session_service=InMemorySessionService())
  await run_turn(runner, "go")
  assert "artifact_service=InMemoryArtifactService()" in seen["error"]
