"""Finds the agent to evaluate with the command line's loader (`adk_nb.cli.agent_loader`): a module
exposing `root_agent` (ADK's `agent.py` convention), an agent folder, or an agent file."""

from __future__ import annotations

import asyncio
from typing import Any, Optional

from ..cli.agent_loader import load_agent_folder


async def load_agent_async(target: str, agent_name: Optional[str] = None) -> tuple[Any, Any]:
  """(agent, App or None) from a module name ('my_agent' or 'my_agent.agent') or an agent folder / file path.

  The module (or its `agent` submodule) must define `root_agent`, or an `app` (App), whose plugins are
  then used. `.env` beside the folder is loaded first. `agent_name` picks a sub-agent of the root.
  """
  loaded = load_agent_folder(target)
  agent, app = loaded.agent, loaded.app
  if agent_name:
    sub = agent.find_agent(agent_name)
    if sub is None:
      raise ValueError(f"No agent named {agent_name!r} under {agent.name!r}.")
    agent, app = sub, None
  return agent, app


def load_agent(target: str, agent_name: Optional[str] = None) -> tuple[Any, Any]:
  """The sync form of `load_agent_async`, for scripts and the command line."""
  return asyncio.run(load_agent_async(target, agent_name))
