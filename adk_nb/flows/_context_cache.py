"""Context caching in the LLM loop: the app's ContextCacheConfig and the agent's latest cache state
go on the request; the model adapter (Gemini) does the caching."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext
  from ..agents.llm_agent import LlmAgent
  from ..models.llm_request import LlmRequest

logger = logging.getLogger("adk_nb.context_cache")
_told: set[tuple[str, str]] = set()


def apply_to_request(agent: "LlmAgent", ctx: "InvocationContext", request: "LlmRequest") -> None:
  """Sets `cache_config`, `cache_metadata` (from this agent's newest event that has one; an active
  cache of an earlier invocation counts one more use) and the previous prompt's token count."""
  config = ctx.context_cache_config
  if config is None:
    return
  llm = agent.canonical_model
  if not getattr(llm, "supports_context_cache", False):
    key = (agent.name, type(llm).__name__)
    if key not in _told:
      _told.add(key)
      logger.info("Context caching is on for the app, but agent %r's model %s has no context cache: "
                  "requests are sent whole.", agent.name, type(llm).__name__)
    return
  request.cache_config = config
  metadata, tokens = None, None
  events = ctx.session.events
  for i in range(len(events) - 1, -1, -1):
    event = events[i]
    if event.author != agent.name:
      continue
    if metadata is None and event.cache_metadata is not None:
      metadata = event.cache_metadata
      if metadata.cache_name is not None and event.invocation_id != ctx.invocation_id:
        metadata = metadata.model_copy(update={"invocations_used": metadata.invocations_used + 1})
    if tokens is None and event.usage_metadata is not None and event.usage_metadata.prompt_token_count is not None:
      tokens = event.usage_metadata.prompt_token_count
    if metadata is not None and tokens is not None:
      break
  request.cache_metadata = metadata
  request.cacheable_contents_token_count = tokens
