"""Who shows a recorded run in this process: the notebook layer registers a viewer, reports ask for one.

Reporting code (`adk_nb.evaluation.view`) may show a stored run, but must not import the notebook
layer above it. The notebook registers its event tree here when it is imported; a report asks
`open_run(events, title)` and gets the view, or None when no viewer is registered (plain Python).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

RunOpener = Callable[[Sequence[Any], str], Any]
"""A viewer: (a run's events, a title) -> a displayable view of that run."""

_opener: Optional[RunOpener] = None


def set_run_opener(opener: Optional[RunOpener]) -> Optional[RunOpener]:
  """Registers the viewer of recorded runs (None removes it); returns the previous one."""
  global _opener
  previous, _opener = _opener, opener
  return previous


def open_run(events: Sequence[Any], title: str) -> Optional[Any]:
  """A view of a recorded run from the registered viewer, or None when none is registered."""
  return _opener(events, title) if _opener is not None else None
