"""Function-call handling at google-adk's path: the protocol call names and running a batch of calls."""

from __future__ import annotations

from typing import Any, Optional

from google.genai import types

from ...events.event import Event
from ...events.event_actions import EventActions
from ...events.protocol import REQUEST_CONFIRMATION, REQUEST_CREDENTIAL, REQUEST_INPUT
from .._functions import handle_function_calls, merge_actions
from . import not_in_adk_nb

REQUEST_CONFIRMATION_FUNCTION_CALL_NAME = REQUEST_CONFIRMATION
"""The long-running call that asks the client to approve a tool call."""
REQUEST_EUC_FUNCTION_CALL_NAME = REQUEST_CREDENTIAL
"""The long-running call that asks the client for end-user credentials."""
REQUEST_INPUT_FUNCTION_CALL_NAME = REQUEST_INPUT
"""The long-running call that asks the client for input."""


async def handle_function_calls_async(invocation_context: Any, function_call_event: Event, tools_dict: dict[str, Any],
                                      filters: Optional[set[str]] = None,
                                      tool_confirmation_dict: Optional[dict[str, Any]] = None) -> Optional[Event]:
  """Runs the function calls of `function_call_event` with `tools_dict` as the current agent would.

  Callbacks, plugins and confirmations apply as in a run. Returns the event holding the function
  responses (and the merged state and artifact deltas), or None when no call produced one.
  `filters` limits the calls run to those ids.
  """
  calls = [c for c in function_call_event.get_function_calls() if filters is None or c.id in filters]
  if not calls:
    return None
  result = await handle_function_calls(invocation_context.agent, invocation_context, calls, tools_dict,
                                       confirmations=tool_confirmation_dict)
  return result.event


def build_auth_request_event(invocation_context: Any, auth_requests: dict[str, Any], *, author: Optional[str] = None,
                             role: Optional[str] = None) -> Event:
  """The event asking the client for credentials (tool call id -> AuthConfig): one long-running
  `adk_request_credential` call per credential_key, authored by `author` (default: the current agent)."""
  from .._credentials import request_event

  return request_event(invocation_context, author or invocation_context.agent.name, auth_requests, role)


def generate_auth_event(invocation_context: Any, function_response_event: Event) -> Optional[Event]:
  """The `adk_request_credential` event for the credentials a function response event asks for; None if none."""
  from .._credentials import credential_request_event

  return credential_request_event(invocation_context, invocation_context.agent.name, function_response_event)


async def handle_function_calls_live(*args: Any, **kwargs: Any) -> Optional[Event]:
  """Live (bidirectional streaming) runs are not supported by adk_nb."""
  not_in_adk_nb("handle_function_calls_live (live runs)")


def find_matching_function_call(events: list[Event],
                                function_response_event: Optional[Event] = None) -> Optional[Event]:
  """The event that made the call answered by `function_response_event` (default: the last event)."""
  if not events:
    return None
  target = function_response_event if function_response_event is not None else events[-1]
  responses = target.get_function_responses()
  if not responses or not responses[0].id:
    return None
  call_id = responses[0].id
  search = events[:-1] if events[-1].id == target.id else events
  for event in reversed(search):
    if any(c.id == call_id for c in event.get_function_calls()):
      return event
  return None


def merge_parallel_function_response_events(function_response_events: list[Event]) -> Event:
  """One event holding the responses (and merged actions) of calls that ran in parallel."""
  if not function_response_events:
    raise ValueError("No function response events to merge; pass at least one.")
  if len(function_response_events) == 1:
    return function_response_events[0]
  first = function_response_events[0]
  parts = [p for e in function_response_events if e.content for p in (e.content.parts or [])]
  actions = EventActions()
  for event in function_response_events:
    merge_actions(actions, event.actions)
  return Event(invocation_id=first.invocation_id, author=first.author, branch=first.branch,
               content=types.Content(role="user", parts=parts), actions=actions, timestamp=first.timestamp)


__all__ = ["REQUEST_CONFIRMATION_FUNCTION_CALL_NAME", "REQUEST_EUC_FUNCTION_CALL_NAME", "REQUEST_INPUT_FUNCTION_CALL_NAME",
           "build_auth_request_event", "find_matching_function_call", "generate_auth_event", "handle_function_calls_async", "handle_function_calls_live",
           "merge_parallel_function_response_events"]
