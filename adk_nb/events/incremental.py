"""Values folded from a session's events one event at a time, kept per session between calls.

A long session must not cost more per turn than a short one, so readers that are asked on
every turn (what is pending, whether anything rewinds, where an invocation starts) remember
what they have read and are fed only the events added since.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Generic, Optional, Sequence, TypeVar

from .event import Event

T = TypeVar("T")


def continues(count: int, last_id: Optional[str], events: Sequence[Event]) -> bool:
  """Whether `events` are the `count` read before (the last with id `last_id`) plus new ones.

  False for a session that was rewritten, or deleted and made again under the same id: its
  reader must start over.
  """
  return count <= len(events) and (not count or events[count - 1].id == last_id)


def keep(cache: OrderedDict, key: tuple, value: object, size: int) -> None:
  """Stores `value` as the most recent entry of an LRU `cache` of at most `size` entries."""
  cache[key] = value
  cache.move_to_end(key)
  if len(cache) > size:
    cache.popitem(last=False)


class PerSession(Generic[T]):
  """`reader(key, events)`: `fold(value, event)` applied to each event not read before for `key`
  (a session's (app, user, id)), starting from `start()`; returns the value."""

  def __init__(self, start: Callable[[], T], fold: Callable[[T, Event], T], size: int = 256):
    self._start, self._fold, self._size = start, fold, size
    self._entries: "OrderedDict[tuple, tuple[int, Optional[str], T]]" = OrderedDict()
    self._lock = threading.Lock()  # Runner.run drives runs from worker threads

  def __call__(self, key: tuple, events: Sequence[Event]) -> T:
    with self._lock:
      count, last_id, value = self._entries.get(key, (0, None, None))
      if value is None or not continues(count, last_id, events):
        count, value = 0, self._start()
      for event in events[count:]:
        value = self._fold(value, event)
      keep(self._entries, key, (len(events), events[-1].id if events else None, value), self._size)
      return value
