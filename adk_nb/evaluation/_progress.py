"""Progress of an eval run: tqdm's widget in a notebook, tqdm's bar in a terminal, else plain lines.

tqdm draws the widget and the terminal bar. It has no mode for logs: written to a file or a pipe it
still redraws with carriage returns (a 2,000-step run logs 24 redraws on one line), and with
`disable=None` it shows nothing off a terminal. So logs and CI get plain lines, one at every 10%,
with the same text as the bar (tqdm's `format_meter`).
"""

from __future__ import annotations

import io
import os
import sys
import time
from typing import Any, Optional, Union

_UNIT = " run"
# The bar's text without the bar, for log lines: 'weather: 50% 2/4 [00:01<00:01, 2.00 run/s, 1 passed · ...]'.
_LINE_FORMAT = "{desc}: {percentage:3.0f}% {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]"


def _in_notebook() -> bool:
  shell_mod = sys.modules.get("IPython")
  if shell_mod is None:
    return False
  try:
    shell = shell_mod.get_ipython()
  except Exception:
    return False
  return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _terminal_width(stream: Any) -> Optional[int]:
  """80 for a terminal that reports no width (a pseudo-terminal nobody sized, as `docker run -t` can give),
  where tqdm would draw an empty line; None otherwise (tqdm follows the terminal's width)."""
  try:
    columns = os.get_terminal_size(stream.fileno()).columns
  except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
    return None
  return None if columns else 80


class Progress:
  """Counts finished case runs (passed / failed / error); shows nothing (progress=False)."""

  def __init__(self, total: int, label: str = "eval", finished: Optional[dict[str, int]] = None):
    self.total, self.label = total, label
    finished = finished or {}
    self.passed = finished.get("passed", 0)
    self.failed = finished.get("failed", 0)
    self.not_evaluated = finished.get("not_evaluated", 0)
    self.errors = sum(finished.values()) - self.passed - self.failed - self.not_evaluated
    self.initial = self.done = sum(finished.values())
    self.started = time.perf_counter()

  def advance(self, status: str) -> None:
    """Records one finished case run ('passed', 'failed', 'error', 'timeout' or 'not_evaluated')."""
    self.done += 1
    if status == "passed":
      self.passed += 1
    elif status == "failed":
      self.failed += 1
    elif status == "not_evaluated":
      self.not_evaluated += 1
    else:
      self.errors += 1
    self.draw()

  def counts(self) -> str:
    """The postfix of the bar, e.g. '10 passed · 1 failed · 1 error' (and '· 2 not evaluated' when some were not)."""
    text = f"{self.passed} passed · {self.failed} failed · {self.errors} error"
    return text + f" · {self.not_evaluated} not evaluated" if self.not_evaluated else text

  def text(self) -> str:
    """One-line status, e.g. 'eval 12/40 · 10 passed · 1 failed · 1 error · 3.2s'."""
    return f"{self.label} {self.done}/{self.total} · {self.counts()} · {time.perf_counter() - self.started:.1f}s"

  def draw(self) -> None:
    pass

  def close(self) -> None:
    pass


class _Tqdm(Progress):
  """A tqdm bar (its notebook widget or its terminal bar), turned red at the first failure or error."""

  def __init__(self, bar_class: Any, total: int, label: str = "eval", finished: Optional[dict[str, int]] = None,
               stream: Any = None):
    super().__init__(total, label, finished)
    self._red = bool(self.failed or self.errors)
    # tqdm redraws at most every `mininterval` seconds (0.1), however fast case runs finish.
    stream = stream or sys.stderr
    width = _terminal_width(stream)
    self.bar = bar_class(total=total, initial=self.done, desc=label, unit=_UNIT, file=stream, mininterval=0.1,
                         dynamic_ncols=width is None, ncols=width, leave=True, postfix=self.counts(),
                         colour="red" if self._red else None)

  def _mark_failures(self) -> None:
    if not self._red and (self.failed or self.errors):
      self._red = True
      self.bar.colour = "red"

  def advance(self, status: str) -> None:
    super().advance(status)
    self._mark_failures()
    self.bar.set_postfix_str(self.counts(), refresh=False)
    self.bar.update(1)

  def close(self) -> None:
    self.bar.close()


class _Lines(Progress):
  """Plain lines at every 10% (for logs and CI), with the bar's text."""

  def __init__(self, total: int, label: str = "eval", finished: Optional[dict[str, int]] = None,
               stream: Any = None):
    super().__init__(total, label, finished)
    self.stream = stream or sys.stderr
    self._next = 0.1
    self._skip_passed()
    self._printed = -1

  def _skip_passed(self) -> None:
    # 1e-9: tenths summed as floats (0.30000000000000004) must still count 3/10 as 30%.
    while self.total and self.done / self.total >= self._next - 1e-9 and self._next <= 1.0 + 1e-9:
      self._next += 0.1

  def line(self) -> str:
    from tqdm import tqdm

    return tqdm.format_meter(self.done, self.total, time.perf_counter() - self.started, prefix=self.label,
                             unit=_UNIT, postfix=self.counts(), bar_format=_LINE_FORMAT, initial=self.initial)

  def draw(self) -> None:
    if self.total and self.done / self.total >= self._next - 1e-9:
      self._skip_passed()
      self._print()

  def _print(self) -> None:
    self._printed = self.done
    print(self.line(), file=self.stream, flush=True)

  def close(self) -> None:
    if self._printed != self.done:
      self._print()


def make_progress(total: int, mode: Union[bool, str, None] = True, label: str = "eval",
                  finished: Optional[dict[str, int]] = None, stream: Any = None) -> Progress:
  """A progress display for `total` case runs.

  mode: True / 'auto' picks tqdm's widget in a notebook, tqdm's bar on a terminal, else plain lines;
  'widget', 'bar' or 'text' force one; False shows nothing. `finished` counts the case runs a resumed run
  already has (`{'passed': 3, 'failed': 1}`): the display starts there. `stream`: where the bar or lines go
  (default stderr).
  """
  if mode is False or mode is None or mode == "none":
    return Progress(total, label, finished)
  if mode in (True, "auto"):
    if not (_in_notebook() or getattr(stream or sys.stderr, "isatty", lambda: False)()):
      return _Lines(total, label, finished, stream)
    from tqdm.auto import tqdm as auto_bar  # the widget in a notebook kernel, else the terminal bar

    return _Tqdm(auto_bar, total, label, finished, stream)
  if mode == "widget":
    try:
      from tqdm.notebook import tqdm as notebook_bar

      return _Tqdm(notebook_bar, total, label, finished, stream)
    except ImportError:  # no ipywidgets: tqdm.notebook cannot draw
      return _Lines(total, label, finished, stream)
  if mode == "bar":
    from tqdm.std import tqdm as terminal_bar

    return _Tqdm(terminal_bar, total, label, finished, stream)
  if mode == "text":
    return _Lines(total, label, finished, stream)
  raise ValueError(f"progress={mode!r}: use True, False, 'widget', 'bar' or 'text'.")
