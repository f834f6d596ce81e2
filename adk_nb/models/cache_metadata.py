"""`CacheMetadata`: which Gemini context cache a response used, kept on its event."""

from __future__ import annotations

import time
from typing import Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator


class CacheMetadata(BaseModel):
  """The cache state after a model call: an active cache, or only the fingerprint of a prefix.

  Active: `cache_name`, `expire_time` and `invocations_used` are all set. Fingerprint only: all
  three are None, and `fingerprint` / `contents_count` describe the prefix a later call may cache.
  """

  model_config = ConfigDict(extra="forbid", frozen=True)

  cache_name: Optional[str] = None
  """The cachedContents resource name, e.g. 'cachedContents/abc123'."""
  expire_time: Optional[float] = None
  """When the cache expires (Unix time)."""
  fingerprint: str
  """A hash of what is cached: model, system instruction, tools, tool config and the first contents."""
  invocations_used: Optional[int] = Field(default=None, ge=0)
  """How many invocations used this cache."""
  contents_count: int = Field(ge=0)
  """How many leading contents the cache (or the fingerprint) covers."""
  created_at: Optional[float] = None
  """When the cache was made (Unix time)."""

  @model_validator(mode="after")
  def _all_or_none_active(self) -> "CacheMetadata":
    active = (self.cache_name, self.expire_time, self.invocations_used)
    if len({value is not None for value in active}) > 1:
      raise ValueError("cache_name, expire_time and invocations_used are set together (an active cache) or not at "
                       "all (a fingerprint only).")
    return self

  @property
  def expire_soon(self) -> bool:
    """True when the cache expires within two minutes."""
    return self.expire_time is not None and time.time() > self.expire_time - 120


__all__ = ["CacheMetadata"]
