"""`ContextCacheConfig`: Gemini context caching for every agent of an App."""

from __future__ import annotations

from typing import Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field


class ContextCacheConfig(BaseModel):
  """Turns on Gemini context caching for all agents of an app: `App(..., context_cache_config=ContextCacheConfig())`.

  From an agent's second model call in a session on, the stable start of its request (system
  instruction, tools, the history before the newest user turn) is stored as a Gemini
  `cachedContents` resource and later requests send only what follows it. A cache is made again
  when it expired, after `cache_intervals` invocations, or when that start changed (its
  fingerprint differs). Models that are not Gemini ignore it (logged once per agent).
  """

  model_config = ConfigDict(extra="forbid")

  cache_intervals: int = Field(default=10, ge=1, le=100)
  """How many invocations may reuse one cache before it is made again."""
  ttl_seconds: int = Field(default=1800, gt=0)
  """How long Gemini keeps a cache (seconds)."""
  min_tokens: int = Field(default=0, ge=0)
  """The previous request's prompt must have had at least this many tokens for a cache to be made
  (Gemini's own minimum applies too: 2,048 tokens for Gemini 2.5, 4,096 for Gemini 3)."""
  create_http_options: Optional[types.HttpOptions] = None
  """HTTP options for the cache creation call (e.g. a timeout); a failed creation just skips caching."""

  @property
  def ttl_string(self) -> str:
    """The TTL as the API writes it ('1800s')."""
    return f"{self.ttl_seconds}s"


__all__ = ["ContextCacheConfig"]
