"""Segment paths shared by branches (`a.b@1.c`) and node paths (`wf@1/node@2`).

A segment names one node run: `name@run_id`, or just `name`. The two public-facing forms differ
only in the separator; `_BranchPath` (events._branch_path) and `_NodePathBuilder`
(events._node_path_builder) are the ADK 2.x names for them.
"""

from __future__ import annotations

from typing import Iterable, Optional, TypeVar

P = TypeVar("P", bound="_SegmentPath")


def split_segment(segment: str) -> tuple[str, Optional[str]]:
  """('name', 'run_id') of 'name@run_id'; ('name', None) when the segment has no '@'."""
  name, at, run_id = segment.rpartition("@")
  return (name, run_id) if at else (segment, None)


class _SegmentPath:
  """An immutable sequence of segments joined by `SEP`."""

  SEP = "/"
  __slots__ = ("_segments",)

  def __init__(self, segments: Iterable[str]):
    self._segments = list(segments)

  @classmethod
  def from_string(cls: type[P], text: Optional[str]) -> P:
    """The path `text` spells; the empty path for '' or None."""
    return cls(text.split(cls.SEP) if text else [])

  def __str__(self) -> str:
    return self.SEP.join(self._segments)

  def __repr__(self) -> str:
    return f"{type(self).__name__}({str(self)!r})"

  def __eq__(self, other: object) -> bool:
    if not isinstance(other, type(self)):
      return NotImplemented
    return self._segments == other._segments

  def __hash__(self) -> int:
    return hash((type(self), tuple(self._segments)))

  @property
  def segments(self) -> list[str]:
    """The segments, root first (a copy)."""
    return list(self._segments)

  @property
  def parent(self: P) -> Optional[P]:
    """The path without its leaf; None for a root (or empty) path."""
    return type(self)(self._segments[:-1]) if len(self._segments) > 1 else None

  def is_descendant_of(self, ancestor: "_SegmentPath") -> bool:
    """True when `ancestor`'s segments start this path and this path is longer."""
    n = len(ancestor._segments)
    return len(self._segments) > n and self._segments[:n] == ancestor._segments
