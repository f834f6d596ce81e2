"""Offline helpers for testing agents: the scripted model, one-call turns, pending answers, and
`summarize` for comparing whole event streams instead of picking events by position."""

from __future__ import annotations

from typing import Any, Optional, Union

from google.genai import types

from .events.event import Event
from .events.protocol import confirmation_request, interrupted_ids, is_start_marker, nested_pause
from .models.scripted import ScriptedModel, ScriptExhausted, call
from .pending import PendingItem, answer_message, pending_items

__all__ = ["ScriptedModel", "ScriptExhausted", "answer", "call", "llm_request", "orphan_calls", "pending",
           "run_turn", "session_of", "summarize", "user_message"]

WEATHER = types.FunctionDeclaration(
    name="get_weather", description="Weather for a city.",
    parameters_json_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
"""A one-argument tool declaration, for tests of what a model adapter sends."""


def user_message(content: Union[str, types.Content, list[types.Part]]) -> types.Content:
  """A user Content from text, parts or a Content."""
  if isinstance(content, types.Content):
    return content
  if isinstance(content, str):
    return types.Content(role="user", parts=[types.Part(text=content)])
  return types.Content(role="user", parts=list(content))


def llm_request(model: str, *contents: types.Content, tools: Any = (), **config: Any) -> Any:
  """An LlmRequest for testing a model adapter: `contents`, the given function declarations, and
  any GenerateContentConfig fields (`system_instruction=...`, `temperature=...`)."""
  from .models.llm_request import LlmRequest

  return LlmRequest(model=model, contents=list(contents), config=types.GenerateContentConfig(
      tools=[types.Tool(function_declarations=list(tools))] if tools else None, **config))


async def run_turn(
    runner: Any,
    message: Union[str, types.Content, list[types.Part], None],
    *,
    user_id: str = "user",
    session_id: str = "session",
    state_delta: Optional[dict[str, Any]] = None,
    run_config: Any = None,
    include_partial: bool = False,
) -> list[Event]:
  """Runs one turn (creating the session on first use) and returns its events.

  The list holds the user's message as committed to the session (the Runner stores it but, as
  in ADK, does not yield it) followed by everything the run yielded. Answers the Runner records
  first for calls an earlier run left open come before the message, as in the session.
  """
  service = runner.session_service
  session = await service.get_session(app_name=runner.app_name, user_id=user_id, session_id=session_id)
  if session is None:
    session = await service.create_session(app_name=runner.app_name, user_id=user_id, session_id=session_id)
  before = len(session.events)
  events = []
  async for event in runner.run_async(
      user_id=user_id, session_id=session_id,
      new_message=None if message is None else user_message(message),
      state_delta=state_delta, run_config=run_config,
  ):
    if include_partial or not event.partial:
      events.append(event)
  if message is not None or state_delta:
    after = await service.get_session(app_name=runner.app_name, user_id=user_id, session_id=session_id)
    # After any answers recorded for calls an earlier run left open (committed and yielded first).
    for offset, event in enumerate(after.events[before:]):
      if event.author == "user":
        events.insert(offset, event)
        break
  return events


async def session_of(runner: Any, session_id: str = "session", user_id: str = "user") -> Any:
  """The session as the runner's store holds it now."""
  return await runner.session_service.get_session(app_name=runner.app_name, user_id=user_id, session_id=session_id)


async def pending(runner: Any, session_id: str = "session", user_id: str = "user") -> list[PendingItem]:
  """What the session waits for (see `adk_nb.pending.pending_items`)."""
  return pending_items((await session_of(runner, session_id, user_id)).events)


async def answer(runner: Any, parts: list[types.Part], session_id: str = "session", **kwargs: Any) -> list[Event]:
  """Sends answers to pending calls (one message) and returns the turn's events, as `run_turn`."""
  return await run_turn(runner, answer_message(parts), session_id=session_id, **kwargs)


Step = tuple[str, str, str]
"""(author, kind, detail): one thing an event shows, in the words `summarize` uses."""


def summarize(events: list[Event]) -> list[Step]:
  """What a stream of events shows, as (author, kind, detail) tuples, to compare whole streams.

  kinds: 'text' (detail: the text), 'call' and 'result' (the tool), 'confirm' (the tool a
  confirmation request guards), 'needs_approval' (a placeholder answer), 'interrupted' (an
  answer for a call whose outcome is unknown), 'started' (the at-most-once marker),
  'nested' (calls raised from an AgentTool, comma-separated), 'transfer' (the target),
  'escalate', 'state' (changed keys, comma-separated), 'checkpoint', 'error' (the code).
  Ids and timestamps are left out, so the list is stable from run to run. Partial events are
  skipped.
  """
  steps: list[Step] = []
  for event in events:
    if event.partial:
      continue
    who = event.author
    if is_start_marker(event):
      steps.append((who, "started", ""))
      continue
    nested = nested_pause(event)
    if nested is not None:
      steps.append((who, "nested", ",".join(c.name or "" for c in event.get_function_calls())))
      continue
    if event.text:
      steps.append((who, "text", event.text))
    for call_ in event.get_function_calls():
      request = confirmation_request(call_)
      steps.append((who, "confirm", request.original.name or "") if request else (who, "call", call_.name or ""))
    placeholders = event.actions.requested_tool_confirmations or {}
    interrupted = interrupted_ids(event)
    for response in event.get_function_responses():
      kind = ("needs_approval" if response.id in placeholders
              else "interrupted" if response.id in interrupted else "result")
      steps.append((who, kind, response.name or ""))
    actions = event.actions
    if actions.transfer_to_agent:
      steps.append((who, "transfer", actions.transfer_to_agent))
    if actions.escalate:
      steps.append((who, "escalate", ""))
    if actions.state_delta:
      steps.append((who, "state", ",".join(sorted(actions.state_delta))))
    if actions.agent_state is not None:
      steps.append((who, "checkpoint", ""))
    if event.error_code:
      steps.append((who, "error", event.error_code))
  return steps


def orphan_calls(request: Any) -> list[str]:
  """The names of function calls in a model request (or a list of Contents) with no answer after them.

  Providers speaking OpenAI's protocol reject such a request; adk_nb never sends one.
  """
  contents = getattr(request, "contents", request)
  open_calls: dict[str, str] = {}
  for content in contents:
    for part in content.parts or ():
      if part.function_call is not None:
        open_calls[part.function_call.id or ""] = part.function_call.name or ""
      elif part.function_response is not None:
        open_calls.pop(part.function_response.id or "", None)
  return list(open_calls.values())
