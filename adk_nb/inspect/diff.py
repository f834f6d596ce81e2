"""Two runs side by side, step by step: where they did the same, and the first place they diverged.

    from adk_nb.inspect import diff_runs
    frame = diff_runs(original, fork)          # event lists, Sessions or LiveRuns
    frame[~frame.same].head(1)                 # the first divergence

A run's steps are the ones every view shows (`steps_of`): the user's messages, each model call
(its answer), each tool call (arguments and result), approvals, transfers, errors, state writes.
The two step lists are aligned on (kind, author, tool), so a step that answered differently lines up
with its counterpart (`same` False), and a step only one run has stands alone (the other side empty).
pandas is imported when `diff_runs` is called, never by importing this module.
"""

from __future__ import annotations

import collections.abc

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from .builder import steps_of
from .step import CONTAINER_KINDS, Step
from .text import cut, to_json_text

if TYPE_CHECKING:
  import pandas

COLUMNS = ["step", "kind", "author", "a", "b", "same", "a_latency_ms", "b_latency_ms", "a_tokens_in",
           "a_tokens_out", "b_tokens_in", "b_tokens_out", "a_event_id", "b_event_id"]
"""The columns of `diff_runs`' frame, in order."""

_TEXT_WIDTH = 400


@dataclass(frozen=True)
class _Did:
  """What one run did at one step: the alignment key and what is compared."""

  step: Step
  key: tuple[str, str, str]
  full: str
  """What it did, compared in full."""

  @property
  def what(self) -> str:
    """What it did, as the frame shows it (long texts cut)."""
    return cut(self.full, _TEXT_WIDTH)


def diff_runs(a: Any, b: Any) -> "pandas.DataFrame":
  """One row per aligned step of runs `a` and `b` (each a list of Events, a Session or a LiveRun).

  Columns (`COLUMNS`): `step` (0, 1, ...), `kind` and `author` of the step, `a` and `b` (what
  each run did there: the text, the call with its arguments and result; '' where that run has no
  such step), `same` (both did exactly the same), and per side the latency in milliseconds and the
  input / output tokens where known, and the event id. The first row with `same == False` is the
  first divergence.
  """
  import pandas as pd

  rows: list[dict[str, Any]] = []
  for x, y in _align(_did(a, "a"), _did(b, "b")):
    rows.append(_row(len(rows), x, y))
  return pd.DataFrame(rows, columns=COLUMNS)


def _align(left: list[_Did], right: list[_Did]) -> list[tuple[Optional[_Did], Optional[_Did]]]:
  """Pairs of steps, in linear time for runs of any length: the identical steps both runs start and
  end with pair up; between them, the runs are walked in step while the steps match in kind, author
  and tool, and where they do not, the nearest place (within `_LOOKAHEAD` steps) where they match again
  is found, the steps skipped on one side standing alone."""
  n, m = len(left), len(right)
  head = 0
  while head < min(n, m) and left[head].key == right[head].key and left[head].full == right[head].full:
    head += 1
  tail = 0
  while (tail < min(n, m) - head and left[n - 1 - tail].key == right[m - 1 - tail].key
         and left[n - 1 - tail].full == right[m - 1 - tail].full):
    tail += 1
  pairs: list[tuple[Optional[_Did], Optional[_Did]]] = list(zip(left[:head], right[:head]))
  xs, ys = left[head:n - tail], right[head:m - tail]
  i = j = 0
  while i < len(xs) and j < len(ys):
    if xs[i].key == ys[j].key:
      pairs.append((xs[i], ys[j]))
      i, j = i + 1, j + 1
      continue
    skip = _resync(xs, ys, i, j)
    if skip is None:  # nothing lines up nearby: show the two side by side
      pairs.append((xs[i], ys[j]))
      i, j = i + 1, j + 1
    elif skip[0]:
      pairs.extend((x, None) for x in xs[i:i + skip[0]])
      i += skip[0]
    else:
      pairs.extend((None, y) for y in ys[j:j + skip[1]])
      j += skip[1]
  pairs.extend((x, None) for x in xs[i:])
  pairs.extend((None, y) for y in ys[j:])
  pairs.extend(zip(left[n - tail:], right[m - tail:]))
  return pairs


_LOOKAHEAD = 32
"""How far `_align` looks for the place two runs line up again after a step only one of them has."""


def _resync(xs: list[_Did], ys: list[_Did], i: int, j: int) -> Optional[tuple[int, int]]:
  """(k, 0): skip k steps of xs; (0, k): skip k steps of ys; None: no match within the lookahead."""
  for k in range(1, _LOOKAHEAD + 1):
    if i + k < len(xs) and xs[i + k].key == ys[j].key:
      return (k, 0)
    if j + k < len(ys) and xs[i].key == ys[j + k].key:
      return (0, k)
  return None


def first_divergence(frame: "pandas.DataFrame") -> Optional[int]:
  """The `step` of the first row where the runs differ, or None when they did the same throughout."""
  differing = frame.index[~frame["same"]]
  return None if len(differing) == 0 else int(frame.loc[differing[0], "step"])


def _events_of(run: Any, side: str) -> list:
  if isinstance(run, list):
    return run
  events = getattr(run, "events", None)
  if isinstance(events, collections.abc.Sequence):  # a Session's events are its store's index, read up to n
    return events if isinstance(events, list) else list(events)
  raise TypeError(f"diff_runs({side}=...) takes a list of Events, a Session or a LiveRun, not {type(run).__name__}.")


def _did(run: Any, side: str) -> list[_Did]:
  builder = steps_of(_events_of(run, side))
  out = []
  for step in builder.steps.values():
    if step.kind in CONTAINER_KINDS:
      continue
    out.append(_Did(step, (step.kind, step.author, step.tool), _what(step)))
  return out


def _what(step: Step) -> str:
  """What a step did, in one comparable line (its text, or its call with arguments and result)."""
  if step.kind == "tool_call":
    result = "" if step.result is None else " -> " + to_json_text(step.result)
    return f"{step.tool}({to_json_text(step.args or {})}){result}"
  if step.kind == "model_call":
    return step.text or "(calls tools)"
  if step.kind == "state":
    return to_json_text(step.state_delta or {})
  return step.text or step.title


def _latency_ms(step: Step) -> Optional[float]:
  if step.t0 is None or step.t1 is None:
    return None
  return round((step.t1 - step.t0) * 1000.0, 3)


def _row(index: int, x: Optional[_Did], y: Optional[_Did]) -> dict[str, Any]:
  first = x or y
  assert first is not None
  xs, ys = (x.step if x else None), (y.step if y else None)
  return {
      "step": index, "kind": first.step.kind, "author": first.step.author,
      "a": x.what if x else "", "b": y.what if y else "",
      "same": bool(x and y and x.key == y.key and x.full == y.full),
      "a_latency_ms": _latency_ms(xs) if xs else None, "b_latency_ms": _latency_ms(ys) if ys else None,
      "a_tokens_in": xs.tokens[0] if xs and xs.tokens else None,
      "a_tokens_out": xs.tokens[1] if xs and xs.tokens else None,
      "b_tokens_in": ys.tokens[0] if ys and ys.tokens else None,
      "b_tokens_out": ys.tokens[1] if ys and ys.tokens else None,
      "a_event_id": xs.event_id if xs else "", "b_event_id": ys.event_id if ys else "",
  }
