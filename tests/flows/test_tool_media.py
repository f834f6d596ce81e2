"""Media a tool returns (an image Part, a file uri, audio) reaches the model as function response parts,
as google-adk 2.13 sends it; the JSON part of the answer stays in `response`.

fixtures/google_adk_media_turn.json is what google-adk 2.13 itself sent its model for the same scripted
turn: written by fixtures/make_google_adk_media_turn.py (run with bench/.venv-adk/bin/python; it dumps the
last request content's parts with model_dump(mode="json", exclude_none=True)). The tools are shared,
in fixtures/media_tools.py.
"""

import base64
import json
import sys
from pathlib import Path

from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.models import ScriptedModel
from adk_nb.testing import run_turn, session_of

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
from media_tools import CALLS, FINAL_TEXT, PNG, TOOLS  # noqa: E402


def _runner(tools, calls):
  model = ScriptedModel([[types.Part(function_call=types.FunctionCall(id=f"call-{i}", name=name, args=args))
                          for i, (name, args) in enumerate(calls)], FINAL_TEXT])
  agent = Agent(name="media_agent", model=model, instruction="You look at things.", tools=tools)
  return model, InMemoryRunner(agent=agent, app_name="media")


async def test_the_model_gets_tool_media_as_function_response_parts_as_google_adk_sends_it():
  model, runner = _runner(TOOLS, CALLS)
  await run_turn(runner, "Show me.")
  model.assert_complete()
  sent = [p.model_dump(mode="json", exclude_none=True) for p in model.requests[-1].contents[-1].parts]
  assert sent == json.loads((FIXTURES / "google_adk_media_turn.json").read_text())


async def test_the_stored_answer_keeps_the_media_parts_and_the_tools_own_result_is_untouched():
  seen = []

  def look() -> dict:
    """Looks."""
    result = {"note": "hi", "image": types.Part.from_bytes(data=PNG, mime_type="image/png"),
              "deep": {"b": {"c": types.Part.from_bytes(data=PNG, mime_type="image/png")}}}
    seen.append(result)
    return result

  _, runner = _runner([look], [("look", {})])
  await run_turn(runner, "Look.")
  session = await session_of(runner)
  [response] = [e.content.parts[0].function_response for e in session.events
                if e.content and e.content.parts[0].function_response]
  assert [(p.inline_data.mime_type, p.inline_data.data) for p in response.parts] == [("image/png", PNG)]
  assert response.response["note"] == "hi" and "image" not in response.response
  # Two containers down is not searched (as in google-adk): that part stays in the JSON answer,
  # in json_form's form of a Part.
  assert base64.b64decode(response.response["deep"]["b"]["c"]["inlineData"]["data"]) == PNG
  assert set(seen[0]) == {"note", "image", "deep"}  # the tool's own dict is not changed


async def test_the_media_parts_survive_a_sqlite_store_and_reach_the_model_after_a_reload(tmp_path):
  from adk_nb import Runner
  from adk_nb.sessions import DatabaseSessionService

  url = f"sqlite:///{tmp_path}/s.db"
  first = ScriptedModel([types.Part(function_call=types.FunctionCall(name="take_snapshot", args={"label": "x"})),
                         "ok"])
  await run_turn(Runner(agent=Agent(name="a", model=first, tools=TOOLS), app_name="m",
                        session_service=DatabaseSessionService(url)), "Go.")
  later = ScriptedModel(["still a picture"])  # a new process: the history comes from the file
  await run_turn(Runner(agent=Agent(name="a", model=later, tools=TOOLS), app_name="m",
                        session_service=DatabaseSessionService(url)), "And now?")
  [answer] = [p.function_response for c in later.requests[0].contents for p in c.parts if p.function_response]
  assert answer.response == {"caption": "x"}
  assert [(p.inline_data.mime_type, p.inline_data.data) for p in answer.parts] == [("image/png", PNG)]
