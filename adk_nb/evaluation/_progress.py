"""Progress of an eval run: an ipywidgets bar in a notebook, a tqdm-style bar in a terminal, else plain lines."""

from __future__ import annotations

import sys
import time
from typing import Any, Union


def _in_notebook() -> bool:
  shell_mod = sys.modules.get("IPython")
  if shell_mod is None:
    return False
  try:
    shell = shell_mod.get_ipython()
  except Exception:
    return False
  return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


class Progress:
  """Counts finished case runs and shows passed / failed / errored so far."""

  def __init__(self, total: int, label: str = "eval"):
    self.total, self.label = total, label
    self.done = self.passed = self.failed = self.errors = 0
    self.started = time.perf_counter()

  def advance(self, status: str) -> None:
    """Records one finished case run ('passed', 'failed', 'error' or 'timeout')."""
    self.done += 1
    if status == "passed":
      self.passed += 1
    elif status == "failed":
      self.failed += 1
    else:
      self.errors += 1
    self.draw()

  def preload(self, counts: dict[str, int]) -> None:
    """Counts case runs finished before this display started (a resumed run), without drawing."""
    self.passed += counts.get("passed", 0)
    self.failed += counts.get("failed", 0)
    self.errors += sum(counts.values()) - counts.get("passed", 0) - counts.get("failed", 0)
    self.done = self.passed + self.failed + self.errors

  def text(self) -> str:
    """One-line status, e.g. 'eval 12/40 · 10 passed · 1 failed · 1 error · 3.2s'."""
    return (f"{self.label} {self.done}/{self.total} · {self.passed} passed · {self.failed} failed · "
            f"{self.errors} error · {time.perf_counter() - self.started:.1f}s")

  def draw(self) -> None:
    pass

  def close(self) -> None:
    self.draw()


class _Terminal(Progress):
  """A carriage-return bar on stderr (redrawn at most 10 times a second)."""

  def __init__(self, total: int, label: str = "eval", stream: Any = None):
    super().__init__(total, label)
    self.stream = stream or sys.stderr
    self._last = 0.0

  def draw(self, force: bool = False) -> None:
    now = time.perf_counter()
    if not force and now - self._last < 0.1 and self.done < self.total:
      return
    self._last = now
    width = 24
    filled = int(width * self.done / max(self.total, 1))
    self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.text()}")
    self.stream.flush()

  def close(self) -> None:
    self.draw(force=True)
    self.stream.write("\n")
    self.stream.flush()


class _Lines(Progress):
  """Plain lines at every 10% (for logs and CI)."""

  def __init__(self, total: int, label: str = "eval", stream: Any = None):
    super().__init__(total, label)
    self.stream = stream or sys.stderr
    self._next = 0.1

  def draw(self) -> None:
    if self.total and self.done / self.total >= self._next:
      while self.done / self.total >= self._next:
        self._next += 0.1
      print(self.text(), file=self.stream, flush=True)


class _Widget(Progress):
  """An ipywidgets progress bar with a status line, updated at most 10 times a second."""

  def __init__(self, total: int, label: str = "eval"):
    super().__init__(total, label)
    import ipywidgets as w
    from IPython.display import display

    self.bar = w.IntProgress(min=0, max=max(total, 1), value=0, bar_style="info")
    self.status = w.Label(value=self.text())
    self.box = w.HBox([self.bar, self.status])
    self._last = 0.0
    display(self.box)

  def draw(self, force: bool = False) -> None:
    now = time.perf_counter()
    if not force and now - self._last < 0.1 and self.done < self.total:
      return
    self._last = now
    with self.bar.hold_sync():
      self.bar.value = self.done
      self.bar.bar_style = "danger" if (self.failed or self.errors) else "success" if self.done == self.total else "info"
    self.status.value = self.text()

  def close(self) -> None:
    self.draw(force=True)


def make_progress(total: int, mode: Union[bool, str, None] = True, label: str = "eval") -> Progress:
  """A progress display for `total` case runs: mode True picks widget / terminal bar / lines; False shows nothing."""
  if mode is False or mode is None or mode == "none":
    return Progress(total, label)
  if mode in (True, "auto"):
    if _in_notebook():
      mode = "widget"
    elif getattr(sys.stderr, "isatty", lambda: False)():
      mode = "bar"
    else:
      mode = "text"
  if mode == "widget":
    try:
      return _Widget(total, label)
    except ImportError:
      return _Lines(total, label)
  if mode == "bar":
    return _Terminal(total, label)
  if mode == "text":
    return _Lines(total, label)
  raise ValueError(f"progress={mode!r}: use True, False, 'widget', 'bar' or 'text'.")
