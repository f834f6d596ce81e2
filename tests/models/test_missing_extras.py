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


def test_a_litellm_model_name_without_litellm_names_the_extra(without_litellm):
  from adk_nb.models import LLMRegistry

  with pytest.raises(ImportError, match=r"pip install 'adk_nb\[litellm\]'"):
    LLMRegistry.new_llm("openai/gpt-4o-mini")


def test_building_a_lite_llm_without_litellm_names_the_extra(without_litellm):
  from adk_nb.models.lite_llm import LiteLlm

  with pytest.raises(ImportError, match=r"adk_nb\[litellm\]"):
    LiteLlm(model="openai/gpt-4o-mini")
