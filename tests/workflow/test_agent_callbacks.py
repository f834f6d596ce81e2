"""Agent callbacks inside a Workflow, as google-adk 2.13 runs them: for its agent nodes, never for the
Workflow itself (root or nested), whether they come from a plugin or from the Workflow's own fields."""

import logging

from adk_nb import InMemoryRunner, LlmAgent, Workflow
from adk_nb.models import ScriptedModel
from adk_nb.plugins import BasePlugin
from adk_nb.testing import run_turn


class Recorder(BasePlugin):
  def __init__(self, log):
    super().__init__(name="recorder")
    self.log = log

  async def before_agent_callback(self, *, agent, callback_context):
    self.log.append(("plugin_before", agent.name))

  async def after_agent_callback(self, *, agent, callback_context):
    self.log.append(("plugin_after", agent.name))


def own(log, kind):
  def callback(callback_context):
    log.append((kind, callback_context.agent_name))
  return callback


def step(node_input):
  return "x"


def graph(log):
  """root: START -> inner (a Workflow: START -> step) -> writer (an LlmAgent); every agent and workflow
  has its own before/after_agent_callback."""
  callbacks = lambda: dict(before_agent_callback=own(log, "own_before"), after_agent_callback=own(log, "own_after"))
  writer = LlmAgent(name="writer", model=ScriptedModel(["hi"]), instruction="say hi", **callbacks())
  inner = Workflow(name="inner", edges=[("START", step)], **callbacks())
  return Workflow(name="root", edges=[("START", inner, writer)], **callbacks())


async def test_only_the_agent_nodes_get_agent_callbacks_as_in_google_adk():
  log = []
  runner = InMemoryRunner(graph(log), app_name="app", plugins=[Recorder(log)])
  events = await run_turn(runner, "go")
  assert [e.text for e in events if e.text] == ["go", "hi"]
  # google-adk 2.13's sequence, observed by running this graph (same names, a BaseLlm answering "hi", the
  # same recording plugin) with bench/.venv-adk/bin/python; its Workflow ignores the callback fields.
  assert log == [("plugin_before", "writer"), ("own_before", "writer"),
                 ("plugin_after", "writer"), ("own_after", "writer")]


def test_a_workflow_given_agent_callbacks_warns_that_they_never_run(caplog):
  with caplog.at_level(logging.WARNING, logger="adk_nb.workflow"):
    Workflow(name="wf", edges=[("START", step)], before_agent_callback=own([], "own_before"))
  [record] = caplog.records
  assert "'wf'" in record.getMessage() and "never called" in record.getMessage()
  assert "before_run_callback" in record.getMessage()  # names a place that does run
  caplog.clear()
  with caplog.at_level(logging.WARNING, logger="adk_nb.workflow"):
    Workflow(name="plain", edges=[("START", step)])
  assert caplog.records == []
