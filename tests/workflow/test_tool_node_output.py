"""A tool node's output is what the tool returned, object for object, as in google-adk 2.13: an image
`Part` (alone or in a dict) and a pydantic model reach the next node as themselves, and a stored
session keeps the media's bytes. (The media rule of `flows._tool_media` is for answers to a model's
function call; a tool node answers no model.)"""

import pytest
from google.genai import types
from pydantic import BaseModel

from adk_nb import InMemoryRunner, Runner, Workflow
from adk_nb.sessions.sqlite_session_service import SqliteSessionService
from adk_nb.testing import run_turn
from adk_nb.tools import FunctionTool
from adk_nb.workflow._tool_node import _ToolNode

PNG = b"\x89PNG\r\n\x1a\n-not-really-an-image"


def image() -> types.Part:
  """Takes a picture."""
  return types.Part.from_bytes(data=PNG, mime_type="image/png")


def captioned() -> dict:
  """Takes a captioned picture."""
  return {"caption": "a cat", "image": types.Part.from_bytes(data=PNG, mime_type="image/png")}


class Point(BaseModel):
  x: int


def point() -> Point:
  """Returns a point."""
  return Point(x=3)


def graph(tool_func, seen):
  def begin(node_input):
    return {}

  def after(node_input):
    seen.append(node_input)
    return "ok"

  node = _ToolNode(tool=FunctionTool(tool_func))
  return Workflow(name="wf", edges=[("START", begin, node, after)])


@pytest.mark.parametrize("tool_func, expected", [
    (image, types.Part.from_bytes(data=PNG, mime_type="image/png")),
    (captioned, {"caption": "a cat", "image": types.Part.from_bytes(data=PNG, mime_type="image/png")}),
    (point, Point(x=3)),
], ids=["a bare image part", "a dict holding an image part", "a pydantic model"])
async def test_the_next_node_receives_the_tool_result_as_returned(tool_func, expected):
  seen = []
  events = await run_turn(InMemoryRunner(graph(tool_func, seen), app_name="app"), "go")
  [emitted] = [e.output for e in events if e.node_info.path == f"wf@1/{tool_func.__name__}@1"]
  assert emitted == expected and type(emitted) is type(expected)
  assert seen == [expected] and type(seen[0]) is type(expected)


async def test_a_stored_session_keeps_the_image_bytes(tmp_path):
  seen = []
  service = SqliteSessionService(db_path=str(tmp_path / "s.db"))
  runner = Runner(agent=graph(image, seen), app_name="app", session_service=service)
  await run_turn(runner, "go", session_id="s1")
  stored = await service.get_session(app_name="app", user_id="user", session_id="s1")
  [output] = [e.output for e in stored.events if e.node_info.path == "wf@1/image@1"]
  assert types.Part.model_validate(output).inline_data.data == PNG
