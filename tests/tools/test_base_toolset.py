"""BaseToolset: toolsets in tools=[...], filters and prefixes as the model sees them, closing."""

from typing import Optional

import pytest

from adk_nb import Agent, InMemoryRunner
from adk_nb.agents.readonly_context import ReadonlyContext
from adk_nb.testing import ScriptedModel, call, run_turn
from adk_nb.tools import AgentTool, FunctionTool
from adk_nb.tools.base_tool import BaseTool
from adk_nb.tools.base_toolset import BaseToolset


def add(a: int, b: int) -> int:
  """Adds two numbers."""
  return a + b


def mul(a: int, b: int) -> int:
  """Multiplies two numbers."""
  return a * b


class MathToolset(BaseToolset):
  """Offers add and mul; counts how often it was asked and closed."""

  def __init__(self, **kwargs):
    super().__init__(**kwargs)
    self.contexts: list[Optional[ReadonlyContext]] = []
    self.closed = 0
    self.requests_seen = 0

  async def get_tools(self, readonly_context=None) -> list[BaseTool]:
    self.contexts.append(readonly_context)
    tools = [FunctionTool(add), FunctionTool(mul)]
    return [t for t in tools if self._is_tool_selected(t, readonly_context)]

  async def process_llm_request(self, *, tool_context, llm_request) -> None:
    self.requests_seen += 1

  async def close(self) -> None:
    self.closed += 1


def declared(request) -> list[str]:
  return sorted(d.name for t in request.config.tools or [] for d in t.function_declarations or [])


async def test_toolset_tools_reach_the_model_and_run_with_the_session_as_context():
  toolset = MathToolset()
  model = ScriptedModel([call("mul", a=6, b=7), "42"])
  agent = Agent(name="calc", model=model, tools=[toolset])
  runner = InMemoryRunner(agent, app_name="app")
  events = await run_turn(runner, "6*7?", state_delta={"user:tier": "gold"})
  assert events[2].get_function_responses()[0].response == {"result": 42}
  assert declared(model.requests[0]) == ["add", "mul"]
  # Asked once per model call, with the session readable through the context.
  assert len(toolset.contexts) >= 2 and toolset.requests_seen == 2
  assert toolset.contexts[0].state["user:tier"] == "gold"
  model.assert_complete()


async def test_filter_as_list_or_predicate_and_prefix_change_what_the_model_sees():
  by_name = MathToolset(tool_filter=["add"], tool_name_prefix="math")
  by_state = MathToolset(tool_filter=lambda tool, ctx: ctx is not None and tool.name in ctx.state.get("allowed", []))
  model = ScriptedModel([call("math_add", a=1, b=2), call("mul", a=2, b=5), "done"])
  agent = Agent(name="calc", model=model, tools=[by_name, by_state])
  runner = InMemoryRunner(agent, app_name="app")
  events = await run_turn(runner, "go", state_delta={"allowed": ["mul"]})
  assert declared(model.requests[0]) == ["math_add", "mul"]
  answers = [r for e in events for r in e.get_function_responses()]
  assert [(a.name, a.response) for a in answers] == [("math_add", {"result": 3}), ("mul", {"result": 10})]


async def test_prefix_leaves_the_toolsets_own_tools_unrenamed():
  toolset = MathToolset(tool_name_prefix="m")
  tools = await toolset.get_tools_with_prefix()
  assert [t.name for t in tools] == ["m_add", "m_mul"]
  assert tools[0]._get_declaration().name == "m_add"
  plain = await toolset.get_tools()
  assert [t.name for t in plain] == ["add", "mul"] and plain[0]._get_declaration().name == "add"


async def test_runner_close_closes_toolsets_of_the_whole_tree_once():
  shared, inner = MathToolset(), MathToolset()
  helper = Agent(name="helper", model=ScriptedModel([]), tools=[inner])
  child = Agent(name="child", model=ScriptedModel([]), tools=[shared])
  root = Agent(name="root", model=ScriptedModel([]), tools=[shared, AgentTool(helper)], sub_agents=[child])
  runner = InMemoryRunner(root, app_name="app")
  await runner.close()
  assert (shared.closed, inner.closed) == (1, 1)


def test_bad_tool_filter_and_non_tool_objects_are_rejected_with_the_fix():
  with pytest.raises(TypeError, match="tool_filter must be a list of tool names or a function"):
    MathToolset(tool_filter="add")
  with pytest.raises(TypeError, match="neither a function, a BaseTool nor a BaseToolset"):
    Agent(name="a", model=ScriptedModel([]), tools=[object()])


async def test_a_toolset_that_fails_to_list_is_left_out_of_the_step_and_logged(caplog):
  # google-adk 2.13's rule: the model call goes on without that toolset's tools (logged as an error).
  class Broken(BaseToolset):
    async def get_tools(self, readonly_context=None):
      raise ConnectionError("server 'weather' is not reachable")

  model = ScriptedModel(["answered without tools"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[Broken()]), app_name="app")
  events = await run_turn(runner, "hi")
  assert events[-1].content.parts[0].text == "answered without tools"
  assert not model.requests[0].config.tools
  assert "server 'weather' is not reachable" in caplog.text
  # Where a tool is looked up by name (a paused call being resumed), the failure still raises.
  with pytest.raises(ConnectionError, match="weather"):
    await runner.agent.canonical_tools()
