"""A missing optional package names the extra that brings it."""

from __future__ import annotations

import importlib.util
import sys

import pytest


@pytest.fixture
def without_litellm(monkeypatch):
  real = importlib.util.find_spec
  monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "litellm" else real(name, *a))
  monkeypatch.setitem(sys.modules, "litellm", None)  # `import litellm` fails as in a plain install


async def test_a_litellm_model_without_litellm_names_the_extra_at_its_first_call(without_litellm):
  from google.genai import types

  from adk_nb import Agent, InMemoryRunner
  from adk_nb.models.guard import real_models_allowed

  agent = Agent(name="helper", model="openai/gpt-4o-mini")  # builds: a notebook can show it without litellm
  runner = InMemoryRunner(agent, app_name="extras")
  session = await runner.session_service.create_session(app_name="extras", user_id="u")
  message = types.Content(role="user", parts=[types.Part(text="hi")])
  reported = []
  try:  # the error is reported as an error event, then (ADK's error contract) raised
    with real_models_allowed():  # nothing can reach a provider: litellm is missing
      async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message):
        reported += [event.error_message] if event.error_code else []
  except ImportError as exc:
    reported.append(str(exc))
  assert reported and all("pip install 'adk_nb[litellm]'" in r for r in reported), reported


def test_a_postgresql_url_without_asyncpg_names_the_extra(monkeypatch):
  monkeypatch.setitem(sys.modules, "asyncpg", None)  # `import asyncpg` fails as in a plain install
  from adk_nb.sessions import DatabaseSessionService

  with pytest.raises(ValueError, match=r"pip install 'adk_nb\[postgres\]'"):
    DatabaseSessionService("postgresql+asyncpg://user@127.0.0.1/db")


async def test_executor_ray_without_ray_names_the_extra(monkeypatch, tmp_path):
  monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as in a plain install
  from adk_nb.evaluation import evaluate
  from adk_nb.evaluation.formats import eval_set_from_dict

  eval_set = eval_set_from_dict({"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": [
      {"user_content": {"role": "user", "parts": [{"text": "hi"}]}}]}]})
  with pytest.raises(ImportError, match=r"pip install 'adk_nb\[ray\]'"):
    await evaluate("some_agent_module", eval_set, executor="ray", progress=False, results_dir=tmp_path)
  assert not list(tmp_path.iterdir())  # refused before a run was stored
