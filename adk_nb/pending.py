"""What a paused session is waiting for, and the answers that resume it.

A pause is ADK's wire format: a long-running function call (a tool's own, or an
`adk_request_confirmation` call wrapping a tool call that needs approval) with no answer
yet. The functions here list those calls and build the FunctionResponse messages that
answer them, so code and notebooks never have to hand-write the wire format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from google.genai import types

from .events.event import Event
from .events.protocol import (REQUEST_CONFIRMATION, confirmation_request, long_running_calls, nested_pause,
                              started_call_id)


@dataclass(frozen=True)
class PendingItem:
  """One call waiting for a person (confirmation) or for an external result (long-running)."""

  call_id: str
  """The id to answer (for a confirmation: the `adk_request_confirmation` call's id)."""
  kind: str
  """'confirmation' or 'long_running'."""
  agent: str
  """The agent that made the call."""
  tool: str
  """The tool the call is for (the original tool, for confirmations)."""
  args: dict[str, Any] = field(default_factory=dict)
  """The arguments the model gave the tool."""
  hint: str = ""
  """Why approval is needed (confirmations)."""
  payload: Any = None
  """The payload the tool attached to its confirmation request."""
  invocation_id: str = ""
  """The paused invocation; answering resumes it."""
  original_call_id: Optional[str] = None
  """For confirmations: the id of the tool call being approved."""
  branch: Optional[str] = None
  nested: bool = False
  """True when the call belongs to an agent run through AgentTool (raised to this session)."""


def _item_for(event: Event, call: types.FunctionCall, nested: bool) -> PendingItem:
  """The PendingItem describing one long-running call of `event`."""
  request = confirmation_request(call)
  if request is not None:
    original = request.original
    return PendingItem(
        call_id=call.id, kind="confirmation", agent=event.author,
        tool=original.name or "", args=dict(original.args or {}),
        hint=request.hint, payload=request.payload,
        invocation_id=event.invocation_id, original_call_id=original.id,
        branch=event.branch, nested=nested,
    )
  return PendingItem(
      call_id=call.id, kind="long_running", agent=event.author, tool=call.name, args=dict(call.args or {}),
      invocation_id=event.invocation_id, branch=event.branch, nested=nested,
  )


def _long_running(event: Event):
  """(call, nested) for each long-running call of an event."""
  nested = nested_pause(event) is not None
  for call in long_running_calls(event):
    yield call, nested


def call_progress(events: Iterable[Event]) -> tuple[set[str], set[str]]:
  """(ids of calls with a real answer, ids of approved calls whose start marker was committed).

  A confirmation's placeholder answer ("requires confirmation") does not count as an answer.
  """
  answered: set[str] = set()
  started: set[str] = set()
  for event in events:
    started_id = started_call_id(event)
    if started_id is not None:
      started.add(started_id)
    placeholders = event.actions.requested_tool_confirmations
    for response in event.get_function_responses():
      if not (placeholders and response.id in placeholders):
        answered.add(response.id)
  return answered, started


def pending_items(events: Iterable[Event]) -> list[PendingItem]:
  """The unanswered long-running calls in a session's events, oldest first.

  A confirmation counts as answered only once the call it guards was acted on (it ran, was
  rejected, or its start marker was committed). An answer whose resume failed before that
  leaves the call pending, so the same answer can be sent again.
  """
  events = list(events)
  calls: dict[str, PendingItem] = {}
  answered: dict[str, PendingItem] = {}
  for event in events:
    for response in event.get_function_responses():
      item = calls.pop(response.id, None)
      if item is not None and item.kind == "confirmation" and not item.nested:
        answered[response.id] = item
    for call, nested in _long_running(event):
      calls[call.id] = _item_for(event, call, nested)
  if answered:
    done, started = call_progress(events)
    for call_id, item in answered.items():
      if item.original_call_id and item.original_call_id not in done | started:
        calls[call_id] = item
  return list(calls.values())


def interim_answered_calls(events: Iterable[Event]) -> dict[str, PendingItem]:
  """Long-running tool calls (not confirmations, not nested) by id, whether or not answered yet.

  google-adk's documented pattern: the tool answers `{'status': 'pending'}` at once and the
  client sends the final FunctionResponse with the same id later; these are the calls such a
  later answer may update.
  """
  return {call.id: _item_for(event, call, nested)
          for event in events for call, nested in _long_running(event)
          if not nested and call.name != REQUEST_CONFIRMATION}


def confirmation_response(item: PendingItem, confirmed: bool, payload: Any = None) -> types.Part:
  """The answer to a confirmation request (ADK's `adk_request_confirmation` FunctionResponse)."""
  if item.kind != "confirmation":
    raise ValueError(f"Call {item.call_id!r} ({item.tool}) is a long-running call, not a confirmation; use respond().")
  response: dict[str, Any] = {"confirmed": bool(confirmed)}
  if payload is not None:
    response["payload"] = payload
  return types.Part(function_response=types.FunctionResponse(id=item.call_id, name=REQUEST_CONFIRMATION,
                                                             response=response))


def tool_response(item: PendingItem, response: Any) -> types.Part:
  """The result of a long-running call, delivered later."""
  if item.kind != "long_running":
    raise ValueError(f"Call {item.call_id!r} asks for confirmation; use approve() or reject().")
  if not isinstance(response, dict):
    response = {"result": response}
  return types.Part(function_response=types.FunctionResponse(id=item.call_id, name=item.tool, response=response))


def answer_message(parts: list[types.Part]) -> types.Content:
  """A user message carrying answers."""
  return types.Content(role="user", parts=parts)
