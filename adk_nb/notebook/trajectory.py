"""A run as a table: one row per step, for pandas."""

from __future__ import annotations

from typing import Any, Iterable, Optional

from ..events.event import Event
from ..events.protocol import confirmation_request, is_start_marker

COLUMNS = ["invocation", "author", "branch", "kind", "tool", "arguments", "result", "text", "state_delta",
           "latency", "timestamp"]
"""kind is one of: user, model, tool_call, confirmation, transfer, escalate, error, state, decision.
latency is in seconds: for a tool call, from the call to its result; otherwise since the previous step."""


def trajectory_rows(events: Iterable[Event], decisions: Iterable[dict[str, Any]] = ()) -> list[dict[str, Any]]:
  """The steps of a run as dicts (the rows of `trajectory_frame`)."""
  rows: list[dict[str, Any]] = []
  calls: dict[str, dict[str, Any]] = {}
  previous: dict[str, float] = {}

  def row(event: Event, kind: str, **fields: Any) -> dict[str, Any]:
    inv = event.invocation_id
    before: Optional[float] = previous.get(inv)
    out = {"invocation": inv, "author": event.author, "branch": event.branch, "kind": kind, "tool": None,
           "arguments": None, "result": None, "text": None, "state_delta": None,
           "latency": None if before is None else event.timestamp - before, "timestamp": event.timestamp}
    out.update(fields)
    rows.append(out)
    return out

  for event in events:
    if event.partial or is_start_marker(event):
      continue
    first: Optional[dict[str, Any]] = None
    delta = dict(event.actions.state_delta) or None
    if event.text:
      first = row(event, "user" if event.author == "user" else "model", text=event.text)
    for call in event.get_function_calls():
      args = dict(call.args or {})
      request = confirmation_request(call)
      if request is not None:
        r = row(event, "confirmation", tool=request.original.name, arguments=request.original.args,
                text=request.hint or None)
      else:
        r = row(event, "tool_call", tool=call.name, arguments=args)
      r["latency"] = None
      calls[call.id or ""] = r
      first = first or r
    for response in event.get_function_responses():
      r = calls.get(response.id or "")
      if r is not None:
        r["result"] = response.response
        r["latency"] = event.timestamp - r["timestamp"]
    if event.actions.transfer_to_agent:
      first = first or row(event, "transfer", text=event.actions.transfer_to_agent)
    if event.actions.escalate:
      first = first or row(event, "escalate")
    if event.error_code or event.error_message:
      first = first or row(event, "error", text=f"{event.error_code}: {event.error_message}")
    if delta:
      if first is None:
        first = row(event, "state")
      first["state_delta"] = delta
    previous[event.invocation_id] = event.timestamp
  for decision in decisions:
    rows.append({"invocation": decision.get("invocation_id"), "author": decision.get("by"), "branch": None,
                 "kind": "decision", "tool": decision.get("tool"), "arguments": decision.get("args"),
                 "result": decision.get("decision"), "text": decision.get("reason") or None, "state_delta": None,
                 "latency": None, "timestamp": decision.get("timestamp")})
  rows.sort(key=lambda r: r["timestamp"] if r["timestamp"] is not None else float("inf"))
  return rows


def trajectory_frame(events: Iterable[Event], decisions: Iterable[dict[str, Any]] = ()):
  """The run as a pandas DataFrame with COLUMNS, one row per step, in order."""
  import pandas as pd

  return pd.DataFrame(trajectory_rows(events, decisions), columns=COLUMNS)
