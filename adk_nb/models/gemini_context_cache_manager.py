"""`GeminiContextCacheManager`: makes, reuses and drops Gemini `cachedContents` for requests.

google-adk's rules: a request's cacheable prefix is its system instruction, tools, tool config
and the contents before its last run of user contents. The first call of an agent only records
the prefix's fingerprint; a later call whose prefix (of the recorded length) still has that
fingerprint makes a cache of the prefix, once the previous prompt had `min_tokens` tokens and the
prefix is estimated at Gemini's minimum (2,048 tokens for Gemini 2.5, 4,096 for Gemini 3). While
the cache is alive, used by at most `cache_intervals` invocations and its fingerprint matches,
requests name it (`cachedContent`) and leave out what it holds; otherwise it is deleted and a new
one is made. Failures to make or delete a cache are logged and the request goes out uncached.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import time
from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

from .cache_metadata import CacheMetadata

if TYPE_CHECKING:
  from .llm_request import LlmRequest
  from .llm_response import LlmResponse

logger = logging.getLogger("adk_nb.context_cache")


def minimum_cache_tokens(model: Optional[str]) -> Optional[int]:
  """Gemini's smallest cacheable prompt for a model, when known."""
  name = (model or "").rsplit("/", 1)[-1]
  if name.startswith("gemini-2.5"):
    return 2048
  if name.startswith("gemini-3"):
    return 4096
  return None


def cacheable_count(contents: list[types.Content]) -> int:
  """How many leading contents come before the last run of user contents."""
  start = len(contents)
  while start > 0 and contents[start - 1].role == "user":
    start -= 1
  return start


def _text_chars(value: Any) -> int:
  if value is None:
    return 0
  if isinstance(value, str):
    return len(value)
  if isinstance(value, types.Content):
    return sum(len(p.text or "") for p in value.parts or [])
  if isinstance(value, types.Part):
    return len(value.text or "")
  if isinstance(value, list):
    return sum(_text_chars(v) for v in value)
  return len(str(value))


