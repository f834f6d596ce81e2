"""The log of a run's steps and their changes: what a live view replays, batch by batch.

`StepLog` owns the steps and ids; `StepBuilder` (builder.py) decides what the steps are.
Each change is recorded as an operation (['add', id] | ['set', id, fields] |
['text', id, chunk]) and `take_ops()` turns a batch into messages for the browser.
"""

from __future__ import annotations

from typing import Any, Optional

from .step import Step
from .text import NODE_TEXT_LIMIT


class StepLog:
  """Every step of a run by id, and (when a live view reads it) the changes since the last batch."""

  def __init__(self, keep_ops: bool = True) -> None:
    self.steps: dict[str, Step] = {}
    """Every step by id, in the order they began."""
    self.keep_ops = keep_ops
    """False when no live view reads the change log (nothing is kept)."""
    self.ops: list[list] = []
    """The changes not yet taken by `take_ops()`."""
    self._keys: dict[str, str] = {}             # 'model:<event id>', 'call:<call id>', ... -> step id
    self._counter = 0

  def _new_id(self, prefix: str = "s") -> str:
    # Short ids: a 10,000-event run's snapshot repeats each id in its children's `parent`.
    self._counter += 1
    return f"{prefix}{self._counter}"

  def _key_id(self, key: str) -> str:
    """A new step id for what `key` names (`model:<event id>`, `call:<call id>`, ...), found again by `_find`."""
    step_id = self._keys[key] = self._new_id()
    return step_id

  def _find(self, key: str) -> Optional[Step]:
    step_id = self._keys.get(key)
    return None if step_id is None else self.steps.get(step_id)

  def _add(self, step: Step) -> Step:
    self.steps[step.id] = step
    if self.keep_ops:
      self.ops.append(["add", step.id])
    return step

  def _set(self, step: Step, **fields: Any) -> None:
    for name, value in fields.items():
      setattr(step, name, value)
    if self.keep_ops:
      ops = self.ops
      if ops and ops[-1][0] == "set" and ops[-1][1] == step.id:
        ops[-1][2].update(fields)
      elif not (ops and ops[-1][0] == "add" and ops[-1][1] == step.id):
        ops.append(["set", step.id, dict(fields)])

  def _append_text(self, step: Step, chunk: str) -> None:
    before = len(step.text)
    if before > NODE_TEXT_LIMIT:
      # Past what the view shows (the first NODE_TEXT_LIMIT characters, then "…"); the final answer sets
      # the whole text. Growing a long string chunk by chunk would cost time quadratic in its length.
      return
    step.text += chunk
    if before + len(chunk) > NODE_TEXT_LIMIT:
      chunk = chunk[:NODE_TEXT_LIMIT - before] + "…"
    if self.keep_ops:
      ops = self.ops
      if ops and ops[-1][0] == "text" and ops[-1][1] == step.id:
        ops[-1][2] += chunk
      elif not (ops and ops[-1][0] == "add" and ops[-1][1] == step.id):
        ops.append(["text", step.id, chunk])

  def take_ops(self) -> list[list]:
    """The changes since the last call as browser operations (and forgets them).

    A step added in this batch travels whole ('add' with its current node); its later
    changes in the batch are already in it.
    """
    ops, self.ops = self.ops, []
    out: list[list] = []
    added: set[str] = set()
    for op in ops:
      step = self.steps[op[1]]
      if op[0] == "add":
        added.add(step.id)
        out.append(["add", step.as_node()])
      elif step.id in added:
        continue
      elif op[0] == "set":
        node = step.as_node()  # derived fields (ms, meta, result text) follow their sources
        out.append(["set", step.id, {k: node.get(k) for k in _node_fields(op[2])}])
      else:
        out.append(op)
    return out

  def nodes(self) -> list[dict[str, Any]]:
    """Every step as a node dict, in order (the snapshot a reloaded view draws)."""
    return [s.as_node() for s in self.steps.values()]


_FIELD_SOURCES = {"t0": ("t", "ms"), "t1": ("ms",), "tokens": ("meta",), "finish": ("meta",),
                  "branch": ("branch", "meta"), "result": ("result",), "text": ("text", "meta"),
                  "status": ("status", "meta"), "decided": ("meta",), "model": (),
                  "request": (), "args": (), "tool": (), "state_delta": (), "invocation_id": (), "author": (),
                  "event_id": (), "path": ()}
"""For each Step field, the node keys that follow from it (none: not drawn)."""


def _node_fields(changed: dict[str, Any]) -> list[str]:
  """The node keys that follow from changed Step fields."""
  out: list[str] = []
  for name in changed:
    for key in _FIELD_SOURCES.get(name, (name,)):
      if key not in out:
        out.append(key)
  return out

