"""LLMRegistry resolves model names to adapters; importing adk_nb never imports litellm."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from adk_nb.models import BaseLlm, LLMRegistry
from adk_nb.models.google_llm import Gemini
from adk_nb.models.lite_llm import LiteLlm


@pytest.fixture
def registry():
  saved = dict(LLMRegistry._registry)
  yield LLMRegistry
  LLMRegistry._registry.clear()
  LLMRegistry._registry.update(saved)
  LLMRegistry.resolve.cache_clear()


@pytest.mark.parametrize("name", ["gemini-2.5-flash", "gemini-2.0-flash-lite",
                                  "projects/p/locations/us-central1/endpoints/123",
                                  "projects/p/locations/l/publishers/google/models/gemini-2.5-pro"])
def test_gemini_names_resolve_to_gemini(name):
  assert LLMRegistry.resolve(name) is Gemini
  llm = LLMRegistry.new_llm(name)
  assert isinstance(llm, Gemini) and llm.model == name


@pytest.mark.parametrize("name", ["openai/gpt-4o-mini", "anthropic/claude-3-5-sonnet-latest", "ollama_chat/llama3.2"])
def test_provider_names_resolve_to_lite_llm(name):
  assert LLMRegistry.resolve(name) is LiteLlm
  llm = LLMRegistry.new_llm(name)
  assert isinstance(llm, LiteLlm) and llm.model == name


def test_a_registered_class_overrides_the_built_ins(registry):
  class MyGemini(BaseLlm):
    @classmethod
    def supported_models(cls):
      return [r"gemini-2\.5-flash"]

  registry.register(MyGemini)
  assert registry.resolve("gemini-2.5-flash") is MyGemini
  assert registry.resolve("gemini-2.5-pro") is Gemini


def test_an_unknown_name_says_what_works():
  with pytest.raises(ValueError, match=r"openai/gpt-4o-mini"):
    LLMRegistry.resolve("gpt-4o")


def test_importing_adk_nb_never_imports_litellm():
  code = textwrap.dedent("""
      import sys
      import adk_nb, adk_nb.models
      from adk_nb.models import LLMRegistry, LiteLlm, Cassette, Gemini
      import adk_nb.models.lite_llm
      LLMRegistry.new_llm("openai/gpt-4o-mini")
      LiteLlm(model="openai/gpt-4o-mini", api_base="http://127.0.0.1:1/v1")
      assert "litellm" not in sys.modules, "litellm was imported"
      print("ok")
  """)
  done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                        cwd=Path(__file__).resolve().parents[2])
  assert done.returncode == 0, done.stderr
  assert done.stdout.strip() == "ok"


def test_an_unknown_model_name_is_reported_as_in_adk_with_the_fix():
  with pytest.raises(ValueError, match="Model non-exist-model not found: .*register a class"):
    LLMRegistry.resolve("non-exist-model")
