"""ContextCacheConfig on the Gemini wire (loopback): when a cache is made, reused, dropped, and what requests carry."""

import logging

import pytest

from adk_nb import Agent
from adk_nb.agents.context_cache_config import ContextCacheConfig
from adk_nb.apps import App
from adk_nb.models import Gemini, RetryOptions, ScriptedModel
from adk_nb.runners import InMemoryRunner
from adk_nb.testing import run_turn

FAST = RetryOptions(attempts=2, initial_delay=0.01, max_delay=0.02)
LONG_INSTRUCTION = "You plan trains across Europe. " * 400  # ~3,000 tokens by the 4-characters estimate


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
  monkeypatch.setenv("GOOGLE_API_KEY", "test-key")


def answer(text, prompt_tokens=5000):
  return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}],
          "usageMetadata": {"promptTokenCount": prompt_tokens, "candidatesTokenCount": 3,
                            "totalTokenCount": prompt_tokens + 3}}


def cache_made(name):
  return {"name": name, "model": "models/gemini-2.5-flash", "expireTime": "2099-01-01T00:00:00Z"}


def runner_for(server, instruction=LONG_INSTRUCTION, **config):
  agent = Agent(name="planner", instruction=instruction,
                model=Gemini(model="gemini-2.5-flash", base_url=server.url, retry_options=FAST))
  app = App(name="trains", root_agent=agent, context_cache_config=ContextCacheConfig(**config))
  return InMemoryRunner(app=app)


def texts(body):
  return [(c["role"], c["parts"][0]["text"]) for c in body["contents"]]


async def test_a_cache_is_made_on_the_second_call_reused_then_remade_after_cache_intervals(server):
  server.reply(answer("a1"))
  server.reply(cache_made("cachedContents/one")).reply(answer("a2"))
  server.reply(answer("a3"))
  server.reply(cache_made("cachedContents/two")).reply(answer("a4"))
  runner = runner_for(server, cache_intervals=2)

  first = await run_turn(runner, "q1")
  # First call: no cache, the prefix's fingerprint is recorded on the event.
  [call1] = server.requests
  assert "systemInstruction" in call1.json and "cachedContent" not in call1.json
  meta1 = first[-1].cache_metadata
  assert meta1.cache_name is None and meta1.contents_count == 0 and meta1.fingerprint

  second = await run_turn(runner, "q2")
  create, call2 = server.requests[1:]
  assert create.path.endswith("/cachedContents")
  assert create.json["ttl"] == "1800s" and create.json["model"].endswith("gemini-2.5-flash")
  assert create.json["systemInstruction"]["parts"][0]["text"].count("You plan trains") == 400
  assert [c["parts"][0]["text"] for c in create.json["contents"]] == ["q1", "a1"]
  # The request names the cache and leaves out what it holds.
  assert call2.json["cachedContent"] == "cachedContents/one"
  assert "systemInstruction" not in call2.json and texts(call2.json) == [("user", "q2")]
  meta2 = second[-1].cache_metadata
  assert (meta2.cache_name, meta2.invocations_used, meta2.contents_count) == ("cachedContents/one", 1, 2)

  await run_turn(runner, "q3")
  call3 = server.requests[3]
  assert call3.json["cachedContent"] == "cachedContents/one"
  assert texts(call3.json) == [("user", "q2"), ("model", "a2"), ("user", "q3")]

  fourth = await run_turn(runner, "q4")
  # Third invocation past the first: more than cache_intervals=2 uses, so it is deleted and remade.
  delete, create2, call4 = server.requests[4:]
  assert delete.method == "DELETE" and delete.path.endswith("/cachedContents/one")
  assert [c["parts"][0]["text"] for c in create2.json["contents"]] == ["q1", "a1", "q2", "a2", "q3", "a3"]
  assert call4.json["cachedContent"] == "cachedContents/two" and texts(call4.json) == [("user", "q4")]
  assert fourth[-1].cache_metadata.invocations_used == 1


async def test_a_changed_instruction_invalidates_the_cache(server):
  server.reply(answer("a1"))
  server.reply(cache_made("cachedContents/one")).reply(answer("a2"))
  server.reply(answer("a3"))
  runner = runner_for(server, instruction=LONG_INSTRUCTION + "{mood?}")
  await run_turn(runner, "q1")
  await run_turn(runner, "q2")
  events = await run_turn(runner, "q3", state_delta={"mood": "Be cheerful."})
  delete, call3 = server.requests[3:]
  assert delete.method == "DELETE" and "cachedContent" not in call3.json
  # The new instruction goes to the model uncached (before the identity line, in google-adk's order).
  assert "Europe. Be cheerful.\n" in call3.json["systemInstruction"]["parts"][0]["text"]
  assert events[-1].cache_metadata.cache_name is None


async def test_small_prompts_are_not_cached(server):
  server.reply(answer("a1", prompt_tokens=100)).reply(answer("a2", prompt_tokens=120))
  runner = runner_for(server, instruction="Short.")
  await run_turn(runner, "q1")
  events = await run_turn(runner, "q2")
  assert all("cachedContent" not in r.json for r in server.requests) and len(server.requests) == 2
  assert events[-1].cache_metadata.cache_name is None


async def test_other_models_run_uncached_and_say_so_once(caplog):
  model = ScriptedModel(["a1", "a2"])
  app = App(name="trains", root_agent=Agent(name="plain", model=model), context_cache_config=ContextCacheConfig())
  runner = InMemoryRunner(app=app)
  with caplog.at_level(logging.INFO, logger="adk_nb.context_cache"):
    await run_turn(runner, "q1")
    events = await run_turn(runner, "q2")
  assert caplog.text.count("has no context cache") == 1
  assert model.requests[1].cache_config is None and events[-1].cache_metadata is None


def test_config_bounds():
  assert ContextCacheConfig().ttl_string == "1800s"
  with pytest.raises(ValueError):
    ContextCacheConfig(cache_intervals=0)
