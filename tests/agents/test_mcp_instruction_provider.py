"""McpInstructionProvider: the instruction comes from a real MCP server's prompt, filled from state."""

from __future__ import annotations

import sys

import pytest

from adk_nb import Agent, InMemoryRunner
from adk_nb.agents.mcp_instruction_provider import McpInstructionProvider
from adk_nb.models import ScriptedModel
from adk_nb.testing import run_turn
from adk_nb.tools.mcp_tool.mcp_session_manager import StdioConnectionParams
from tests.tools.conftest import SERVER

pytest.importorskip("mcp")


def params():
  from mcp import StdioServerParameters

  return StdioConnectionParams(
      server_params=StdioServerParameters(command=sys.executable, args=[str(SERVER)]), timeout=10)


async def test_the_model_gets_the_servers_prompt_filled_from_state():
  seen = []

  def model(request):
    seen.append(request.config.system_instruction)
    return "hello"

  agent = Agent(name="support", model=ScriptedModel(model),
                instruction=McpInstructionProvider(params(), prompt_name="support_persona"))
  runner = InMemoryRunner(agent, app_name="app")
  await runner.session_service.create_session(
      app_name="app", user_id="user", session_id="session", state={"customer": "Ana", "tier": "gold"})
  await run_turn(runner, "hi")
  assert "You help Ana, a gold customer. Be brief." in str(seen[0])


async def test_an_unknown_prompt_names_the_ones_offered():
  provider = McpInstructionProvider(params(), prompt_name="nope")
  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel(["x"]), instruction=provider), app_name="app")
  with pytest.raises(ValueError, match="offers: support_persona"):
    await run_turn(runner, "hi")
