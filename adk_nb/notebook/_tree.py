"""Turns a stream of events into the nodes of the event tree, as append-only operations."""

from __future__ import annotations

import json
from typing import Any, Optional

from ..events.event import Event
from ..events.protocol import confirmation_request, is_start_marker

Op = list
"""['add', node] | ['set', node_id, fields] | ['text', node_id, chunk]"""


def to_json_text(value: Any, indent: Optional[int] = None) -> str:
  """JSON text for anything a tool or model produced (non-JSON values shown with str())."""
  try:
    return json.dumps(value, ensure_ascii=False, indent=indent, default=str)
  except (TypeError, ValueError):
    return str(value)


def jsonable(value: Any) -> Any:
  """`value` as plain JSON data (what widgets can carry)."""
  try:
    return json.loads(json.dumps(value, default=str))
  except (TypeError, ValueError):
    return str(value)


def short_args(args: dict[str, Any], limit: int = 80) -> str:
  """`a=1, b='x'` cut to `limit` characters, for a one-line title."""
  text = ", ".join(f"{k}={to_json_text(v)}" for k, v in (args or {}).items())
  return text if len(text) <= limit else text[:limit - 1] + "…"


class TreeBuilder:
  """Keeps the tree's nodes and records each change as an operation the browser replays.

  A node is a flat dict: id, parent, kind (invocation, agent, user, text, call, pause,
  transfer, escalate, error, state, decision), title, text, status, result, delta, t, ms.
  """

  def __init__(self) -> None:
    self.nodes: list[dict[str, Any]] = []
    self.index: dict[str, dict[str, Any]] = {}
    self.ops: list[Op] = []
    self._agent_of: dict[tuple[str, str, str], str] = {}
    self._last_agent: dict[str, str] = {}
    self._call_time: dict[str, float] = {}
    self._last_time: dict[str, float] = {}

  # ---- low level ---------------------------------------------------------------------------

  def _add(self, node_id: str, parent: Optional[str], kind: str, title: str, **fields: Any) -> dict[str, Any]:
    node = {"id": node_id, "parent": parent, "kind": kind, "title": title, "text": "", "status": ""}
    node.update(fields)
    self.nodes.append(node)
    self.index[node_id] = node
    self.ops.append(["add", node])
    return node

  def _set(self, node_id: str, **fields: Any) -> None:
    node = self.index.get(node_id)
    if node is None:
      return
    node.update(fields)
    ops = self.ops
    # Several changes to one node within a batch travel as one operation.
    if ops and ops[-1][0] == "set" and ops[-1][1] == node_id:
      ops[-1][2].update(fields)
    elif ops and ops[-1][0] == "add" and ops[-1][1] is node:
      pass
    else:
      ops.append(["set", node_id, dict(fields)])

  def _append_text(self, node_id: str, chunk: str) -> None:
    node = self.index[node_id]
    node["text"] += chunk
    ops = self.ops
    if ops and ops[-1][0] == "text" and ops[-1][1] == node_id:
      ops[-1][2] += chunk
    elif ops and ops[-1][0] == "add" and ops[-1][1] is node:
      pass
    else:
      ops.append(["text", node_id, chunk])

  def take_ops(self) -> list[Op]:
    """The operations since the last call (and forgets them)."""
    ops, self.ops = self.ops, []
    # 'add' carries the live node dict: freeze a copy so later changes travel as their own ops.
    return [["add", dict(op[1])] if op[0] == "add" else op for op in ops]

  # ---- structure ---------------------------------------------------------------------------

  def _invocation(self, event: Event) -> str:
    inv = event.invocation_id or "-"
    node_id = f"inv:{inv}"
    if node_id not in self.index:
      self._add(node_id, None, "invocation", f"invocation {inv[:12]}", t=event.timestamp)
    return node_id

  def _agent(self, event: Event) -> str:
    inv_node = self._invocation(event)
    inv = event.invocation_id or "-"
    branch = event.branch or ""
    key = (inv, event.author, branch)
    node_id = self._agent_of.get(key)
    if node_id is None:
      parent = inv_node
      # Nest a branch under the agent whose branch is its longest prefix (parallel children).
      best = -1
      for (i, _author, b), nid in self._agent_of.items():
        if i == inv and branch and b != branch and branch.startswith(b + ".") and len(b) > best:
          best, parent = len(b), nid
      node_id = f"agent:{len(self.nodes)}"
      self._add(node_id, parent, "agent", event.author, branch=branch, t=event.timestamp)
      self._agent_of[key] = node_id
    return node_id

  def _latency_ms(self, event: Event) -> Optional[float]:
    inv = event.invocation_id or "-"
    previous = self._last_time.get(inv)
    self._last_time[inv] = event.timestamp
    return None if previous is None else round((event.timestamp - previous) * 1000, 1)

  # ---- events ------------------------------------------------------------------------------

  def add_event(self, event: Event) -> None:
    """Adds what `event` shows to the tree (partial events grow their text node in place)."""
    if is_start_marker(event):
      return  # the at-most-once marker is bookkeeping, not a step
    if event.author == "user":
      self._add_user(event)
      return
    parent = self._agent(event)
    node_text_id = f"ev:{event.id}"
    text = event.text
    if event.partial:
      if text:
        if node_text_id in self.index:
          self._append_text(node_text_id, text)
        else:
          self._add(node_text_id, parent, "text", "model", text=text, status="streaming", t=event.timestamp)
      return
    ms = self._latency_ms(event)
    if text:
      if node_text_id in self.index:
        node = self.index[node_text_id]
        fields: dict[str, Any] = {"status": "ok", "ms": ms}
        if node["text"] != text:
          fields["text"] = text
        self._set(node_text_id, **fields)
      else:
        self._add(node_text_id, parent, "text", "model", text=text, status="ok", t=event.timestamp, ms=ms)
    long_running = event.long_running_tool_ids or set()
    for call in event.get_function_calls():
      args = dict(call.args or {})
      self._call_time[call.id or ""] = event.timestamp
      request = confirmation_request(call)
      if request is not None:
        original = request.original
        self._add(f"call:{call.id}", parent, "pause",
                  f"waiting for approval: {original.name or '?'}({short_args(original.args or {})})",
                  text=request.hint, status="pending", t=event.timestamp, tool=original.name or "")
      else:
        self._add(f"call:{call.id}", parent, "call", f"{call.name}({short_args(args)})",
                  text=to_json_text(args, indent=2), tool=call.name, t=event.timestamp,
                  status="pending" if call.id in long_running else "running")
    waiting = event.actions.requested_tool_confirmations
    for response in event.get_function_responses():
      if waiting and response.id in waiting:
        self._set(f"call:{response.id}", status="needs approval")
        continue
      self._answer(response.id, response.name, response.response, event.timestamp)
    actions = event.actions
    if actions.transfer_to_agent:
      self._add(f"tr:{event.id}", parent, "transfer", f"transfer to {actions.transfer_to_agent}",
                text=actions.transfer_reason or "", t=event.timestamp)
    if actions.escalate:
      self._add(f"esc:{event.id}", parent, "escalate", "escalate", t=event.timestamp)
    if actions.state_delta:
      self._add(f"st:{event.id}", parent, "state", "state " + ", ".join(sorted(actions.state_delta)),
                text=to_json_text(actions.state_delta, indent=2), t=event.timestamp)
    if event.error_code or event.error_message:
      self._add(f"err:{event.id}", parent, "error", f"error {event.error_code or ''}".strip(),
                text=event.error_message or "", status="error", t=event.timestamp)

  def add_user_message(self, invocation_id: str, content: Any, state_delta: Optional[dict[str, Any]],
                       timestamp: float) -> None:
    """Shows the message a run was started or resumed with (the Runner stores it without yielding it)."""
    from ..events.event_actions import EventActions

    self._add_user(Event(invocation_id=invocation_id, author="user", content=content, timestamp=timestamp,
                         actions=EventActions(state_delta=dict(state_delta or {}))))

  def _add_user(self, event: Event) -> None:
    inv_node = self._invocation(event)
    self._last_time[event.invocation_id or "-"] = event.timestamp
    answered = False
    for response in event.get_function_responses():
      answered = True
      self._answer(response.id, response.name, response.response, event.timestamp)
    text = event.text
    if text or not answered:
      self._add(f"ev:{event.id}", inv_node, "user", "user", text=text, t=event.timestamp)
    if event.actions.state_delta:
      self._add(f"st:{event.id}", inv_node, "state", "state " + ", ".join(sorted(event.actions.state_delta)),
                text=to_json_text(event.actions.state_delta, indent=2), t=event.timestamp)

  def _answer(self, call_id: Optional[str], name: Optional[str], response: Any, when: float) -> None:
    node_id = f"call:{call_id}"
    node = self.index.get(node_id)
    if node is None:
      return
    started = self._call_time.get(call_id or "")
    ms = None if started is None else round((when - started) * 1000, 1)
    if node["kind"] == "pause":
      confirmed = isinstance(response, dict) and response.get("confirmed") is True
      self._set(node_id, status="approved" if confirmed else "rejected", result=to_json_text(response), ms=ms)
      return
    failed = isinstance(response, dict) and "error" in response and len(response) == 1
    self._set(node_id, status="error" if failed else "ok", result=to_json_text(response, indent=2), ms=ms)

  def add_decision(self, node_id: str, title: str, text: str, invocation_id: str) -> None:
    """Marks a decision (who approved or rejected what) in the tree."""
    parent = f"inv:{invocation_id or '-'}"
    self._add(node_id, parent if parent in self.index else None, "decision", title, text=text)