class GeminiContextCacheManager:
  """Context caching for one google.genai client (see the module docstring for the rules)."""

  def __init__(self, genai_client: Any):
    self.genai_client = genai_client

  async def handle_context_caching(self, llm_request: "LlmRequest") -> Optional[CacheMetadata]:
    """Applies a valid cache to the request (changing it), or makes one when due; returns the
    cache state to record on the response."""
    old = llm_request.cache_metadata
    if old is None:
      return self._fingerprint_only(llm_request, cacheable_count(llm_request.contents))
    if self._is_cache_valid(llm_request):
      self._apply_cache_to_request(llm_request, old.cache_name, old.contents_count)
      return old.model_copy()
    if old.cache_name is not None:
      await self.cleanup_cache(old.cache_name)
    if self._fingerprint(llm_request, old.contents_count) != old.fingerprint:
      return self._fingerprint_only(llm_request, cacheable_count(llm_request.contents))
    count = max(old.contents_count, cacheable_count(llm_request.contents))
    made = await self._create_new_cache_with_contents(llm_request, count)
    if made is None:
      return self._fingerprint_only(llm_request, count)
    self._apply_cache_to_request(llm_request, made.cache_name, count)
    return made

  def _fingerprint_only(self, llm_request: "LlmRequest", count: int) -> CacheMetadata:
    return CacheMetadata(fingerprint=self._fingerprint(llm_request, count), contents_count=count)

  def _is_cache_valid(self, llm_request: "LlmRequest") -> bool:
    meta = llm_request.cache_metadata
    if meta is None or meta.cache_name is None:
      return False
    if time.time() >= meta.expire_time:
      logger.info("Context cache %s expired.", meta.cache_name)
      return False
    if meta.invocations_used > llm_request.cache_config.cache_intervals:
      logger.info("Context cache %s was used by %d invocations (cache_intervals=%d): making a new one.",
                  meta.cache_name, meta.invocations_used, llm_request.cache_config.cache_intervals)
      return False
    return self._fingerprint(llm_request, meta.contents_count) == meta.fingerprint

  def _scope(self) -> dict[str, Any]:
    api = getattr(self.genai_client, "_api_client", None)
    vertex = bool(getattr(self.genai_client, "vertexai", False) or getattr(api, "vertexai", False))
    scope: dict[str, Any] = {"backend": "vertex" if vertex else "gemini"}
    if vertex:
      scope.update(project=getattr(api, "project", None), location=getattr(api, "location", None))
    base_url = getattr(getattr(api, "_http_options", None), "base_url", None)
    if base_url:
      scope["base_url"] = base_url
    return scope

  def _fingerprint(self, llm_request: "LlmRequest", count: int) -> str:
    """16 hex characters of SHA-256 over the model, backend, instruction, tools, tool config and
    the first `count` contents (tool and function order do not matter)."""
    config = llm_request.config
    data: dict[str, Any] = {"model": llm_request.model, "scope": self._scope()}
    if config.system_instruction:
      data["system_instruction"] = config.model_dump(mode="json", include={"system_instruction"},
                                                     exclude_none=True).get("system_instruction")
    if config.tools:
      tools = []
      for tool in config.tools:
        if isinstance(tool, types.Tool):
          dumped = tool.model_dump(mode="json", exclude_none=True)
          dumped.get("function_declarations", []).sort(key=lambda d: d.get("name") or "")
          tools.append(dumped)
      data["tools"] = sorted(tools, key=lambda t: json.dumps(t, sort_keys=True))
    if config.tool_config:
      data["tool_config"] = config.tool_config.model_dump(mode="json", exclude_none=True)
    if count:
      data["contents"] = [c.model_dump(mode="json", exclude_none=True) for c in llm_request.contents[:count]]
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]

  def _estimate_tokens(self, llm_request: "LlmRequest", count: Optional[int] = None) -> int:
    config = llm_request.config
    chars = _text_chars(config.system_instruction)
    for tool in config.tools or []:
      if isinstance(tool, types.Tool):
        chars += len(json.dumps(tool.model_dump(mode="json")))
    contents = llm_request.contents if count is None else llm_request.contents[:count]
    chars += sum(_text_chars(c) for c in contents)
    return chars // 4

  async def _create_new_cache_with_contents(self, llm_request: "LlmRequest", count: int) -> Optional[CacheMetadata]:
    config = llm_request.cache_config
    previous = llm_request.cacheable_contents_token_count
    if previous is None:
      logger.info("No previous prompt token count: no context cache for a first request.")
      return None
    if previous < config.min_tokens:
      logger.info("Previous prompt too small for a context cache (%d < %d tokens).", previous, config.min_tokens)
      return None
    whole = self._estimate_tokens(llm_request)
    prefix = previous if whole <= 0 else int(previous * min(1.0, self._estimate_tokens(llm_request, count) / whole))
    floor = minimum_cache_tokens(llm_request.model)
    if floor is not None and prefix < floor:
      logger.info("Cacheable prefix under Gemini's minimum (%d < %d tokens): not cached.", prefix, floor)
      return None
    try:
      return await self._create_gemini_cache(llm_request, count)
    except Exception as error:  # the request still goes out, uncached
      logger.warning("Could not create a context cache: %s", error)
      return None

  async def _create_gemini_cache(self, llm_request: "LlmRequest", count: int) -> CacheMetadata:
    settings = llm_request.cache_config
    request_config = llm_request.config
    cache = types.CreateCachedContentConfig(
        contents=llm_request.contents[:count] or None, ttl=settings.ttl_string,
        display_name=f"adk-cache-{int(time.time())}-{count}contents",
        system_instruction=request_config.system_instruction or None,
        tools=list(request_config.tools) if request_config.tools else None,
        tool_config=request_config.tool_config, http_options=settings.create_http_options)
    made = await self.genai_client.aio.caches.create(model=llm_request.model, config=cache)
    if not made.name:
      raise RuntimeError("Gemini returned a cache without a name.")
    created = time.time()
    expires = made.expire_time.timestamp() if isinstance(made.expire_time, datetime.datetime) else (
        created + settings.ttl_seconds)
    logger.info("Context cache %s made (%d contents).", made.name, count)
    return CacheMetadata(cache_name=made.name, expire_time=expires, fingerprint=self._fingerprint(llm_request, count),
                         invocations_used=1, contents_count=count, created_at=created)

  async def cleanup_cache(self, cache_name: str) -> None:
    """Deletes a cache (a failure is logged: Gemini drops it at its TTL anyway)."""
    try:
      await self.genai_client.aio.caches.delete(name=cache_name)
      logger.info("Context cache %s deleted.", cache_name)
    except Exception as error:
      logger.warning("Could not delete context cache %s: %s", cache_name, error)

  def _apply_cache_to_request(self, llm_request: "LlmRequest", cache_name: str, count: int) -> None:
    """Names the cache on the request and leaves out what it holds (always keeping the last content)."""
    llm_request.config = llm_request.config.model_copy(update={
        "system_instruction": None, "tools": None, "tool_config": None, "cached_content": cache_name})
    drop = min(count, max(len(llm_request.contents) - 1, 0))
    llm_request.contents = llm_request.contents[drop:]

  def populate_cache_metadata_in_response(self, llm_response: "LlmResponse", cache_metadata: CacheMetadata) -> None:
    llm_response.cache_metadata = cache_metadata.model_copy()


__all__ = ["GeminiContextCacheManager"]
