"""google-adk's AgentLoader (cli.utils.agent_loader): agents of a folder loaded by name, once each."""

import pytest

from adk_nb.agents import BaseAgent
from adk_nb.cli.utils.agent_loader import AgentLoader

AGENT = "from adk_nb import Agent\nroot_agent = Agent(name={name!r}, model='gemini-2.5-flash')\n"


def test_agents_are_listed_and_loaded_by_name_and_kept(tmp_path):
  for name in ("billing", "support"):
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("from . import agent\n")
    (tmp_path / name / "agent.py").write_text(AGENT.format(name=name))
  loader = AgentLoader(agents_dir=tmp_path)
  assert loader.list_agents() == ["billing", "support"]
  agent = loader.load_agent("billing")
  assert isinstance(agent, BaseAgent) and agent.name == "billing"
  assert loader.load_agent("billing") is agent
  assert loader.load_agent("support").name == "support"
  with pytest.raises(ValueError, match="No agent 'nope'"):
    loader.load_agent("nope")
