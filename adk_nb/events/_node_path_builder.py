"""`_NodePathBuilder`: a workflow node path (`wf@1/node@2`) as a value (ADK 2.x private module).

It is what `Event.node_info.path` spells: one slash-separated segment per node run, root first.
"""

from __future__ import annotations

from typing import Optional

from ._paths import _SegmentPath, split_segment

__all__ = ["_NodePathBuilder"]


class _NodePathBuilder(_SegmentPath):
  """A slash-separated node path."""

  SEP = "/"
  __slots__ = ()

  @property
  def node_name(self) -> str:
    """The leaf node's name ('' for the empty path)."""
    return split_segment(self._segments[-1])[0] if self._segments else ""

  @property
  def static_path(self) -> str:
    """The path without run ids ('wf@1/node@2' -> 'wf/node'): a node's place across runs."""
    return "/".join(split_segment(s)[0] for s in self._segments)

  @property
  def leaf_segment(self) -> str:
    """The last segment as written ('' for the empty path)."""
    return self._segments[-1] if self._segments else ""

  @property
  def run_id(self) -> Optional[str]:
    """The leaf's run id; None when it has none."""
    return split_segment(self._segments[-1])[1] if self._segments else None

  def append(self, node_name: str, run_id: Optional[str] = None) -> "_NodePathBuilder":
    """A new path with a child segment (`node_name@run_id` when `run_id` is truthy)."""
    return _NodePathBuilder(self._segments + [f"{node_name}@{run_id}" if run_id else node_name])

  def is_direct_child_of(self, parent: "_NodePathBuilder") -> bool:
    """True when this path is `parent` plus exactly one segment."""
    return len(self._segments) == len(parent._segments) + 1 and self._segments[:-1] == parent._segments

  def includes_node_path(self, node_path: Optional[str]) -> bool:
    """True when `node_path` is empty, this path, or inside this path's subtree."""
    if not node_path:
      return True
    other = _NodePathBuilder.from_string(node_path)
    return other == self or other.is_descendant_of(self)

  def get_direct_child(self, descendant: "_NodePathBuilder") -> "_NodePathBuilder":
    """The child of this path on the way to `descendant`; ValueError when it is not below this path."""
    n = len(self._segments)
    if len(descendant._segments) <= n:
      raise ValueError(f"Descendant path {str(descendant)!r} is not longer than self path {str(self)!r}.")
    if descendant._segments[:n] != self._segments:
      raise ValueError(f"Descendant path {str(descendant)!r} does not start with self path {str(self)!r}.")
    return _NodePathBuilder(descendant._segments[:n + 1])
