"""Maps model names to adapter classes, so `model="gemini-2.5-flash"` just works."""

from __future__ import annotations

import functools
import re
from typing import Callable, Union

from .base_llm import BaseLlm

_Factory = Union[type[BaseLlm], Callable[[], type[BaseLlm]]]


class LLMRegistry:
  """A registry of model-name patterns (regular expressions) to BaseLlm classes."""

  _registry: dict[str, _Factory] = {}

  @staticmethod
  def register(llm_cls: type[BaseLlm]) -> None:
    """Registers a class for every pattern its `supported_models()` returns."""
    for pattern in llm_cls.supported_models():
      LLMRegistry._register(pattern, llm_cls)

  @staticmethod
  def _register(pattern: str, factory: _Factory) -> None:
    LLMRegistry._registry[pattern] = factory
    LLMRegistry.resolve.cache_clear()

  @staticmethod
  def new_llm(model: str) -> BaseLlm:
    """Builds an adapter instance for a model name."""
    return LLMRegistry.resolve(model)(model=model)

  @staticmethod
  @functools.lru_cache(maxsize=64)
  def resolve(model: str) -> type[BaseLlm]:
    """The class serving `model`; a clear error naming the fix when none does."""
    # Later registrations win, so a user class can override a built-in pattern.
    for pattern, factory in reversed(list(LLMRegistry._registry.items())):
      if re.fullmatch(pattern, model):
        if isinstance(factory, type):
          return factory
        return factory()
    raise ValueError(
        f"Model {model} not found: no model adapter matches {model!r}. Use a Gemini name ('gemini-2.5-flash'), a "
        "LiteLLM 'provider/model' name ('openai/gpt-4o-mini', needs `pip install adk_nb[litellm]`), a Claude "
        "name ('claude-sonnet-4@20250514' on Vertex AI; the anthropic package: `pip install adk_nb[anthropic]`), "
        "pass a BaseLlm instance, or register a class with LLMRegistry.register(cls)."
    )


def _gemini() -> type[BaseLlm]:
  from .google_llm import Gemini

  return Gemini


def _gemma() -> type[BaseLlm]:
  from .gemma_llm import Gemma

  return Gemma


def _claude() -> type[BaseLlm]:
  from .anthropic_llm import Claude

  return Claude


def _lite_llm() -> type[BaseLlm]:
  from .lite_llm import LiteLlm

  return LiteLlm


# Built-ins resolve lazily: google-genai's client and litellm load only when used.
# LiteLLM's catch-all 'provider/model' goes first so the more specific Gemini
# patterns (some of which contain '/') take precedence over it.
LLMRegistry._register(r"[A-Za-z0-9_.-]+/.+", _lite_llm)
for _p in (r"gemini-.*", r"projects/.+/locations/.+/endpoints/.+",
           r"projects/.+/locations/.+/publishers/google/models/gemini.+", r"model-optimizer-.*"):
  LLMRegistry._register(_p, _gemini)
LLMRegistry._register(r"gemma-3.*", _gemma)
# As in google-adk, a bare Claude name means Claude on Vertex AI (AnthropicLlm is the Anthropic API).
LLMRegistry._register(r"claude-.*", _claude)


_DEFAULT_LLMS: dict[str, BaseLlm] = {}
"""The model instances made for agents with no model anywhere in their tree, one per default name."""


def default_llm(model: Union[str, BaseLlm]) -> BaseLlm:
  """The model an agent without one uses (`LlmAgent.set_default_model`; google-adk's default otherwise)."""
  if isinstance(model, BaseLlm):
    return model
  llm = _DEFAULT_LLMS.get(model)
  if llm is None:
    llm = _DEFAULT_LLMS[model] = LLMRegistry.new_llm(model)
  return llm


def default_model_hint(llm: BaseLlm) -> str:
  """A sentence for errors of a model that only runs because an agent had none ('' otherwise)."""
  if not any(llm is made for made in _DEFAULT_LLMS.values()):
    return ""
  return (f" The agent has no model of its own (nor has any agent above it), so it uses the default "
          f"{llm.model!r}, as google-adk does: pass model='...' (or a BaseLlm) to the agent, or call "
          "LlmAgent.set_default_model(...).")
