"""The in-memory store's event list, lent to one Session at a time instead of copied for each load.

Copying a long history on every `get_session` (and the young-generation collections that walk
each fresh copy while the run allocates) was most of what a run cost at 40,000 events. So the
store hands its own list to the Session it loads, and keeps the isolation google-adk's copies give:

- a Session loaded earlier never sees appends made through another Session: the store lends its
  list while no one else holds it, and otherwise copies it, for the new Session or before
  appending through a Session that does not hold it;
- changing a loaded Session's list in place (`append`, `clear`, `del events[0]`, ...) changes
  that Session's list only: the first such change leaves the store a copy of the list as it was.

The events themselves are shared, as they were before (treat them as immutable).
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Callable, Optional


class LentEvents(list):
  """A list of events shared by the store (`owner`) and the one Session it was lent to."""

  __slots__ = ("_owner",)

  def __init__(self, events: Any = (), owner: Any = None):
    super().__init__(events)
    self._owner = owner

  def _detach(self) -> None:
    """Before the holder changes this list in place, the store takes a copy of it as it is."""
    owner, self._owner = self._owner, None
    if owner is not None and owner.events is self:
      owner.events = LentEvents(self, owner)

  def __reduce_ex__(self, protocol: Any) -> Any:
    # copy, deepcopy and pickle give a plain list, which does not drag the store along.
    return (list, (list(self),))


def _detaching(name: str) -> Callable[..., Any]:
  method = getattr(list, name)

  def change(self: LentEvents, *args: Any, **kwargs: Any) -> Any:
    self._detach()
    return method(self, *args, **kwargs)

  change.__name__ = change.__qualname__ = name
  return change


for _name in ("append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "__setitem__",
              "__delitem__", "__iadd__", "__imul__"):
  setattr(LentEvents, _name, _detaching(_name))


def _references(holder: Any) -> int:
  return sys.getrefcount(holder.events)


class _Probe:
  __slots__ = ("events",)

  def __init__(self) -> None:
    self.events: list = []


# What _references counts for a list only its holder's attribute refers to (interpreters differ
# in how they count the call's own reference). Without sys.getrefcount, nothing is ever lent.
_ALONE: Optional[int] = _references(_Probe()) if hasattr(sys, "getrefcount") else None


def held_by_owner_only(holder: Any) -> bool:
  """True when nothing but `holder.events` refers to the list (no Session holds it any more)."""
  return _ALONE is not None and _references(holder) <= _ALONE


_LOCK = threading.Lock()  # Runner.run drives runs from worker threads: one check-and-take at a time


def unshared(holder: Any) -> LentEvents:
  """`holder.events`, first replaced by a copy if anything else holds the list (a Session it was
  lent to earlier, or a caller's reference to that Session's list), which keeps it unchanged."""
  with _LOCK:
    if not held_by_owner_only(holder):
      old = holder.events
      holder.events = LentEvents(old, holder)
      if isinstance(old, LentEvents):
        old._owner = None
    events = holder.events  # held before the lock is released, so no other load can take it too
  return events
