"""A recorded run (a list of stored events) opened in the event tree; registered as the process's run viewer.

Importing the notebook layer registers `open_recorded` with `adk_nb.inspect.opener`, so reports
below this layer (an eval case in `results.view()`) open runs here without importing the notebook.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..inspect import steps_of
from ..inspect.opener import set_run_opener
from .views import EventTree


def open_recorded(events: Sequence[Any], title: str) -> EventTree:
  """The event tree of a finished, recorded run (every step closed as done or as it ended)."""
  steps = steps_of(list(events))
  steps.finish(max((e.timestamp for e in events), default=0.0), "done")
  return EventTree(nodes=[s.as_node() for s in steps.steps.values()], status="done", title=title)


set_run_opener(open_recorded)
