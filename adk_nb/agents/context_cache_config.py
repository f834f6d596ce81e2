"""`ContextCacheConfig` at google-adk's path: importable, refused on use.

Context caching (reusing a cached prefix of long requests on Gemini) is planned (issue 20); until then
constructing the config raises, so an App does not silently run without the caching it asked for.
"""

from __future__ import annotations

from typing import Any


class ContextCacheConfig:
  """Not available in adk_nb yet (issue 20): constructing it raises NotImplementedError."""

  def __init__(self, *args: Any, **kwargs: Any):
    raise NotImplementedError(
        "Context caching (ContextCacheConfig) is not implemented in adk_nb yet (issue 20; see issue 14 and "
        "README 'Compatibility'); remove context_cache_config to run without it.")


__all__ = ["ContextCacheConfig"]
