"""DatabaseSessionService's decoded histories: reloading a session decodes only what was added since.

The Runner loads its session at every turn; decoding the whole history each time would make a
turn cost grow with the session. So the service keeps, per session it loaded, a `History`: the
session's `SessionIndex` (the decoded events, shared by the Sessions loaded from it) with each
event's row number (`seq`). `HistoryCache` holds them, least recently loaded dropped first once
they hold more than `max_events` events together.
"""

from __future__ import annotations

import bisect
import collections
from typing import Any, Optional

from ..events.event import Event
from .session_index import SessionIndex

Key = tuple[str, str, str]
"""(app_name, user_id, session_id)."""


class History:
  """A session's decoded events (its `SessionIndex`, shared by the Sessions loaded) with each one's `seq`.

  Events committed through a loaded Session join the index at once, before their `seq` is known;
  the next load finds their rows among the new ones and notes the `seq` (`extend`).
  """

  __slots__ = ("create_time", "seqs", "index")

  def __init__(self, create_time: float, seqs: list[int], events: list[Event]) -> None:
    self.create_time = create_time
    self.seqs = seqs
    self.index = SessionIndex(events)

  @property
  def events(self) -> list[Event]:
    return self.index.events

  @property
  def last_seq(self) -> int:
    return self.seqs[-1] if self.seqs else 0

  def count_upto(self, seq: int) -> int:
    return bisect.bisect_right(self.seqs, seq)

  def extend(self, rows: list[Any], events: list[Event], seen: int) -> Optional[int]:
    """Adds newly read rows; returns how many events a Session that read rows up to `seen` holds,
    or None when the rows are not the events this index holds (read the session again)."""
    index_events = self.index.events
    for (seq, _), event in zip(rows, events):
      if seq <= self.last_seq:
        continue  # a concurrent load of the same session added it already
      known = len(self.seqs)
      if known < len(index_events):  # committed through a loaded Session: only its seq is new
        if index_events[known].id != event.id:
          return None
      else:
        self.index.append(event)
      self.seqs.append(seq)
    return self.count_upto(seen)


class HistoryCache:
  """The `History` of each recently loaded session, at most `max_events` events in all (0: none kept)."""

  __slots__ = ("max_events", "_histories")

  def __init__(self, max_events: int) -> None:
    self.max_events = max_events
    self._histories: collections.OrderedDict[Key, History] = collections.OrderedDict()

  def get(self, key: Key) -> Optional[History]:
    return self._histories.get(key)

  def forget(self, key: Key) -> None:
    """Drops a session's history (it was deleted, made again, or its rows are not what was kept)."""
    self._histories.pop(key, None)

  def used(self, key: Key) -> None:
    """Marks a kept history as the most recently loaded."""
    self._histories.move_to_end(key)

  def remember(self, key: Key, history: History) -> None:
    """Keeps a loaded history so the next load of the session decodes only newer events."""
    if self.max_events <= 0 or len(history.events) > self.max_events:
      return
    self._histories[key] = history
    total = sum(len(h.events) for h in self._histories.values())
    while total > self.max_events and len(self._histories) > 1:
      _, dropped = self._histories.popitem(last=False)
      total -= len(dropped.events)
