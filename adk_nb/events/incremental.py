"""Telling whether a list of events still begins with the events read from it before.

(What a session's readers keep between calls lives in the index its store keeps for it:
`adk_nb.sessions.session_index`.)
"""

from __future__ import annotations

from typing import Optional, Sequence

from .event import Event


def continues(count: int, last_id: Optional[str], events: Sequence[Event]) -> bool:
  """Whether `events` are the `count` read before (the last with id `last_id`) plus new ones.

  False for a session that was rewritten, or deleted and made again under the same id: its
  reader must start over.
  """
  return count <= len(events) and (not count or events[count - 1].id == last_id)
