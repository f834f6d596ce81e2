"""Agent trees: a loop in sub_agents is named, repeated names are warned about (as google-adk does)."""

from __future__ import annotations

import logging

import pytest

from adk_nb.agents import LlmAgent, SequentialAgent
from adk_nb.runners import InMemoryRunner
from adk_nb.testing import ScriptedModel, run_turn


def llm(name: str) -> LlmAgent:
  return LlmAgent(name=name, model=ScriptedModel(["hi"]))


async def test_a_loop_made_by_mutating_sub_agents_is_a_clear_error_not_a_recursion_error():
  helper = llm("helper")
  root = SequentialAgent(name="root", sub_agents=[helper])
  helper.sub_agents.append(root)
  with pytest.raises(ValueError, match=r"loop \(root -> helper -> root\).*clone\(\)"):
    root.find_agent("missing")
  runner = InMemoryRunner(agent=root, app_name="app")
  with pytest.raises(ValueError, match=r"loop \(root -> helper -> root\)"):
    await run_turn(runner, "hi")


def test_names_repeated_across_branches_or_under_the_parent_are_warned_about(caplog):
  caplog.set_level(logging.WARNING, logger="adk_nb.agents.base_agent")
  first = SequentialAgent(name="first", sub_agents=[llm("summarizer")])
  second = SequentialAgent(name="second", sub_agents=[llm("summarizer")])
  root = SequentialAgent(name="root", sub_agents=[first, second])
  SequentialAgent(name="same", sub_agents=[SequentialAgent(name="mid", sub_agents=[llm("same")])])
  warnings = [r.getMessage() for r in caplog.records]
  assert len(warnings) == 2
  assert "tree of 'root': 'summarizer'" in warnings[0] and "first one depth first" in warnings[0]
  assert "tree of 'same': 'same'" in warnings[1]
  assert root.find_agent("summarizer").parent_agent is first


def test_a_tree_of_distinct_names_is_quiet_and_sibling_duplicates_are_refused(caplog):
  caplog.set_level(logging.WARNING, logger="adk_nb.agents.base_agent")
  SequentialAgent(name="root", sub_agents=[SequentialAgent(name="a", sub_agents=[llm("b")]), llm("c")])
  assert caplog.records == []
  with pytest.raises(ValueError, match="two sub-agents named 'x'"):
    SequentialAgent(name="root", sub_agents=[llm("x"), llm("x")])
