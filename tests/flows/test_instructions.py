"""Instruction templating: {state} placeholders, as google-adk renders them."""

from adk_nb import Agent, InMemoryRunner
from adk_nb.testing import ScriptedModel, run_turn


async def test_instruction_leaves_dollar_and_escaped_braces_alone():
  """google-adk 2.13's pattern is (?<![$\\{\\\\]){+[^{}]*}+ : `${HOME}` and `\\{name}` are not placeholders."""
  model = ScriptedModel(["ok"])
  agent = Agent(name="bot", model=model, instruction="Write a script: echo ${HOME}; literal \\{name}.")
  runner = InMemoryRunner(agent, app_name="app")
  events = await run_turn(runner, "hi")
  assert not any(e.error_code for e in events), [e.error_message for e in events if e.error_code]
  assert "echo ${HOME}" in model.requests[0].system_instruction_text


async def test_instruction_state_value_none_renders_empty():
  """google-adk: a state value of None renders as '' (not 'None')."""
  model = ScriptedModel(["ok"])
  agent = Agent(name="bot", model=model, instruction="Name: [{name}]")
  runner = InMemoryRunner(agent, app_name="app")
  await run_turn(runner, "hi", state_delta={"name": None})
  assert "Name: []" in model.requests[0].system_instruction_text
