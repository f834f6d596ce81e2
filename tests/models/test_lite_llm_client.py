"""LiteLlm(llm_client=...): google-adk's seam for faking or intercepting litellm calls."""

from types import SimpleNamespace

from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.models.lite_llm import LiteLlm, LiteLLMClient
from adk_nb.testing import run_turn
from tests.support import last_text


class FakeClient(LiteLLMClient):
  def __init__(self):
    self.calls = []

  async def acompletion(self, model, messages, tools, **kwargs):
    self.calls.append(SimpleNamespace(model=model, messages=messages, tools=tools, kwargs=kwargs))
    message = SimpleNamespace(role="assistant", content="Paris.", tool_calls=None, reasoning_content=None)
    return SimpleNamespace(model=model, choices=[SimpleNamespace(message=message, finish_reason="stop")],
                           usage=None)


async def test_requests_go_through_the_client_given():
  client = FakeClient()
  agent = Agent(name="geo", model=LiteLlm("openai/gpt-4o-mini", llm_client=client, temperature=0.1),
                instruction="Answer briefly.")
  events = await run_turn(InMemoryRunner(agent, app_name="app"), "Capital of France?")
  assert last_text(events) == "Paris."
  [sent] = client.calls
  assert sent.model == "openai/gpt-4o-mini" and sent.tools is None
  assert sent.messages[-1] == {"role": "user", "content": "Capital of France?"}
  assert sent.kwargs["temperature"] == 0.1
