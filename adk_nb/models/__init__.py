"""Model adapters: the BaseLlm interface, the registry, Gemini, LiteLLM and the offline ScriptedModel."""

from .base_llm import BaseLlm
from .guard import RealModelCallBlocked, block_real_models, real_models_allowed
from .llm_request import LlmRequest
from .llm_response import LlmResponse
from .registry import LLMRegistry
from .scripted import ScriptedModel, ScriptExhausted, call

__all__ = [
    "BaseLlm",
    "Gemini",
    "LLMRegistry",
    "LlmRequest",
    "LlmResponse",
    "RealModelCallBlocked",
    "ScriptExhausted",
    "ScriptedModel",
    "block_real_models",
    "call",
    "real_models_allowed",
]


def __getattr__(name: str):
  # google-genai's client machinery loads only when Gemini is asked for.
  if name == "Gemini":
    from .google_llm import Gemini

    return Gemini
  raise AttributeError(f"module 'adk_nb.models' has no attribute {name!r}")
