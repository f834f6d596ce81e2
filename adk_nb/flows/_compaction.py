"""What the model is sent once a session has compaction events: each retained summary instead of
the events it covers (google-adk's rules), kept incrementally per session and agent.

A compaction event (`actions.compaction`) covers the events whose timestamps lie in its range. A
summary whose range contains another's supersedes it; partly overlapping summaries are both kept.
Each kept summary appears at its range's end as a turn by the agent itself (role 'model'), and
the events it covers are left out. The session itself is never changed.

`CompactedView` is the incremental form: one agent's view, brought up to date with the events
committed since it last read (the contents reader in `_contents` keeps one per agent and branch,
in the session's index).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Optional

from ..events.event import Event


def retained_ranges(events: list[Event]) -> list[tuple[int, float, float]]:
  """(index, start, end) of the compaction events not superseded by one whose range contains theirs,
  in event order (of equal ranges, the later event wins)."""
  ranges = []
  for index, event in enumerate(events):
    compaction = event.actions.compaction
    if compaction is not None and compaction.compacted_content is not None:
      ranges.append((index, compaction.start_timestamp, compaction.end_timestamp))
  kept: set[int] = set()
  reach: Optional[float] = None
  for index, _start, end in sorted(ranges, key=lambda r: (r[1], -r[2], -r[0])):
    if reach is None or end > reach:
      kept.add(index)
      reach = end
  return [r for r in ranges if r[0] in kept]


def apply_compactions(events: list[Event], agent_name: str = "") -> list[Event]:
  """The events as the model sees them: kept summaries in place of what they cover."""
  ranges = retained_ranges(events)
  if not ranges:
    return [e for e in events if e.actions.compaction is None]
  merged: list[list[float]] = []
  for _i, start, end in sorted(ranges, key=lambda r: r[1]):
    if merged and start <= merged[-1][1]:
      merged[-1][1] = max(merged[-1][1], end)
    else:
      merged.append([start, end])
  starts = [m[0] for m in merged]

  def covered(ts: float) -> bool:
    at = bisect_right(starts, ts) - 1
    return at >= 0 and ts <= merged[at][1]

  items: list[tuple[float, int, Event]] = []
  for index, _start, end in ranges:
    # Keeps the compaction event's id: a request cache can tell a summary it already converted.
    items.append((end, index, _materialized(events[index], agent_name)))
  for index, event in enumerate(events):
    if event.actions.compaction is None and not covered(event.timestamp):
      items.append((event.timestamp, index, event))
  items.sort(key=lambda item: (item[0], item[1]))
  return [event for _, _, event in items]


def _materialized(source: Event, agent_name: str) -> Event:
  compaction = source.actions.compaction
  return Event(id=source.id, timestamp=compaction.end_timestamp, author=agent_name or "model",
               invocation_id=source.invocation_id, branch=source.branch, content=compaction.compacted_content)


def _since_session_start(events: list[Event], newest: Event, agent_name: str) -> Optional[list[Event]]:
  """The view when the newest summary covers the session from its first event (a rolling summary
  supersedes every other): the summary and the events after it, read from the end. None otherwise."""
  compaction = newest.actions.compaction
  if not events or compaction.start_timestamp > events[0].timestamp:
    return None
  tail = []
  for i in range(len(events) - 1, -1, -1):
    event = events[i]
    if event.timestamp <= compaction.end_timestamp and event.actions.compaction is None:
      break
    if event.actions.compaction is None:
      tail.append(event)
    elif event is not newest and event.actions.compaction.end_timestamp > compaction.end_timestamp:
      return None  # a later range reaches further: the general rules decide
  return [_materialized(newest, agent_name), *reversed(tail)]


class CompactedView:
  """One agent's view of a session's events with compactions applied, read incrementally."""

  __slots__ = ("agent_name", "events", "generation")

  def __init__(self, agent_name: str) -> None:
    self.agent_name = agent_name
    self.events: Optional[list[Event]] = None
    """The compacted view; None while the session has no compaction event (the view is the session)."""
    self.generation: Optional[str] = None
    """The id of the newest compaction event seen: a new one rebuilds the view."""

  def advance(self, source: list[Event], start: int, stop: int) -> None:
    """Takes in `source[start:stop]`, the events committed since the view last read (`source[:start]`)."""
    new = source[start:stop]
    compactions = [e for e in new if e.actions.compaction is not None]
    if compactions:
      upto = source[:stop]
      self.events = (_since_session_start(upto, compactions[-1], self.agent_name)
                     or apply_compactions(upto, self.agent_name))
      self.generation = compactions[-1].id
    elif self.events is not None:
      self.events.extend(new)
