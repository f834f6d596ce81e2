"""`BaseEventsSummarizer`: turns a range of a session's events into one compaction event."""

from __future__ import annotations

import abc
from typing import Optional

from ..events.event import Event


class BaseEventsSummarizer(abc.ABC):
  """Writes the summary that replaces older events in what the model is sent (see EventsCompactionConfig)."""

  @abc.abstractmethod
  async def maybe_summarize_events(self, *, events: list[Event]) -> Optional[Event]:
    """An event whose `actions.compaction` holds the summary of `events` and their time range, or None
    to leave them as they are."""


__all__ = ["BaseEventsSummarizer"]
