"""ContextFilterPlugin: the model is sent only the last user turns; the session keeps everything."""

from __future__ import annotations

from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.models import ScriptedModel, call
from adk_nb.plugins import ContextFilterPlugin
from adk_nb.plugins.context_filter_plugin import keep_calls_whole
from adk_nb.testing import run_turn, session_of


def texts(request) -> list[str]:
  out = []
  for content in request.contents:
    for part in content.parts:
      if part.text:
        out.append(part.text)
      elif part.function_call:
        out.append(f"call {part.function_call.name}")
      elif part.function_response:
        out.append(f"answer {part.function_response.name}")
  return out


async def test_the_model_sees_the_last_turns_and_the_session_keeps_all():
  seen = []

  def model(request):
    seen.append(texts(request))
    last = request.contents[-1].parts[0]
    if last.text == "weather?":
      return call("weather")
    return "ok"

  def weather() -> str:
    """Today's weather."""
    return "sunny"

  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel(model), tools=[weather]), app_name="app",
                          plugins=[ContextFilterPlugin(num_invocations_to_keep=2)])
  for message in ["one", "weather?", "three", "four"]:
    await run_turn(runner, message)
  # Turn 3 has three user turns before it: >= 2 + 1, so the first is dropped.
  assert seen[-2] == ["weather?", "call weather", "answer weather", "ok", "three"]
  assert seen[-1] == ["three", "ok", "four"]
  assert len((await session_of(runner)).events) == 10  # 4 typed, a call, its answer, 4 replies


def _content(role, **part):
  return types.Content(role=role, parts=[types.Part(**part)])


def test_a_kept_answer_keeps_the_turn_of_its_call():
  contents = [
      _content("user", text="book it"),
      _content("model", function_call=types.FunctionCall(id="c1", name="book", args={})),
      _content("user", text="and?"),
      _content("user", function_response=types.FunctionResponse(id="c1", name="book", response={})),
      _content("user", text="thanks"),
  ]
  plugin = ContextFilterPlugin(num_invocations_to_keep=1)
  assert keep_calls_whole(contents, 4) == 4
  # Keeping from "and?" would keep the answer to c1 without its call: the cut moves back to the call.
  assert keep_calls_whole(contents, 2) == 1
  assert plugin.filtered(contents) == contents[4:]
  assert ContextFilterPlugin(custom_filter=lambda c: c[-1:]).filtered(contents) == contents[-1:]


async def test_a_filter_that_raises_leaves_the_request_whole(caplog):
  seen = []

  def model(request):
    seen.append(texts(request))
    return "fine"

  def broken(contents):
    raise RuntimeError("bug in my filter")

  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel(model)), app_name="app",
                          plugins=[ContextFilterPlugin(custom_filter=broken)])
  await run_turn(runner, "hi")
  await run_turn(runner, "again")
  assert seen[-1] == ["hi", "fine", "again"]
  assert "sent unfiltered" in caplog.text
