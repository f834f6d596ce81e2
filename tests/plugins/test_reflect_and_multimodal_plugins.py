"""ReflectAndRetryToolPlugin and MultimodalToolResultsPlugin, seen from what the model receives."""

import typing

import pytest
from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.plugins import ReflectAndRetryToolPlugin
from adk_nb.plugins.multimodal_tool_results_plugin import MultimodalToolResultsPlugin
from adk_nb.plugins.plugin_manager import PluginCallbackName, PluginManager
from adk_nb.plugins.reflect_retry_tool_plugin import REFLECT_AND_RETRY_RESPONSE_TYPE, TrackingScope
from adk_nb.testing import ScriptedModel, call, run_turn


def _responses(request):
  """Function responses in the last content of a model request."""
  return [p.function_response.response for p in request.contents[-1].parts if p.function_response]


def flaky_factory(fail_times):
  state = {"calls": 0}

  def divide(a: int, b: int) -> dict:
    """Divides a by b."""
    state["calls"] += 1
    if state["calls"] <= fail_times:
      raise ZeroDivisionError("division by zero")
    return {"value": a / b}

  return divide, state


async def test_a_failing_tool_is_answered_with_guidance_and_the_retry_succeeds():
  divide, state = flaky_factory(1)
  model = ScriptedModel([call("divide", a=1, b=0), call("divide", a=1, b=1), "done"])
  runner = InMemoryRunner(Agent(name="calc", model=model, tools=[divide]), app_name="app",
                          plugins=[ReflectAndRetryToolPlugin(max_retries=2)])
  await run_turn(runner, "divide")
  [failure] = _responses(model.requests[1])
  assert failure["response_type"] == REFLECT_AND_RETRY_RESPONSE_TYPE
  assert (failure["error_type"], failure["retry_count"]) == ("ZeroDivisionError", 1)
  assert "division by zero" in failure["reflection_guidance"] and '"b": 0' in failure["reflection_guidance"]
  assert _responses(model.requests[2]) == [{"value": 1.0}]
  assert state["calls"] == 2


async def test_past_the_limit_the_model_is_told_to_stop_or_the_error_is_raised():
  plugin = ReflectAndRetryToolPlugin(max_retries=1, throw_exception_if_retry_exceeded=False)

  class Ctx:
    invocation_id = "inv"

  class Tool:
    name = "divide"

  first = await plugin.on_tool_error_callback(tool=Tool(), tool_args={}, tool_context=Ctx(), error=ValueError("x"))
  second = await plugin.on_tool_error_callback(tool=Tool(), tool_args={}, tool_context=Ctx(), error=ValueError("x"))
  assert first["retry_count"] == 1
  assert second["retry_count"] == 0 and "no retries are left" in second["reflection_guidance"]

  raising = ReflectAndRetryToolPlugin(max_retries=0)
  with pytest.raises(ValueError, match="x"):
    await raising.on_tool_error_callback(tool=Tool(), tool_args={}, tool_context=Ctx(), error=ValueError("x"))
  with pytest.raises(ValueError, match="max_retries"):
    ReflectAndRetryToolPlugin(max_retries=-1)


async def test_counts_are_per_invocation_unless_global():
  class Tool:
    name = "t"

  def ctx(invocation_id):
    return type("Ctx", (), {"invocation_id": invocation_id})()

  per_invocation = ReflectAndRetryToolPlugin(max_retries=3)
  shared = ReflectAndRetryToolPlugin(max_retries=3, tracking_scope=TrackingScope.GLOBAL)
  for plugin, expected in ((per_invocation, [1, 1]), (shared, [1, 2])):
    got = [(await plugin.on_tool_error_callback(tool=Tool(), tool_args={}, tool_context=ctx(i),
                                                error=RuntimeError("e")))["retry_count"] for i in ("a", "b")]
    assert got == expected


async def test_parts_a_tool_returns_reach_the_next_model_request():
  image = types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG"))

  def render() -> list:
    """Renders the chart."""
    return [image]

  model = ScriptedModel([call("render"), "Here it is."])
  runner = InMemoryRunner(Agent(name="charts", model=model, tools=[render]), app_name="app",
                          plugins=[MultimodalToolResultsPlugin()])
  await run_turn(runner, "chart please")
  assert model.requests[1].contents[-1].parts[-1] == image
  with pytest.raises(NotImplementedError, match="retention='next_model_call'"):
    MultimodalToolResultsPlugin(retention="session")


def test_plugin_callback_name_lists_the_hooks_the_manager_runs():
  names = set(typing.get_args(PluginCallbackName))
  assert "before_tool_callback" in names and "on_model_error_callback" in names
  assert all(hasattr(PluginManager(), "run") for _ in names)
