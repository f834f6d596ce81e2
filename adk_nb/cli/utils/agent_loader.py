"""`AgentLoader` at google-adk's path: loads the agents of an agents folder by name, once each.

A thin layer over `adk_nb.cli.agent_loader` (what `adk-nb run / web / api_server` use): an agent is a
subfolder (`agents_dir/NAME/agent.py` defining `root_agent`, or `app`) or a file `agents_dir/NAME.py`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Union

from ..agent_loader import NotAnAgentFolderError, is_agent_folder, load_agent_folder


class AgentLoader:
  """Loads the agents under `agents_dir` by name and keeps what it loaded."""

  def __init__(self, agents_dir: Union[str, os.PathLike]):
    self.agents_dir = str(Path(agents_dir))
    """The folder holding one subfolder (or file) per agent."""
    self._loaded: dict[str, Any] = {}

  def load_agent(self, agent_name: str) -> Any:
    """The root agent (or the App, when the module defines `app`) of `agents_dir/agent_name`."""
    if agent_name not in self._loaded:
      base = Path(self.agents_dir)
      target = base / agent_name
      if not target.exists() and (base / f"{agent_name}.py").is_file():
        target = base / f"{agent_name}.py"
      if not target.exists():
        raise ValueError(f"No agent {agent_name!r} in {self.agents_dir!r}: expected a folder "
                         f"{agent_name}/ with agent.py, or {agent_name}.py (see list_agents()).")
      self._loaded[agent_name] = load_agent_folder(target).target
    return self._loaded[agent_name]

  def list_agents(self) -> list[str]:
    """The names of the agents under `agents_dir`, sorted."""
    base = Path(self.agents_dir)
    if not base.is_dir():
      raise NotAnAgentFolderError(f"{self.agents_dir!r} is not a folder.")
    return sorted(p.name for p in base.iterdir()
                  if not p.name.startswith((".", "_")) and p.is_dir() and is_agent_folder(p))

  def remove_agent_from_cache(self, agent_name: str) -> None:
    """Forgets a loaded agent, so the next load_agent reads its files again."""
    self._loaded.pop(agent_name, None)


__all__ = ["AgentLoader"]
