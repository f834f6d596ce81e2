"""What a store knows about one stored session: its events, and what readers folded from them.

Every turn asks the same questions of a session (what the model is sent, what is pending, where
an invocation starts, whether anything rewinds), and a long session must not cost more per turn
than a short one. So each stored session has one `SessionIndex`, owned by its store:

- `events`, the committed events, oldest first. The list only grows: the store appends each
  committed event once, and nothing else changes it.
- the readers: values folded from a prefix of `events` (a pending ledger, the contents sent to an
  agent, ...), each keyed by what it answers and brought up to date by reading only the events
  committed since it last read.

A Session the store loads holds a `LoadedEvents`: the index's first *n* events, where *n* is how
many were committed when it was loaded. It sees no later appends except its own (the store appends
through it), so two Sessions loaded from one index stay as isolated as two copies, and loading
copies nothing. Changing a loaded Session's events in place (`append`, `del events[0]`, ...) first
gives it its own plain copy, detached from the index; readers then read that copy from the start.

Nothing here is global: two stores, or two sessions with the same ids in different stores, have
different indexes. A Session made by hand, or by a store that keeps no index, holds a plain list,
and its readers read it from the start each time (correct, and as fast as google-adk).
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Callable, Hashable, Iterable, Iterator, MutableSequence, Optional, TypeVar, Union, overload

from ..events.event import Event

R = TypeVar("R")
A = TypeVar("A")


class SessionIndex:
  """One stored session's committed events (append-only) and the readers kept on them."""

  __slots__ = ("events", "_readers", "_lock")

  def __init__(self, events: Iterable[Event] = ()) -> None:
    self.events: list[Event] = list(events)
    """The committed events, oldest first; only ever appended to."""
    self._readers: dict[Hashable, tuple[int, Any]] = {}
    # A run on a worker thread (Runner.run) and the notebook may read one session at once.
    self._lock = threading.Lock()

  def loaded(self, count: Optional[int] = None) -> "LoadedEvents":
    """The events a Session loaded now holds: the first `count` (all, by default)."""
    return LoadedEvents(self, len(self.events) if count is None else count)

  def append(self, event: Event) -> None:
    """Records one committed event."""
    self.events.append(event)

  def read(self, key: Hashable, source: list, count: int, make: Callable[[], R],
           catch_up: Callable[[R, list, int, int], R], answer: Callable[[R], A]) -> A:
    """`answer(reader)` for the reader kept under `key`, first brought up to `count` events.

    `source` is the list the reader reads (the index's `events`, or a list derived from them that
    also only grows, such as a compacted view, whose `key` then names what it was derived from).
    `catch_up(reader, source, start, stop)` reads `source[start:stop]` into the reader and returns
    it. A Session loaded before the reader last read (it holds fewer events) gets an answer read
    from the start, and the kept reader stays as it was.
    """
    with self._lock:
      read, reader = self._readers.get(key, (0, None))
      if reader is not None and read > count:
        return answer(catch_up(make(), source, 0, count))
      if reader is None:
        reader = make()
      try:
        if count > read:
          reader = catch_up(reader, source, read, count)
        self._readers[key] = (count, reader)
        return answer(reader)
      except BaseException:
        self._readers.pop(key, None)  # it may have read part of the events: the next call starts over
        raise


def read_events(events: Any, key: Hashable, make: Callable[[], R], catch_up: Callable[[R, list, int, int], R],
                answer: Callable[[R], A]) -> A:
  """`answer(reader)` for a reader of a session's `events`, kept in its store's index when the
  events were loaded from one (see `SessionIndex.read`), read from the start otherwise."""
  found = index_of(events)
  if found is not None:
    index, count = found
    return index.read(key, index.events, count, make, catch_up, answer)
  source = events if isinstance(events, list) else list(events)
  return answer(catch_up(make(), source, 0, len(source)))


def fold_events(events: Any, key: Hashable, start: Callable[[], R], add: Callable[[R, Event], R]) -> R:
  """`add(value, event)` applied to each of a session's events in turn, from `start()`; kept in the
  store's index under `key`, so a later call reads only the events committed since."""
  def catch_up(value: R, source: list, first: int, stop: int) -> R:
    for event in source[first:stop]:  # a slice: islice would step over the first ones one by one
      value = add(value, event)
    return value

  return read_events(events, key, start, catch_up, _same)


def _same(value: R) -> R:
  return value


def index_of(events: Any) -> Optional[tuple[SessionIndex, int]]:
  """(index, count) when `events` are the first `count` events of a store's index, unchanged; else None."""
  if type(events) is LoadedEvents and events._own is None:
    return events._index, events._count
  return None


