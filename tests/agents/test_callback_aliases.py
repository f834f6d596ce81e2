"""google-adk's callback type aliases import from its paths and describe what agents accept."""

import typing

from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.agents.base_agent import AfterAgentCallback, BeforeAgentCallback
from adk_nb.agents.llm_agent import (AfterModelCallback, AfterToolCallback, BeforeModelCallback, BeforeToolCallback,
                                     InstructionProvider, OnModelErrorCallback, OnToolErrorCallback)
from adk_nb.models import LlmResponse
from adk_nb.testing import ScriptedModel, run_turn
from tests.support import last_text


def test_each_alias_accepts_one_callback_or_a_list():
  for alias in (BeforeAgentCallback, AfterAgentCallback, BeforeModelCallback, AfterModelCallback,
                OnModelErrorCallback, BeforeToolCallback, AfterToolCallback, OnToolErrorCallback):
    single, many = typing.get_args(alias)
    assert typing.get_origin(many) is list and typing.get_args(many) == (single,)
  assert typing.get_origin(InstructionProvider) is typing.get_origin(typing.Callable)


async def test_callbacks_annotated_with_the_aliases_run():
  def answer_instead(callback_context, llm_request):
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text="from the callback")]))

  before_model: BeforeModelCallback = [answer_instead]
  agent = Agent(name="a", model=ScriptedModel([]), before_model_callback=before_model)
  events = await run_turn(InMemoryRunner(agent, app_name="app"), "hi")
  assert last_text(events) == "from the callback"
