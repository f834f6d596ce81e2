"""Runner: sessions, the sync API inside a running loop, run_debug, App wiring, errors."""

import asyncio

import pytest
from google.genai import types

from adk_nb import Agent, InMemoryRunner, Runner
from adk_nb.runners import SessionNotFoundError
from adk_nb.sessions import InMemorySessionService
from adk_nb.testing import ScriptedModel, call
from tests.support import last_text


def _msg(text):
  return types.Content(role="user", parts=[types.Part(text=text)])


async def test_unknown_session_names_the_fix_and_auto_create_creates_it():
  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel(["hi"])), app_name="app")
  with pytest.raises(SessionNotFoundError, match="create_session"):
    async for _ in runner.run_async(user_id="u", session_id="nope", new_message=_msg("x")):
      pass
  runner = Runner(app_name="app", agent=Agent(name="a", model=ScriptedModel(["hi"])),
                  session_service=InMemorySessionService(), auto_create_session=True)
  events = [e async for e in runner.run_async(user_id="u", session_id="new", new_message=_msg("x"))]
  assert [e.text for e in events] == ["hi"]


async def test_user_message_and_state_delta_are_committed_not_yielded():
  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel(["hi"])), app_name="app")
  await runner.session_service.create_session(app_name="app", user_id="u", session_id="s")
  events = [e async for e in runner.run_async(user_id="u", session_id="s", new_message=_msg("hello"),
                                              state_delta={"user:tier": "gold"})]
  assert [e.author for e in events] == ["a"]
  session = await runner.session_service.get_session(app_name="app", user_id="u", session_id="s")
  assert session.events[0].author == "user" and session.events[0].text == "hello"
  assert session.state["user:tier"] == "gold"


def test_new_message_must_be_content():
  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel([])), app_name="app", auto_create_session=True)
  with pytest.raises(TypeError, match="types.Content"):
    list(runner.run(user_id="u", session_id="s", new_message="hi"))


async def test_sync_run_works_inside_a_running_event_loop_without_patching_it():
  def add(a: int, b: int) -> int:
    return a + b

  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel([call("add", a=1, b=2), "3"]), tools=[add]),
                          app_name="app", auto_create_session=True)
  loop = asyncio.get_running_loop()
  # As in a notebook cell: a sync call while this loop is running.
  events = list(runner.run(user_id="u", session_id="s", new_message=_msg("1+2?")))
  assert asyncio.get_running_loop() is loop
  assert [e.author for e in events] == ["a", "a", "a"] and last_text(events) == "3"
  session = await runner.session_service.get_session(app_name="app", user_id="u", session_id="s")
  assert len(session.events) == 4


async def test_run_debug_prints_the_conversation_and_returns_events(capsys):
  runner = InMemoryRunner(Agent(name="helper", model=ScriptedModel(["Hello!", "Bye!"])), app_name="app")
  events = await runner.run_debug(["hi", "bye"])
  out = capsys.readouterr().out
  assert "User > hi" in out and "helper > Hello!" in out and "helper > Bye!" in out
  assert [e.text for e in events] == ["Hello!", "Bye!"]
  assert (await runner.session_service.get_session(app_name="app", user_id="debug_user_id",
                                                   session_id="debug_session_id")) is not None


def test_runner_needs_an_agent_and_a_session_service():
  with pytest.raises(ValueError, match="agent="):
    Runner(app_name="x", session_service=InMemorySessionService())
  with pytest.raises(ValueError, match="InMemorySessionService"):
    Runner(app_name="x", agent=Agent(name="a"))


async def test_a_plugin_that_never_finishes_closing_is_cut_off_by_plugin_close_timeout():
  from adk_nb.plugins import BasePlugin

  class Stuck(BasePlugin):
    async def close(self):
      await asyncio.Event().wait()  # never set: only the timeout ends it

  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel([])), app_name="app",
                          plugins=[Stuck(name="stuck")], plugin_close_timeout=0.01)
  with pytest.raises(RuntimeError, match="'stuck': TimeoutError"):
    await runner.close()
  assert runner.context_cache_config is None