def commit(session: Any, event: Event, index: Optional[SessionIndex]) -> bool:
  """Appends a committed `event` to `session.events`; when those are the whole of `index` (loaded
  from it, unchanged, nothing committed since), the one append to `index` serves both.

  Returns whether `index` got the event (otherwise the store records it in its index itself).
  """
  events = session.events
  if type(events) is LoadedEvents:
    return events._commit(event, index)
  events.append(event)
  return False


class LoadedEvents(MutableSequence):
  """A loaded Session's events: the first `count` events of its store's index, shared, not copied.

  Reads go to the index. A change in place makes a plain copy first (the Session's own, from then
  on), so the index and other Sessions never see it. `copy`, `pickle` and `list(...)` give a plain list.
  """

  __slots__ = ("_index", "_count", "_own")
  __hash__ = None  # type: ignore[assignment]

  def __init__(self, index: SessionIndex, count: int) -> None:
    self._index = index
    self._count = count
    self._own: Optional[list[Event]] = None
    """This Session's own copy, once it changed its events in place."""

  # -- reading -------------------------------------------------------------

  def __len__(self) -> int:
    own = self._own
    return self._count if own is None else len(own)

  @overload
  def __getitem__(self, i: int) -> Event: ...
  @overload
  def __getitem__(self, i: slice) -> list[Event]: ...
  def __getitem__(self, i: Union[int, slice]) -> Union[Event, list[Event]]:
    own = self._own
    if own is not None:
      return own[i]
    count = self._count
    if isinstance(i, slice):
      start, stop, step = i.indices(count)
      if step < 0 and stop < 0:
        stop = None  # type: ignore[assignment]  # down to the first event: -1 would mean the last
      return self._index.events[start:stop:step]
    at = i.__index__()
    if at < 0:
      at += count
    if not 0 <= at < count:
      raise IndexError("list index out of range")
    return self._index.events[at]

  def __iter__(self) -> Iterator[Event]:
    own = self._own
    if own is not None:
      return iter(own)
    return itertools.islice(self._index.events, self._count)

  def __reversed__(self) -> Iterator[Event]:
    own = self._own
    if own is not None:
      return reversed(own)
    return map(self._index.events.__getitem__, range(self._count - 1, -1, -1))

  def __contains__(self, value: object) -> bool:
    return any(e is value or e == value for e in self)

  def __eq__(self, other: object) -> bool:
    if isinstance(other, (list, LoadedEvents)):
      return len(self) == len(other) and list(self) == list(other)
    return NotImplemented

  def __add__(self, other: Any) -> list[Event]:
    return list(self) + list(other)

  def __radd__(self, other: Any) -> list[Event]:
    return list(other) + list(self)

  def __mul__(self, times: int) -> list[Event]:
    return list(self) * times

  __rmul__ = __mul__

  def __repr__(self) -> str:
    return repr(list(self))

  def __reduce_ex__(self, protocol: Any) -> Any:
    # copy, deepcopy and pickle give a plain list, which does not drag the store's index along.
    return (list, (list(self),))

  def copy(self) -> list[Event]:
    """A plain list of the events."""
    return list(self)

  # -- changing (the Session's own copy) -------------------------------------

  def _mine(self) -> list[Event]:
    own = self._own
    if own is None:
      own = self._own = self._index.events[:self._count]
    return own

  def __setitem__(self, i: Any, value: Any) -> None:
    self._mine()[i] = value

  def __delitem__(self, i: Any) -> None:
    del self._mine()[i]

  def insert(self, i: int, value: Event) -> None:
    self._mine().insert(i, value)

  def append(self, value: Event) -> None:
    self._mine().append(value)

  def extend(self, values: Iterable[Event]) -> None:
    self._mine().extend(values)

  def __iadd__(self, values: Iterable[Event]) -> "LoadedEvents":
    self._mine().extend(values)
    return self

  def __imul__(self, times: int) -> "LoadedEvents":
    own = self._mine()
    own *= times
    return self

  def pop(self, i: int = -1) -> Event:
    return self._mine().pop(i)

  def remove(self, value: Event) -> None:
    self._mine().remove(value)

  def clear(self) -> None:
    self._own = []

  def sort(self, *args: Any, **kwargs: Any) -> None:
    self._mine().sort(*args, **kwargs)

  def reverse(self) -> None:
    self._mine().reverse()

  def _commit(self, event: Event, index: Optional[SessionIndex]) -> bool:
    own = self._own
    if own is None and index is self._index and self._count == len(index.events):
      index.events.append(event)
      self._count += 1
      return True
    self._mine().append(event)
    return False
