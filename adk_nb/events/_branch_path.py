"""`_BranchPath`: an event's branch (`parent@1.child@2.node`) as a value (ADK 2.x private module).

A branch isolates history: an agent sees the events on its own branch and its ancestors'. Each
dot-separated segment is one node run, `name@run_id` or `name`.
"""

from __future__ import annotations

from typing import Optional, Union

from ._paths import _SegmentPath, split_segment

__all__ = ["_BranchPath"]


class _BranchPath(_SegmentPath):
  """A dot-separated branch path."""

  SEP = "."
  __slots__ = ()

  @property
  def ordered_run_ids(self) -> tuple[str, ...]:
    """The run ids of the segments that have one, root first ('a@1.b.c@3' -> ('1', '3'))."""
    return tuple(run_id for run_id in (split_segment(s)[1] for s in self._segments) if run_id)

  @property
  def run_ids(self) -> set[str]:
    """The run ids of all segments, as a set."""
    return set(self.ordered_run_ids)

  @staticmethod
  def common_prefix(paths: list["_BranchPath"]) -> "_BranchPath":
    """The longest path every one of `paths` starts with (the empty path for none)."""
    common: list[str] = []
    for column in zip(*(p._segments for p in paths)):
      if any(s != column[0] for s in column):
        break
      common.append(column[0])
    return _BranchPath(common)

  def append(self, segment_or_path: Union[str, "_BranchPath"], run_id: Optional[str] = None) -> "_BranchPath":
    """A new path: this one followed by a segment (`name@run_id` when `run_id` is given), a
    dotted path, or another `_BranchPath`."""
    if isinstance(segment_or_path, _BranchPath):
      if run_id is not None:
        raise ValueError("run_id cannot be provided when segment_or_path is a _BranchPath instance: "
                         "append the path, then the segment.")
      return _BranchPath(self._segments + segment_or_path._segments)
    if run_id is not None:
      if "." in segment_or_path:
        raise ValueError(f"run_id cannot be provided when segment_or_path is a dot-separated path "
                         f"({segment_or_path!r}): pass a single name.")
      return _BranchPath(self._segments + [f"{segment_or_path}@{run_id}"])
    return _BranchPath(self._segments + [s for s in segment_or_path.split(".") if s])

  @classmethod
  def is_tool_branch(cls, branch: str, node_name: str, tool_call_ids: set[str]) -> bool:
    """True when `branch` is the sub-branch a tool's message goes out on (`<tool>@<call id>`),
    not `node_name`'s own branch (an agent run as a tool has `<agent>@<call id>`)."""
    segments = cls.from_string(branch)._segments
    if not segments:
      return False
    name, run_id = split_segment(segments[-1])
    return run_id is not None and run_id in tool_call_ids and name != node_name

  @classmethod
  def create_sub_branch(cls, base_branch: Optional[str], *, name: str, run_id: Optional[str] = None) -> str:
    """`base_branch` extended by one segment, as a string ('parent' + child@1 -> 'parent.child@1')."""
    return str(cls.from_string(base_branch).append(name, run_id=run_id))
