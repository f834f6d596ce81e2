"""Plugins: hook order relative to agent callbacks, short-circuits, shipped plugins, App."""

import logging

import pytest
from google.genai import types

from adk_nb import Agent, InMemoryRunner, Runner
from adk_nb.apps import App
from adk_nb.models import LlmResponse
from adk_nb.plugins import BasePlugin, LoggingPlugin, ToolCallLimitPlugin
from adk_nb.sessions import InMemorySessionService
from adk_nb.testing import ScriptedModel, call, run_turn
from tests.support import function_responses, last_text


class Recorder(BasePlugin):
  def __init__(self, log, name="rec", answer_model=False):
    super().__init__(name)
    self.log = log
    self.answer_model = answer_model

  async def on_user_message_callback(self, *, invocation_context, user_message):
    self.log.append("plugin:user_message")

  async def before_run_callback(self, *, invocation_context):
    self.log.append("plugin:before_run")

  async def before_agent_callback(self, *, agent, callback_context):
    self.log.append(f"plugin:before_agent:{agent.name}")

  async def before_model_callback(self, *, callback_context, llm_request):
    self.log.append("plugin:before_model")
    if self.answer_model:
      return LlmResponse(content=types.Content(role="model", parts=[types.Part(text="plugin answered")]))

  async def before_tool_callback(self, *, tool, tool_args, tool_context):
    self.log.append(f"plugin:before_tool:{tool.name}")

  async def on_event_callback(self, *, invocation_context, event):
    self.log.append(f"plugin:event:{event.author}")

  async def after_run_callback(self, *, invocation_context):
    self.log.append("plugin:after_run")


async def test_plugin_hooks_run_before_agent_callbacks():
  log = []

  def t() -> str:
    return "x"

  agent = Agent(
      name="a", model=ScriptedModel([call("t"), "done"]), tools=[t],
      before_agent_callback=lambda callback_context: log.append("agent:before_agent"),
      before_model_callback=lambda callback_context, llm_request: log.append("agent:before_model"),
      before_tool_callback=lambda tool, args, tool_context: log.append("agent:before_tool"),
  )
  runner = InMemoryRunner(agent, app_name="app", plugins=[Recorder(log)])
  await run_turn(runner, "go")
  assert log == [
      "plugin:user_message", "plugin:before_run", "plugin:before_agent:a", "agent:before_agent",
      "plugin:before_model", "agent:before_model", "plugin:event:a",
      "plugin:before_tool:t", "agent:before_tool", "plugin:event:a",
      "plugin:before_model", "agent:before_model", "plugin:event:a", "plugin:after_run",
  ]


async def test_plugin_short_circuit_skips_agent_callback_and_model():
  log = []
  model = ScriptedModel([])
  agent = Agent(name="a", model=model,
                before_model_callback=lambda callback_context, llm_request: log.append("agent:before_model"))
  app = App(name="app", root_agent=agent, plugins=[Recorder(log, answer_model=True)])
  runner = Runner(app=app, session_service=InMemorySessionService())
  events = await run_turn(runner, "go")
  assert last_text(events) == "plugin answered" and "agent:before_model" not in log and model.requests == []
  assert runner.app_name == "app"


async def test_tool_call_limit_plugin_stops_runaway_tools():
  def ping() -> str:
    return "pong"

  model = ScriptedModel([call("ping"), call("ping"), call("ping"), "giving up"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[ping]), app_name="app",
                          plugins=[ToolCallLimitPlugin(max_calls=2)])
  events = await run_turn(runner, "go")
  results = [e.get_function_responses()[0].response for e in events if e.get_function_responses()]
  assert results[:2] == [{"result": "pong"}, {"result": "pong"}]
  assert "limit reached" in results[2]["error"]
  # the count is per invocation
  model._script += [call("ping"), "ok"]
  events = await run_turn(runner, "again")
  assert [r.response for r in function_responses(events)] == [{"result": "pong"}]


async def test_logging_plugin_logs_the_run(caplog):
  def ping() -> str:
    return "pong"

  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel([call("ping"), "ok"]), tools=[ping]),
                          app_name="app", plugins=[LoggingPlugin()])
  with caplog.at_level(logging.INFO, logger="adk_nb.run"):
    await run_turn(runner, "go")
  text = caplog.text
  assert "run start" in text and "tool call ping({})" in text and 'tool result ping -> pong' in text  # the raw value, as ADK's plugins see it


def test_plugin_names_must_be_unique_and_app_validates():
  with pytest.raises(ValueError, match="unique"):
    InMemoryRunner(Agent(name="a"), plugins=[LoggingPlugin(), LoggingPlugin()])
  with pytest.raises(ValueError, match="identifier"):
    App(name="my app", root_agent=Agent(name="a"))
  with pytest.raises(ValueError, match="App"):
    Runner(app=App(name="x", root_agent=Agent(name="a")), plugins=[LoggingPlugin()],
           session_service=InMemorySessionService())


def test_the_app_name_user_is_refused():
  with pytest.raises(ValueError, match="'user' is reserved"):
    App(name="user", root_agent=Agent(name="a"))


async def test_plugin_errors_are_runtime_errors_naming_the_plugin_and_the_hook():
  class Broken(BasePlugin):
    async def before_run_callback(self, *, invocation_context):
      raise ValueError("no config")

    async def close(self):
      raise OSError("socket gone")

  class Fine(BasePlugin):
    closed = False

    async def close(self):
      Fine.closed = True

  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel(["hi"])), app_name="app",
                          plugins=[Broken("broken"), Fine("fine")])
  with pytest.raises(RuntimeError, match="Error in plugin 'broken' during 'before_run_callback' callback: no config") as raised:
    await run_turn(runner, "hi")
  assert isinstance(raised.value.__cause__, ValueError)
  with pytest.raises(RuntimeError, match="Failed to close plugins: 'broken': OSError"):
    await runner.plugin_manager.close()
  assert Fine.closed  # one failing plugin does not keep the others open
  with pytest.raises(ValueError, match="Plugin with name 'fine' already registered"):
    runner.plugin_manager.register_plugin(Fine("fine"))


async def test_a_failed_run_notifies_on_run_error_instead_of_after_run():
  heard = []

  class Watch(BasePlugin):
    async def after_run_callback(self, *, invocation_context):
      heard.append("after_run")

    async def on_run_error_callback(self, *, invocation_context, error):
      heard.append(("error", type(error).__name__))
      raise RuntimeError("a broken notifier must not hide the run's error")

  def explode() -> str:
    """Fails."""
    raise KeyError("boom")

  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel([call("explode")]), tools=[explode]),
                          app_name="app", plugins=[Watch(name="watch")])
  with pytest.raises(KeyError):
    await run_turn(runner, "go")
  assert heard == [("error", "KeyError")]
  ok = InMemoryRunner(Agent(name="a", model=ScriptedModel(["fine"])), app_name="app", plugins=[Watch(name="watch")])
  await run_turn(ok, "go")
  assert heard[-1] == "after_run"
