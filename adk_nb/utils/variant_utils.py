"""Which Gemini backend is in use (google-adk's `utils.variant_utils`): the Gemini API or Vertex AI.

Read from the environment as google-genai reads it: `GOOGLE_GENAI_USE_VERTEXAI=1` (or `true`) selects
Vertex AI. Function declarations differ by backend: Vertex AI accepts a response schema, the Gemini
API does not (see `adk_nb.tools._automatic_function_calling_util`).
"""

from __future__ import annotations

import os
from enum import Enum


class GoogleLLMVariant(Enum):
  """The Gemini backend."""

  VERTEX_AI = "VERTEX_AI"
  """Google Cloud Vertex AI (project credentials)."""
  GEMINI_API = "GEMINI_API"
  """Google AI Studio (an API key)."""


def _env_on(name: str) -> bool:
  return os.environ.get(name, "").strip().lower() in ("1", "true", "yes")


def get_google_llm_variant() -> GoogleLLMVariant:
  """VERTEX_AI when the environment selects it (GOOGLE_GENAI_USE_ENTERPRISE or GOOGLE_GENAI_USE_VERTEXAI), else GEMINI_API."""
  if "GOOGLE_GENAI_USE_ENTERPRISE" in os.environ:
    return GoogleLLMVariant.VERTEX_AI if _env_on("GOOGLE_GENAI_USE_ENTERPRISE") else GoogleLLMVariant.GEMINI_API
  return GoogleLLMVariant.VERTEX_AI if _env_on("GOOGLE_GENAI_USE_VERTEXAI") else GoogleLLMVariant.GEMINI_API


__all__ = ["GoogleLLMVariant", "get_google_llm_variant"]
