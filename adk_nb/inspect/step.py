"""A step of a run (a container, or something that happened in it) and the labels every view gives it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Optional

from .text import cut, node_json_text

StepKind = Literal["invocation", "agent", "sequential", "parallel", "loop", "iteration", "workflow", "node", "user",
                   "model_call", "text", "tool_call", "approval", "input_request", "transfer", "escalate",
                   "error", "state", "decision", "thought", "code", "compaction"]

LABELS: dict[str, str] = {
    "invocation": "run", "agent": "agent", "sequential": "sequence", "parallel": "parallel", "loop": "loop",
    "iteration": "iteration", "workflow": "workflow", "node": "node", "user": "user", "model_call": "model",
    "text": "text", "tool_call": "tool", "approval": "approval", "input_request": "input", "transfer": "transfer",
    "escalate": "escalate", "error": "error", "state": "state", "decision": "decision", "thought": "thoughts",
    "code": "code", "compaction": "compaction",
}
"""The label every view shows for each kind of step."""

STATUS_TEXT: dict[str, str] = {
    "running": "… running", "streaming": "… streaming", "ok": "✓ ok", "done": "✓ done", "error": "✗ error",
    "pending": "‖ waiting", "needs approval": "‖ needs approval", "paused": "‖ paused",
    "approved": "✓ approved", "rejected": "⊘ rejected", "responded": "✓ answered",
}
"""How each status reads: a symbol and a word, so status never depends on colour alone. The symbols are ones
common fonts have (no emoji-range glyphs such as U+23F8, which many fonts draw as an empty box)."""

FOLDED_KINDS = {"state", "tool_call", "thought"}
"""Kinds every view draws folded (collapsed) until a person opens them."""

CONTAINER_KINDS = {"invocation", "agent", "sequential", "parallel", "loop", "iteration", "workflow", "node"}
"""Kinds that hold other steps: filtering by one of them (an agent's name) shows everything inside it."""

ERROR_STATUSES = ("error", "rejected")
"""Statuses "errors only" keeps, with every step of a kind in ERROR_KINDS."""

ERROR_KINDS = ("error",)

GOING_ON = ("running", "paused")
"""Run statuses (and invocation step statuses) of a run that goes on: its unended steps reach the present."""


def vocabulary() -> dict:
  """The kind and status sets a view of the tree needs, as the browser receives them (the JS declares none;
  the words for each kind and status are LABELS and STATUS_TEXT)."""
  return {"containers": sorted(CONTAINER_KINDS), "error_statuses": list(ERROR_STATUSES),
          "error_kinds": list(ERROR_KINDS), "going_on": list(GOING_ON)}

@dataclass
class Step:
  """One step of a run: a container (invocation, agent, workflow part) or something that happened in it."""

  id: str
  """Unique within the run."""
  kind: str
  """One of StepKind; `LABELS[kind]` is how views name it."""
  parent: Optional[str]
  """The id of the enclosing step (None for an invocation)."""
  title: str
  """One line: agent name, model name, `tool(args)`, ..."""
  text: str = ""
  """The step's text: a message, the model's answer, arguments as JSON, an error message."""
  status: str = ""
  """'' or a key of STATUS_TEXT."""
  t0: Optional[float] = None
  """When it began (seconds since the epoch)."""
  t1: Optional[float] = None
  """When it ended (None while it runs, or when unknown)."""
  invocation_id: str = ""
  author: str = ""
  """The agent (or 'user') that produced it."""
  branch: str = ""
  """The branch (`parallel.child`): one lane per parallel branch."""
  tool: str = ""
  """For tool calls, approvals and input requests: the tool's name."""
  args: Any = None
  """For tool calls: the arguments."""
  result: Any = None
  """For tool calls: the response; for approvals: the answer."""
  model: str = ""
  """For model calls: the model's name."""
  tokens: Optional[tuple[Optional[int], Optional[int]]] = None
  """For model calls: (input, output) token counts, when the model reported them."""
  finish: str = ""
  """For model calls: the finish reason."""
  event_id: str = ""
  """The event that showed it (the model's response event for a model call)."""
  path: str = ""
  """For workflow nodes (and agents inside a workflow): the node path, e.g. `wf@1/child@2`."""
  state_delta: Optional[dict[str, Any]] = None
  """For state steps: the keys written."""
  traceback: str = ""
  """For error steps reporting an exception: its traceback (cut; drawn folded under the error)."""
  sources: Optional[list[tuple[str, str]]] = None
  """For model calls grounded by a search: (title, uri) of each source the model cited."""
  queries: Optional[list[str]] = None
  """For model calls grounded by a search: the search queries the model ran."""
  cache: str = ""
  """For model calls: the context cache used or fingerprinted, as one line ('' when none)."""
  decided: str = ""
  """For tool calls that needed approval: the answer and who gave it ('approved by button', 'rejected by
  policy:deny'; just 'approved' when only the stored answer is known, e.g. a session re-opened later)."""
  request: Any = field(default=None, repr=False, compare=False)
  """For model calls of a live run: the LlmRequest as sent (kept by reference, never copied)."""
  _shown: dict = field(default_factory=dict, repr=False, compare=False)
  # JSON text of args and result, made once when a view first draws them.

  def _json_of(self, name: str) -> str:
    value = getattr(self, name)
    cached = self._shown.get(name)
    if cached is None or cached[0] is not value:
      cached = self._shown[name] = (value, cut(node_json_text(value)))
    return cached[1]

  @property
  def label(self) -> str:
    return LABELS.get(self.kind, self.kind)

  @property
  def ms(self) -> Optional[float]:
    """Duration in milliseconds, when both ends are known."""
    if self.t0 is None or self.t1 is None:
      return None
    return round((self.t1 - self.t0) * 1000, 1)

  def meta(self) -> str:
    """The small print after the title: branch, tokens, finish reason."""
    parts = []
    if self.decided:
      parts.append(self.decided)
    if self.status == "rejected" and self.text and self.kind == "tool_call":
      parts.append(f"reason: {self.text if len(self.text) <= 80 else self.text[:79] + '…'}")
    if self.kind in ("agent", "sequential", "parallel", "loop") and self.branch and "." in self.branch:
      parts.append(f"branch {self.branch}")
    if self.tokens:
      tin, tout = self.tokens
      parts.append(f"{_n(tin)} in · {_n(tout)} out tokens")
    if self.finish and self.finish not in ("STOP", "FinishReason.STOP"):
      parts.append(self.finish.lower())
    if self.cache:
      parts.append(self.cache)
    return " · ".join(parts)

  def as_node(self) -> dict[str, Any]:
    """The step as the plain dict the widgets and the static HTML draw."""
    if not self.text and self.kind == "tool_call" and self.args:
      text = self._json_of("args")  # made when a view asks, not for every call
    else:
      text = cut(self.text)
    node: dict[str, Any] = {"id": self.id, "parent": self.parent, "kind": self.kind, "title": self.title,
                            "text": text, "status": self.status}
    if self.t0 is not None:
      node["t"] = self.t0
    ms = self.ms
    if ms is not None:
      node["ms"] = ms
    meta = self.meta()
    if meta:
      node["meta"] = meta
    if self.result is not None and self.kind == "tool_call":
      node["result"] = self._json_of("result")
    elif self.result is not None and self.kind == "code":
      node["result"] = cut(str(self.result))  # the code's output, as it printed it
    if self.kind in FOLDED_KINDS:
      node["folded"] = True
    if self.sources:
      node["sources"] = [{"title": title, "href": uri if safe_href(uri) else ""} for title, uri in self.sources]
    if self.queries:
      node["queries"] = list(self.queries)
    if self.branch:
      node["branch"] = self.branch
    if self.traceback:
      node["traceback"] = self.traceback  # drawn folded under the error
    return node



def safe_href(uri: str) -> bool:
  """True for links a view may make clickable (http and https); anything else is shown as text."""
  return isinstance(uri, str) and uri.strip().lower().startswith(("http://", "https://"))


def _n(value: Optional[int]) -> str:
  return "?" if value is None else (f"{value / 1000:.1f}k" if value >= 10_000 else str(value))

