"""diff_runs on runs read back from every store: an edited fork against its original, step by step."""

from __future__ import annotations

from google.genai import types

from adk_nb import Agent
from adk_nb.inspect import diff_runs, first_divergence
from adk_nb.models import ScriptedModel, call
from adk_nb.runners import Runner
from adk_nb.testing import run_turn, session_of


async def test_an_edited_fork_diverges_at_the_edited_tool_result(session_service):
  def lookup(city: str) -> dict:
    """Weather for a city."""
    return {"city": city, "temp": 21}

  def script(request):
    last = request.contents[-1].parts[-1]
    if last.function_response:
      return f"{last.function_response.response['temp']} degrees"
    return call("lookup", city="Paris")

  runner = Runner(agent=Agent(name="forecaster", model=ScriptedModel(script), tools=[lookup]), app_name="w",
                  session_service=session_service)
  await session_service.create_session(app_name="w", user_id="user", session_id="session")
  await run_turn(runner, "weather?")
  original = await session_of(runner)
  result = next(e for e in original.events if e.get_function_responses())
  fork = await runner.fork_async(user_id="user", session_id="session", at_event_id=result.id,
                                 replace_with=types.Content(parts=[types.Part(function_response=types.FunctionResponse(
                                     name="lookup", response={"city": "Paris", "temp": 35}))]))
  async for _ in runner.run_async(user_id="user", session_id=fork.id, invocation_id=result.invocation_id):
    pass

  frame = diff_runs(original, await session_of(runner, fork.id))

  assert list(frame.kind) == ["user", "model_call", "tool_call", "model_call"]
  assert list(frame.same) == [True, True, False, False]
  assert first_divergence(frame) == 2
  row = frame.iloc[2]
  assert row.a.endswith('"temp": 21}') and row.b.endswith('"temp": 35}') and row.author == "forecaster"
  assert (frame.iloc[3].a, frame.iloc[3].b) == ("21 degrees", "35 degrees")
  assert diff_runs(original, original).same.all() and first_divergence(diff_runs(original, original)) is None
