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

import difflib
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
  """Pairs of steps: first the longest runs of identical steps, then, in each stretch between them,
  steps of the same kind, author and tool (which did something different); the rest stand alone."""
  pairs: list[tuple[Optional[_Did], Optional[_Did]]] = []
  exact = difflib.SequenceMatcher(None, [(d.key, d.full) for d in left], [(d.key, d.full) for d in right],
                                  autojunk=False)
  for op, i1, i2, j1, j2 in exact.get_opcodes():
    if op == "equal":
      pairs.extend(zip(left[i1:i2], right[j1:j2]))
      continue
    xs, ys = left[i1:i2], right[j1:j2]
    loose = difflib.SequenceMatcher(None, [d.key for d in xs], [d.key for d in ys], autojunk=False)
    for _, k1, k2, l1, l2 in loose.get_opcodes():
      for k in range(max(k2 - k1, l2 - l1)):
        pairs.append((xs[k1 + k] if k1 + k < k2 else None, ys[l1 + k] if l1 + k < l2 else None))
  return pairs


def first_divergence(frame: "pandas.DataFrame") -> Optional[int]:
  """The `step` of the first row where the runs differ, or None when they did the same throughout."""
  differing = frame.index[~frame["same"]]
  return None if len(differing) == 0 else int(frame.loc[differing[0], "step"])


def _events_of(run: Any, side: str) -> list:
  if isinstance(run, list):
    return run
  events = getattr(run, "events", None)
  if isinstance(events, list):
    return events
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
