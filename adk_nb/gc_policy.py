"""adk_nb's one policy for Python's cyclic garbage collector, and its switch.

(A public module, though internal in spirit: the notebook layer uses it, and
tests/test_import_boundaries.py keeps that layer off other packages' private modules.)

The policy: adk_nb never calls `gc.collect()` and never changes the collector's thresholds. In two
places, and only for their span, it keeps the collector from rescanning objects that it knows
stay alive, because there a full collection costs more than the work itself:

- `heap_frozen()`: while notebook runs stream (`LiveRun`), the objects that existed when the first
  of them started sit in the permanent generation (`gc.freeze()`), and go back when the last one
  ends (`gc.unfreeze()`). A kernel's heap is large and long-lived (google-genai's pydantic schemas
  above all: a full collection walks each validator's tree, about 60 ms after
  `import google.genai.types` alone), and a long run makes one or two full collections that cost a
  fifth of its CPU. What waits: a reference cycle from before the run that becomes garbage during
  it is collected after the run instead (reference counting frees everything else as always).
- `collection_paused(count)`: while a session store decodes more than `PAUSE_ABOVE` stored events
  at once (synchronous code, no await inside), automatic collection is off: each decoded event
  stays alive, so collections during the load would only rescan them (a 10,000-event load takes
  half the time). It is on again when the decode ends, error or not.

Both leave a process that manages the collector itself alone: nothing is frozen when something is
already frozen, and nothing is paused (or resumed) when the collector is already off.

`ADK_NB_GC_TUNING=0` in the environment turns both off (read each time, so a notebook can set
`os.environ` and the next run obeys): the collector then runs as Python's defaults say.
`bench/bench_gc.py` measures what each saves.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import threading
from typing import Iterator

ENV = "ADK_NB_GC_TUNING"
"""The environment switch: "0" turns the policy off; unset or "1" keeps it on."""

PAUSE_ABOVE = 100
"""Decodes of more stored events than this run with automatic collection paused."""

logger = logging.getLogger("adk_nb")

_OFF = {"0", "false", "off", "no"}
_ON = {"", "1", "true", "on", "yes"}
_warned: set[str] = set()

_lock = threading.Lock()
_runs = 0
_frozen_by_us = False


def tuning_enabled() -> bool:
  """Whether the policy applies now (`ADK_NB_GC_TUNING` is not "0")."""
  value = os.environ.get(ENV)
  if value is None:
    return True
  value = value.strip().lower()
  if value in _OFF:
    return False
  if value not in _ON and value not in _warned:
    _warned.add(value)
    logger.warning("%s=%r is not understood; the GC tuning stays on. Set %s=0 to turn it off, or 1 "
                   "(or unset it) to keep it.", ENV, value, ENV)
  return True


@contextlib.contextmanager
def heap_frozen() -> Iterator[None]:
  """Freezes the heap for the span of a run (nested and concurrent runs share one freeze)."""
  global _runs, _frozen_by_us
  with _lock:
    if _runs == 0 and gc.isenabled() and gc.get_freeze_count() == 0 and tuning_enabled():
      gc.freeze()
      _frozen_by_us = True
    _runs += 1
  try:
    yield
  finally:
    with _lock:
      _runs -= 1
      if _runs == 0 and _frozen_by_us:
        gc.unfreeze()
        _frozen_by_us = False


@contextlib.contextmanager
def collection_paused(count: int) -> Iterator[None]:
  """Automatic collection off while `count` (> PAUSE_ABOVE) long-lived objects are built synchronously."""
  paused = count > PAUSE_ABOVE and gc.isenabled() and tuning_enabled()
  if paused:
    gc.disable()
  try:
    yield
  finally:
    if paused:
      gc.enable()


__all__ = ["ENV", "PAUSE_ABOVE", "collection_paused", "heap_frozen", "tuning_enabled"]
