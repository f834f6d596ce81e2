"""An agent with no model anywhere in its tree: google-adk 2.x constructs it and calls its default
Gemini model (`LlmAgent.DEFAULT_MODEL`, changed with `set_default_model`); so does adk_nb."""

import pytest

from adk_nb import Agent, InMemoryRunner
from adk_nb.agents import LlmAgent
from adk_nb.apps import App
from adk_nb.models import Gemini
from adk_nb.models.guard import real_models_allowed
from adk_nb.testing import ScriptedModel, run_turn, session_of
from tests.support import last_text


@pytest.fixture
def default_model_restored():
  yield
  LlmAgent._default_model = LlmAgent.DEFAULT_MODEL


def test_an_agent_without_a_model_constructs_and_resolves_googles_default():
  agent = Agent(name="greeter", instruction="Greet.")
  App(name="app", root_agent=agent)
  assert LlmAgent.DEFAULT_MODEL == "gemini-3.5-flash"  # google-adk 2.13's
  assert isinstance(agent.canonical_model, Gemini) and agent.canonical_model.model == "gemini-3.5-flash"


async def test_without_an_api_key_the_call_fails_naming_the_default_and_the_fixes(monkeypatch):
  for name in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
    monkeypatch.delenv(name, raising=False)
  runner = InMemoryRunner(Agent(name="greeter", instruction="Greet."), app_name="app")
  with real_models_allowed(), pytest.raises(Exception) as info:  # no network: the key is missing first
    await run_turn(runner, "hi")
  message = str(info.value)
  assert "GOOGLE_API_KEY" in message and "'gemini-3.5-flash'" in message
  assert "no model of its own" in message and "set_default_model" in message and "model=" in message
  assert (await session_of(runner)).events[0].author == "user"  # the user's message is kept


async def test_set_default_model_is_used_by_agents_without_one(default_model_restored):
  model = ScriptedModel(["hello"])
  LlmAgent.set_default_model(model)
  events = await run_turn(InMemoryRunner(Agent(name="greeter"), app_name="app"), "hi")
  assert last_text(events) == "hello" and len(model.requests) == 1
  own = ScriptedModel(["mine"])
  assert Agent(name="other", model=own).canonical_model is own  # an agent's own model still wins


@pytest.mark.parametrize("bad, error", [(42, TypeError), ("", ValueError)])
def test_set_default_model_refuses_what_google_adk_refuses(bad, error, default_model_restored):
  with pytest.raises(error, match="set_default_model\\('gemini"):
    LlmAgent.set_default_model(bad)
  assert LlmAgent._default_model == LlmAgent.DEFAULT_MODEL


def test_the_live_model_resolves_as_google_adks(default_model_restored):
  own = ScriptedModel(["x"])
  child = Agent(name="child")
  Agent(name="root", model=own, sub_agents=[child])
  assert child.canonical_live_model is own  # inherited, as canonical_model
  alone = Agent(name="alone")
  assert alone.canonical_live_model.model == LlmAgent.DEFAULT_LIVE_MODEL
  LlmAgent.set_default_live_model("gemini-2.0-flash")
  try:
    assert Agent(name="other").canonical_live_model.model == "gemini-2.0-flash"
  finally:
    LlmAgent._default_live_model = LlmAgent.DEFAULT_LIVE_MODEL
