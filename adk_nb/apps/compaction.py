"""Events compaction: after an invocation, older events are summarized into a compaction event.

Run by the Runner after each invocation of an `App` with `events_compaction_config`; the
compaction event is appended to the session (not yielded, as in google-adk) and requests then
carry the summary instead of the events it covers (`flows.apply_compactions`). The session keeps every
event.

google-adk's rules for which events a summary covers are followed: the sliding window (the new
invocations since the last summary once there are `compaction_interval` of them, plus
`overlap_size` invocations before them), the token threshold (everything but the last
`event_retention_size` events, once the last prompt reached `token_threshold` tokens), a window
cut back so that no function call or confirmation in it is left open, and a summary written only
when it can shrink the request. A failing summarizer is logged and the turn is not affected.

Beyond google-adk 2.13: every summary is seeded with the previous one (as google-adk does for the
token threshold only), so its range contains the previous range and supersedes it. The model is
sent one rolling summary plus the recent events, and the request stays bounded however long the
session runs; google-adk keeps each partly overlapping sliding-window summary, so its request
grows by one summary per compaction.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Optional

from ..errors import StaleSessionError
from ..events.event import Event
from ..flows import apply_compactions
from .app import EventsCompactionConfig
from .base_events_summarizer import BaseEventsSummarizer
from .llm_event_summarizer import LlmEventSummarizer

if TYPE_CHECKING:
  from ..sessions.base_session_service import BaseSessionService
  from ..sessions.session import Session
  from .app import App

logger = logging.getLogger("adk_nb.compaction")


def request_chars(events: list[Event]) -> int:
  """Characters of JSON the events contribute to a request (a summary counts as its content)."""
  total = 0
  for event in events:
    compaction = event.actions.compaction
    content = compaction.compacted_content if compaction is not None else event.content
    if content is not None:
      total += len(content.model_dump_json(exclude_none=True, fallback=str))
  return total


def _call_ids(event: Event) -> set[str]:
  return {c.id for c in event.get_function_calls() if c.id}


def _response_ids(event: Event) -> set[str]:
  return {r.id for r in event.get_function_responses() if r.id}


def _opened(event: Event) -> set[str]:
  return _call_ids(event) | set(event.actions.requested_tool_confirmations or ())


def self_contained_prefix(window: list[Event], all_events: list[Event]) -> list[Event]:
  """The longest prefix of `window` that leaves no function call or confirmation open.

  A call no event of the session ever answers, outside the newest invocation and not
  long-running, can never be answered: it does not hold the window back.
  """
  def safe_length(ignored: set[str]) -> int:
    open_ids: set[str] = set()
    length = 0
    for index, event in enumerate(window):
      open_ids -= _response_ids(event)
      open_ids |= _opened(event) - ignored
      if not open_ids:
        length = index + 1
    return length

  length = safe_length(set())
  if length == len(window):
    return window
  answered: set[str] = set()
  waiting: set[str] = set()
  newest = next((e.invocation_id for e in reversed(all_events) if e.actions.compaction is None), None)
  for event in all_events:
    answered |= _response_ids(event) - set(event.actions.requested_tool_confirmations or ())
    if event.long_running_tool_ids:
      waiting |= set(event.long_running_tool_ids)
  dead = {call_id for event in window if event.invocation_id != newest for call_id in _call_ids(event)
          if call_id not in answered and call_id not in waiting}
  return window[:max(length, safe_length(dead))] if dead else window[:length]


def worth_compacting(window: list[Event], previous: Optional[Event]) -> bool:
  """True when the summary would replace something the model is still sent besides the previous
  summary: the window holds content newer than the previous summary's range.

  (google-adk prices the whole request before and after against the last summary's size; with
  rolling summaries that comes to this, and it costs only the window.)
  """
  done_until = previous.actions.compaction.end_timestamp if previous is not None else float("-inf")
  return request_chars([e for e in window if e.timestamp > done_until]) > 0


def _newest_compaction(events: list[Event]) -> Optional[Event]:
  """The compaction event appended last (google-adk's sliding window reads its end the same way)."""
  for i in range(len(events) - 1, -1, -1):
    if events[i].actions.compaction is not None:
      return events[i]
  return None


def sliding_window(events: list[Event], config: EventsCompactionConfig) -> list[Event]:
  """The events the next sliding-window summary covers ([] when it is not due).

  Reads the session from its end back to the newest summary and the `overlap_size` invocations
  before it, so the check after each invocation costs the same however long the session is.
  """
  previous = _newest_compaction(events)
  done_until = previous.actions.compaction.end_timestamp if previous is not None else float("-inf")
  last_seen: dict[str, float] = {}
  first_at: dict[str, int] = {}
  old = 0
  for i in range(len(events) - 1, -1, -1):
    event = events[i]
    if not event.invocation_id or event.actions.compaction is not None or event.isolation_scope:
      continue  # a delegated task's own turns are not the conversation's (as google-adk)
    invocation = event.invocation_id
    if invocation not in last_seen:
      if event.timestamp <= done_until:
        old += 1
        if old > config.overlap_size:
          break  # older than the window's first invocation
      last_seen[invocation] = event.timestamp
    else:
      last_seen[invocation] = max(last_seen[invocation], event.timestamp)
    first_at[invocation] = i
  order = sorted(last_seen, key=first_at.__getitem__)
  new = [inv for inv in order if last_seen[inv] > done_until]
  if len(new) < config.compaction_interval:
    return []
  first = order[max(0, order.index(new[0]) - config.overlap_size)]
  end = max(i for i in range(first_at[new[-1]], len(events)) if events[i].invocation_id == new[-1])
  window = [e for e in events[first_at[first]:end + 1] if e.actions.compaction is None and not e.isolation_scope]
  return self_contained_prefix(window, events)


def _last_prompt_tokens(events: list[Event]) -> int:
  for event in reversed(events):
    if event.actions.compaction is not None:
      break
    usage = event.usage_metadata
    if usage is not None and usage.prompt_token_count is not None:
      return usage.prompt_token_count
  return request_chars(apply_compactions(events)) // 4


def token_threshold_window(events: list[Event], config: EventsCompactionConfig) -> list[Event]:
  """The events a token-threshold summary covers ([] when the last prompt was under the threshold)."""
  if _last_prompt_tokens(events) < config.token_threshold:
    return []
  previous = _newest_compaction(events)
  done_until = previous.actions.compaction.end_timestamp if previous is not None else float("-inf")
  candidates = [e for e in events
                if e.actions.compaction is None and not e.isolation_scope and e.timestamp > done_until]
  keep = config.event_retention_size
  if len(candidates) <= keep:
    return []
  split = len(candidates) - keep
  if keep:
    # Move the split earlier until no kept answer's call would be summarized away.
    unmatched: set[str] = set()
    best = 0
    for i in range(len(candidates) - 1, -1, -1):
      unmatched |= _response_ids(candidates[i])
      unmatched -= _call_ids(candidates[i])
      if not unmatched and i <= split:
        best = i
        break
    split = best
  return self_contained_prefix(candidates[:split], events)


def _summarizer(app: "App", config: EventsCompactionConfig) -> BaseEventsSummarizer:
  if config.summarizer is not None:
    return config.summarizer
  model = getattr(app.root_agent, "canonical_model", None)
  if model is None:
    raise ValueError(f"EventsCompactionConfig has no summarizer and the root agent {app.root_agent.name!r} has no "
                     "model: pass summarizer=LlmEventSummarizer(llm=...).")
  return LlmEventSummarizer(llm=model)


async def _summarize(app: "App", config: EventsCompactionConfig, events: list[Event],
                     window: list[Event]) -> Optional[Event]:
  if not window:
    return None
  previous = _newest_compaction(events)
  if not worth_compacting(window, previous):
    return None
  if previous is not None:  # the previous summary goes first: the new one replaces it
    seed = Event(timestamp=previous.actions.compaction.start_timestamp, author="model",
                 invocation_id=previous.invocation_id, content=previous.actions.compaction.compacted_content)
    window = [seed, *window]
  try:
    return await _summarizer(app, config).maybe_summarize_events(events=window)
  except Exception:  # the full history still works: a failed summary must not fail the turn
    logger.warning("Event compaction failed; the model is sent the full history.", exc_info=True)
    return None


async def compact_after_invocation(app: "App", session: "Session",
                                   session_service: "BaseSessionService") -> Optional[Event]:
  """Appends a compaction event to the session when one is due; returns it (or None)."""
  config = app.events_compaction_config
  if config is None or not session.events:
    return None
  events = session.events
  event = None
  if config.token_threshold is not None:
    event = await _summarize(app, config, events, token_threshold_window(events, config))
  if event is None and config.compaction_interval is not None:
    event = await _summarize(app, config, events, sliding_window(events, config))
  if event is None:
    return None
  try:
    await session_service.append_event(session, event)
  except StaleSessionError:
    logger.info("A newer turn changed session %s while its summary was written; the summary is dropped.",
                session.id)
    return None
  compaction = event.actions.compaction
  logger.info("Compacted session %s: events from %s to %s are summarized.", session.id,
              compaction.start_timestamp, compaction.end_timestamp)
  return event


__all__ = ["compact_after_invocation", "request_chars"]
