"""Model adapters: the BaseLlm interface, the registry, Gemini, LiteLLM, Claude and the offline ScriptedModel."""

from .base_llm import BaseLlm
from .guard import RealModelCallBlocked, block_real_models, real_models_allowed
from .llm_request import LlmRequest
from .llm_response import LlmResponse
from .registry import LLMRegistry
from .scripted import ScriptedModel, ScriptExhausted, call
from ..utils.lazy import lazy_exports

__all__ = [
    "BaseLlm",
    "Cassette",
    "CassetteMismatch",
    "Gemini",
    "LiteLlm",
    "LLMRegistry",
    "LlmRequest",
    "LlmResponse",
    "ModelAuthError",
    "ModelCallError",
    "ModelRateLimitError",
    "ModelServerError",
    "ModelTimeoutError",
    "RealModelCallBlocked",
    "RetryOptions",
    "ScriptExhausted",
    "ScriptedModel",
    "block_real_models",
    "call",
    "real_models_allowed",
]


_LAZY = {
    "Gemini": ".google_llm",
    "LiteLlm": ".lite_llm",
    # Not in __all__: a star import must not need the optional anthropic package.
    "AnthropicLlm": ".anthropic_llm",
    "Claude": ".anthropic_llm",
    "Gemma": ".gemma_llm",
    "Gemma3Ollama": ".gemma_llm",
    "AnthropicGenerateContentConfig": ".anthropic_llm",
    "Cassette": ".cassette",
    "CassetteMismatch": ".cassette",
    "RecordingModel": ".cassette",
    "ReplayModel": ".cassette",
    "RetryOptions": "._retry",
    "ModelCallError": "._retry",
    "ModelAuthError": "._retry",
    "ModelRateLimitError": "._retry",
    "ModelServerError": "._retry",
    "ModelTimeoutError": "._retry",
}


# Adapters load only when asked for; even then litellm itself is imported at the first call.
__getattr__ = lazy_exports(__name__, _LAZY)
