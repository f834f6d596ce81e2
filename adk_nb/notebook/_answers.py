"""Answering a paused run: which calls an answer names, what it sends, and what it records.

The pure part of `LiveRun.decide` (and of the approval policy, which answers the same way):
`select` finds the pending calls `which` names, `check` refuses an answer that does not fit
them, and `answer(items, action, value, by=...)` gives the FunctionResponse parts to send and
one `Decision` per call. Nothing here touches a run, a loop or a store, except `find_tools`
and `check_edit`, which look the paused tools up to validate edited arguments.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Mapping, Optional, Union

from google.genai import types

from ..events.protocol import REQUEST_INPUT, node_confirmation
from ..inspect.text import jsonable, short_args
from ..pending import PendingItem, confirmation_response, tool_response
from ..tools.base_tool import BaseTool

Action = Literal["approve", "reject", "edit", "respond"]
ACTIONS: tuple[str, ...] = ("approve", "reject", "edit", "respond")
Which = Union[None, str, int, PendingItem]


@dataclass(frozen=True)
class Decision:
  """One answer given to a paused call: what was decided, by whom, when (an entry of `LiveRun.decisions`).

  Read its fields (`d.by`, `d.decision`); `d["by"]` and `d.get("by")` also work, as they did
  when decisions were dicts.
  """

  call_id: str
  """The answered call (for a confirmation: the `adk_request_confirmation` call's id)."""
  tool: str
  """The tool the call is for."""
  args: dict[str, Any] = field(default_factory=dict)
  """The call's arguments as the model gave them (JSON-safe)."""
  decision: str = ""
  """'approved', 'rejected', 'approved with edits' or 'responded'."""
  status: str = ""
  """What the step shows: 'approved', 'rejected' or 'responded' (edits are approvals)."""
  by: str = ""
  """Who decided: 'code', 'button', 'policy:auto', 'policy:deny', or what the caller passed."""
  reason: str = ""
  """A rejection's reason, or the edited arguments as JSON."""
  invocation_id: str = ""
  """The invocation the answer resumes."""
  timestamp: float = 0.0
  """When the answer was given (seconds since the epoch)."""
  answer: Any = None
  """The result sent to a long-running call or a workflow's question (None for confirmations)."""

  @property
  def title(self) -> str:
    """One line for the tree and the log: 'approved by button: refund(order_id='A1', ...)'."""
    if self.tool == REQUEST_INPUT:  # a workflow's question: the question, not the protocol call
      return f"{self.decision} by {self.by}: {self.args.get('message') or 'input'}"
    return f"{self.decision} by {self.by}: {self.tool}({short_args(self.args, 60)})"

  def __getitem__(self, key: str) -> Any:
    if key not in _FIELDS:
      raise KeyError(key)
    return getattr(self, key)

  def get(self, key: str, default: Any = None) -> Any:
    return getattr(self, key) if key in _FIELDS else default

  def as_dict(self) -> dict[str, Any]:
    """The decision as a plain dict (the shape `run.decisions` had before it held Decisions)."""
    return asdict(self)

  @classmethod
  def of(cls, value: Union["Decision", Mapping[str, Any]]) -> "Decision":
    """A Decision from a Decision or a dict of its fields (e.g. one saved as JSON); unknown keys are ignored."""
    if isinstance(value, Decision):
      return value
    fields = {k: v for k, v in value.items() if k in _FIELDS}
    fields.setdefault("status", status_of(str(fields.get("decision", ""))))
    return cls(**fields)


_FIELDS = frozenset(Decision.__dataclass_fields__)

_PHRASES = {"approve": "approved", "reject": "rejected", "edit": "approved with edits", "respond": "responded"}
_STATUSES = {"approve": "approved", "reject": "rejected", "edit": "approved", "respond": "responded"}


def status_of(decision: str) -> str:
  """The step status of a decision phrase (only for decisions saved without their status)."""
  return {"approved with edits": "approved"}.get(decision, decision if decision in _STATUSES.values() else "")


# ---- which calls ------------------------------------------------------------------------------

def _how_to(item: PendingItem) -> str:
  return "respond(...)." if item.kind == "long_running" else "approve() or reject()."


def select(pending: list[PendingItem], which: Which, kind: str, many: bool, status: str) -> list[PendingItem]:
  """The pending calls of `kind` that `which` names (a call id, a tool name, an index or a PendingItem;
  None: all of them when `many`, else the only one). Raises ValueError naming what is pending."""
  candidates = [p for p in pending if p.kind == kind]
  what = "confirmation" if kind == "confirmation" else "long-running call"
  if not candidates:
    others = [p for p in pending if p.kind != kind]
    hint = (f" It waits for {others[0].kind.replace('_', '-')} call {others[0].tool!r}: use "
            + _how_to(others[0])) if others else ""
    raise ValueError(f"No {what} is pending in this run (status: {status}).{hint}")
  if which is None:
    if many or len(candidates) == 1:
      return candidates
    raise ValueError(f"{len(candidates)} {what}s are pending ({', '.join(p.tool for p in candidates)}); "
                     "pass which=<call id, tool name or index>.")
  if isinstance(which, PendingItem):
    found = [p for p in candidates if p.call_id == which.call_id]
  elif isinstance(which, int):
    found = [candidates[which]] if -len(candidates) <= which < len(candidates) else []
  else:
    found = [p for p in candidates if which in (p.call_id, p.original_call_id)] or \
            [p for p in candidates if p.tool == which]
  if not found:
    raise ValueError(f"No pending {what} matches {which!r}; pending: "
                     + ", ".join(f"{p.tool} ({p.call_id})" for p in candidates) + ".")
  if len(found) > 1 and not many:
    raise ValueError(f"{len(found)} pending calls match {which!r}; pass the call id instead.")
  return found


def check(pending: list[PendingItem], items: list[PendingItem], action: str) -> None:
  """Raises ValueError (naming the fix) when `action` cannot answer `items` now; nothing is sent."""
  if action not in _PHRASES:
    raise ValueError(f"Unknown action {action!r}; use one of: {', '.join(ACTIONS)}.")
  if not items:
    raise ValueError("Nothing to answer: pass a pending item (from `run.pending`).")
  kind = "long_running" if action == "respond" else "confirmation"
  for one in items:
    if not any(p.call_id == one.call_id for p in pending):
      raise ValueError(f"{one.tool} ({one.call_id}) is not pending any more; pending: "
                       + (", ".join(f"{p.tool} ({p.call_id})" for p in pending) or "nothing") + ".")
    if one.kind != kind:
      raise ValueError(f"{one.tool} is a {one.kind.replace('_', '-')} call: use " + _how_to(one))
  if action in ("edit", "respond") and len(items) != 1:
    raise ValueError(f"{'Edit' if action == 'edit' else 'Respond to'} one call at a time; pass a single pending item.")


# ---- what an answer sends and records ----------------------------------------------------------

def answer(items: list[PendingItem], action: str, value: Any = None, *, by: str,
           when: float) -> tuple[list[types.Part], list[Decision]]:
  """The FunctionResponse parts that answer `items` with `action`, and the Decision of each.

  `value`: for 'approve' the confirmation's payload, for 'reject' the reason, for 'edit' the
  edited arguments (checked before, see `check_edit`), for 'respond' the call's result.
  Assumes `check` passed.
  """
  reason = ""
  if action == "approve":
    parts = [confirmation_response(i, True, value) for i in items]
  elif action == "reject":
    reason = value or ""
    parts = [confirmation_response(i, False, {"reason": reason} if reason else None) for i in items]
  elif action == "edit":
    parts = [confirmation_response(items[0], True, {"arguments": dict(value)})]
    reason = json.dumps(value, default=str)
  else:
    parts = [tool_response(items[0], value)]
  decisions = []
  for one in items:
    phrase, status = _PHRASES[action], _STATUSES[action]
    if action == "respond" and isinstance(value, dict) and node_confirmation(one.call_id, one.args):
      phrase = status = "approved" if value.get("confirmed") else "rejected"  # a workflow node's approval
    decisions.append(Decision(call_id=one.call_id, tool=one.tool, args=jsonable(one.args), decision=phrase,
                              status=status, by=by, reason=reason, invocation_id=one.invocation_id,
                              timestamp=when, answer=value if action == "respond" else None))
  return parts, decisions


# ---- edited arguments (these look the paused tools up) -----------------------------------------

async def find_tools(agent: Any, pending: list[PendingItem], log: Any) -> dict[str, Union[BaseTool, str]]:
  """The tool of each pending confirmation, by call id, or why it was not found (for `check_edit`)."""
  from ..tools.catalog import find_tool

  tools: dict[str, Union[BaseTool, str]] = {}
  for item in pending:
    if item.kind != "confirmation":
      continue
    owner = agent.find_agent(item.agent)
    try:
      tool = None if owner is None else await find_tool(owner, item.tool)
    except Exception as exc:  # noqa: BLE001 - e.g. an MCP server that does not start: edits are refused
      log.warning("adk_nb: could not list the tools of %s: %s", item.agent, exc, exc_info=exc)
      tools[item.call_id] = f"listing the tools of agent {item.agent!r} failed: {type(exc).__name__}: {exc}"
      continue
    tools[item.call_id] = tool if tool is not None else (
        f"agent {item.agent!r} does not offer a tool named {item.tool!r} any more")
  return tools


def check_edit(tool: Optional[Union[BaseTool, str]], item: PendingItem, arguments: Any) -> None:
  """Raises ValueError naming the problem when edited `arguments` do not fit `tool` (or it is unknown)."""
  if not isinstance(arguments, dict):
    raise ValueError(f"Edited arguments for {item.tool} must be a dict, e.g. {item.args!r}.")
  if not isinstance(tool, BaseTool):
    raise ValueError(f"Cannot check edited arguments for {item.tool}: {tool or 'its tool was not looked up'}. "
                     "Approve it unchanged or reject it.")
  try:
    tool.validate_args(arguments)
  except ValueError as exc:
    raise ValueError(f"Edited arguments rejected for {item.tool}: {exc}") from None
