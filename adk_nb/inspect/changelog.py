"""The log of a run's steps and their changes: what live views replay, each at its own pace.

`StepLog` owns the steps and ids; `StepBuilder` (builder.py) decides what the steps are.
Each change is recorded as an operation (['add', id] | ['set', id, fields] |
['text', id, chunk]) with a sequence number. Any number of readers (the RunView, a second
display of the same run, the chat) each keep their own cursor: `follow()` gives a new reader
its starting point (the steps so far are in `nodes()`), `take_ops(since)` the changes after
its cursor as messages for the browser, and `unfollow(since)` lets it go. Ops every reader
has taken are dropped; with no reader, nothing is recorded.
"""

from __future__ import annotations

from typing import Any, Hashable, Optional

from .step import Step
from .text import NODE_TEXT_LIMIT


StepKey = tuple[str, Hashable]
"""What a step is about, so that later events find it: `(kind, of)`. The kinds: `("inv", invocation id)`,
`("model", event id)`, `("call", call id)` (a tool call or input request), `("approval", call id)`,
`("text" | "thought" | "transfer" | "escalate" | "error" | "compaction", event id)`,
`("code", (event id, part index))`, `("node", (invocation id, node path))`."""


class StepLog:
  """Every step of a run by id, and the changes its readers have not all taken yet."""

  def __init__(self) -> None:
    self.steps: dict[str, Step] = {}
    """Every step by id, in the order they began."""
    self._ops: list[list] = []    # the changes after sequence number `_dropped`, oldest first
    self._dropped = 0             # how many ops every reader has taken (and were dropped)
    self._open = 0                # ops from this index on were taken by nobody yet: a change may merge into them
    self._readers: dict[int, int] = {}  # a reader's cursor -> how many readers stand there
    self._keys: dict[StepKey, str] = {}         # what a step is about -> its id (see StepKey)
    self._counter = 0

  # ---- readers -----------------------------------------------------------------------------

  @property
  def seq(self) -> int:
    """The sequence number of the latest change recorded (0 before any reader followed)."""
    return self._dropped + len(self._ops)

  @property
  def readers(self) -> int:
    """How many readers follow the log (changes are recorded only while one does)."""
    return sum(self._readers.values())

  def follow(self) -> int:
    """Starts a reader: its cursor now. The steps so far are in `nodes()`; `take_ops(cursor)` gives what follows."""
    seq = self.seq
    self._readers[seq] = self._readers.get(seq, 0) + 1
    self._open = len(self._ops)  # in the snapshot this reader draws: a later change must not merge into them
    return seq

  def unfollow(self, since: int) -> None:
    """The reader at cursor `since` stops reading; ops no other reader needs are dropped."""
    self._leave(since)
    self._drop_taken()

  def take_ops(self, since: int) -> tuple[list[list], int]:
    """The changes after cursor `since` as browser operations, and the reader's new cursor.

    `since` is what `follow()` or this reader's previous `take_ops` returned. A step added
    in the batch travels whole ('add' with its current node); its later changes in the batch
    are already in it. Other readers still get these changes from their own cursors.
    """
    self._leave(since)
    seq = self.seq
    self._readers[seq] = self._readers.get(seq, 0) + 1
    ops = self._ops[since - self._dropped:]
    self._open = len(self._ops)  # taken: a later change must not merge into them
    self._drop_taken()
    return _as_messages(self.steps, ops), seq

  def _leave(self, since: int) -> None:
    count = self._readers.get(since)
    if count is None or since < self._dropped:
      raise ValueError(f"{since} is not the cursor of a reader of this log (readers at {sorted(self._readers)}); "
                       "pass what follow() or the reader's last take_ops() returned.")
    if count == 1:
      del self._readers[since]
    else:
      self._readers[since] = count - 1

  def _drop_taken(self) -> None:
    low = min(self._readers, default=self.seq)
    done = low - self._dropped
    if done > 0:
      del self._ops[:done]
      self._dropped = low
      self._open = max(0, self._open - done)

  # ---- recording (the per-event path: a reader check and at most one append) --------------

  def _new_id(self, prefix: str = "s") -> str:
    # Short ids: a 10,000-event run's snapshot repeats each id in its children's `parent`.
    self._counter += 1
    return f"{prefix}{self._counter}"

  def _key_id(self, kind: str, of: Hashable) -> str:
    """A new step id for the `kind` step about `of` (see StepKey), found again by `_find(kind, of)`."""
    step_id = self._keys[(kind, of)] = self._new_id()
    return step_id

  def _bind(self, kind: str, of: Hashable, step_id: str) -> None:
    """From now on `_find(kind, of)` gives the existing step `step_id`."""
    self._keys[(kind, of)] = step_id

  def _find(self, kind: str, of: Hashable) -> Optional[Step]:
    step_id = self._keys.get((kind, of))
    return None if step_id is None else self.steps.get(step_id)

  def _add(self, step: Step) -> Step:
    self.steps[step.id] = step
    if self._readers:
      self._ops.append(["add", step.id])
    return step

  def _set(self, step: Step, **fields: Any) -> None:
    for name, value in fields.items():
      setattr(step, name, value)
    if self._readers:
      ops = self._ops
      last = ops[-1] if len(ops) > self._open else None  # an op nobody has taken yet
      if last is not None and last[1] == step.id and last[0] != "text":
        if last[0] == "set":
          last[2].update(fields)
        # after its 'add' (not taken yet) the step travels whole
      else:
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
    if self._readers:
      ops = self._ops
      last = ops[-1] if len(ops) > self._open else None  # an op nobody has taken yet
      if last is not None and last[1] == step.id and last[0] != "set":
        if last[0] == "text":
          last[2] += chunk
      else:
        ops.append(["text", step.id, chunk])

  def nodes(self) -> list[dict[str, Any]]:
    """Every step as a node dict, in order (the snapshot a reloaded view, or a new reader, draws)."""
    return [s.as_node() for s in self.steps.values()]


def _as_messages(steps: dict[str, Step], ops: list[list]) -> list[list]:
  """Ops as browser messages: an 'add' carries the step's current node, a 'set' the node keys that changed."""
  out: list[list] = []
  added: set[str] = set()
  for op in ops:
    step = steps[op[1]]
    if op[0] == "add":
      added.add(step.id)
      out.append(["add", step.as_node()])
    elif step.id in added:
      continue
    elif op[0] == "set":
      node = step.as_node()  # derived fields (ms, meta, result text) follow their sources
      out.append(["set", step.id, {k: node.get(k) for k in _node_fields(op[2])}])
    else:
      out.append(list(op))
  return out


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

