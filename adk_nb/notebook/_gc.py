"""While a run streams in the kernel, the objects that were there before it sit out the cyclic GC.

A kernel's heap is large and long-lived: every module imported, and google-genai's pydantic
schemas above all (a full collection walks each validator's whole tree: about 60 ms after
`import google.genai.types` alone on the reference machine, 100-270 ms in a kernel after a run).
A long run makes one or two full collections, and they cost a fifth of its CPU time.

`heap_frozen()` moves the objects that exist when the first concurrent run starts into the
GC's permanent generation (`gc.freeze()`) and back when the last one ends (`gc.unfreeze()`).
During the run, collections walk only what the run allocated; reference counting frees objects
as always. What waits: a cycle of objects from before the run that becomes garbage during it is
collected after the run instead. A process that froze objects itself is left as it is.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from typing import Iterator

_lock = threading.Lock()
_runs = 0
_frozen_by_us = False


@contextlib.contextmanager
def heap_frozen() -> Iterator[None]:
  """Freezes the heap for the span of a run (nested and concurrent runs share one freeze)."""
  global _runs, _frozen_by_us
  with _lock:
    if _runs == 0 and gc.isenabled() and gc.get_freeze_count() == 0:
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
