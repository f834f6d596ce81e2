"""Resuming a paused LlmAgent: run the calls a person approved (at most once) or answer rejections."""

from __future__ import annotations

from typing import TYPE_CHECKING, AsyncGenerator, Optional

from google.genai import types

from ..events.event import Event
from ..events.event_actions import EventActions
from ..events.protocol import GATED_KEY, INTERRUPTED_KEY, confirmation_request, nested_pause, start_marker
from ..pending import call_progress, invocation_tail, pending_items
from ..tools.agent_tool import NestedPause
from ..tools.tool_confirmation import ToolConfirmation
from ..tools.tool_context import ToolContext
from . import _functions

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext
  from ..agents.llm_agent import LlmAgent


def parse_confirmation(response: Optional[dict]) -> tuple[ToolConfirmation, Optional[str]]:
  """A person's answer as a ToolConfirmation. Anything malformed is a rejection (fail closed)."""
  try:
    confirmation = ToolConfirmation.from_response_dict(response or {})
  except Exception as exc:  # noqa: BLE001 - any malformed answer must reject, never approve
    return ToolConfirmation(confirmed=False), f"Malformed confirmation answer ({exc}); treated as a rejection."
  if not isinstance((response or {}).get("confirmed", confirmation.confirmed), bool):
    return ToolConfirmation(confirmed=False), "The answer's 'confirmed' must be true or false; treated as a rejection."
  return confirmation, None


def _find_requests(agent: "LlmAgent", ctx: "InvocationContext"
                   ) -> tuple[dict[str, types.FunctionCall], frozenset]:
  """(confirmation request id -> original function call, for this agent's pending requests;
  ids of the original calls whose approval require_confirmation asked for when they paused)."""
  found: dict[str, types.FunctionCall] = {}
  gated: set[str] = set()
  answers = ctx.resume_answers
  # The whole invocation, not only its last stretch: the person may answer after later turns.
  for event in reversed(invocation_tail(ctx.session, ctx.invocation_id)):
    if event.invocation_id != ctx.invocation_id:
      continue
    if event.author != agent.name or not event.long_running_tool_ids:
      continue
    if nested_pause(event) is not None:
      continue  # raised from an AgentTool: resumed by resume_nested_calls
    asked = (event.custom_metadata or {}).get(GATED_KEY) or ()
    for call in event.get_function_calls():
      request = confirmation_request(call)
      if request is not None and call.id in answers:
        found[call.id] = request.original
        if request.original.id in asked:
          gated.add(request.original.id)
  return found, frozenset(gated)


async def resume_confirmed_calls(agent: "LlmAgent", ctx: "InvocationContext") -> AsyncGenerator[Event, None]:
  """Runs the originally requested calls whose confirmation answers arrived, then lets the loop continue.

  Guarantees: a rejected call whose approval `require_confirmation` asked for never runs, even
  when the tool's code no longer asks (fail closed; a tool that asked itself through
  `tool_context.request_confirmation` is called again and reads the rejection, as in ADK).
  An approved call runs at most once. Before the tool runs, a marker event is
  committed; a retried resume that finds the call answered does nothing, and one that finds
  only the marker (the process died while the tool ran) answers the model that the outcome
  is unknown instead of running the tool a second time.
  """
  requests, gated = _find_requests(agent, ctx)
  if not requests:
    return
  tools = {t.name: t for t in await agent.canonical_tools(ctx)}
  confirmations: dict[str, ToolConfirmation] = {}
  calls: list[types.FunctionCall] = []
  notes: list[types.Part] = []
  interrupted: list[str] = []
  done, started = call_progress(invocation_tail(ctx.session, ctx.invocation_id))
  for request_id, original in requests.items():
    answer = ctx.resume_answers.pop(request_id)
    confirmation, problem = parse_confirmation(answer.response)
    if original.id in done:
      continue
    if original.id in started:
      interrupted.append(original.id)
      notes.append(types.Part(function_response=types.FunctionResponse(
          id=original.id, name=original.name,
          response={"error": f"`{original.name}` was started before an interruption and may have "
                             "run; it was not run again. Check its effect before retrying."})))
      continue
    if problem:
      notes.append(types.Part(function_response=types.FunctionResponse(
          id=original.id, name=original.name, response={"error": problem})))
      continue
    if confirmation.confirmed and isinstance(confirmation.payload, dict) and "arguments" in confirmation.payload:
      original = original.model_copy(update={"args": confirmation.payload["arguments"]})
    confirmations[original.id] = confirmation
    calls.append(original)
  if notes:
    yield Event(invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch,
                content=types.Content(role="user", parts=notes),
                custom_metadata={INTERRUPTED_KEY: interrupted} if interrupted else None)
  if not calls:
    return
  approved = [c.id for c in calls if confirmations[c.id].confirmed]
  if approved:
    # Committed by the Runner before the tool runs: the at-most-once marker.
    for call_id in approved:
      yield Event(invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch,
                  custom_metadata=start_marker(call_id))
  results = await _functions.handle_function_calls(agent, ctx, calls, tools, confirmations, gated=gated)
  async for event in _functions.emit_results(ctx, results):
    yield event


async def resume_nested_calls(agent: "LlmAgent", ctx: "InvocationContext") -> AsyncGenerator[Event, None]:
  """Hands answers for calls raised from an AgentTool back to that tool, which continues its agent.

  At most once, as for approved calls: a start marker for each answer is committed before the
  tool continues its agent; a retried answer that finds its marker (the process died or the
  run was cancelled meanwhile) answers the AgentTool call with "may have run" instead of
  continuing the nested agent a second time.
  """
  answers = ctx.resume_answers
  if not answers:
    return
  tools = {t.name: t for t in await agent.canonical_tools(ctx)}
  calls: list[types.FunctionCall] = []
  outcomes = []
  interrupted: list[str] = []
  tail = invocation_tail(ctx.session, ctx.invocation_id)
  _, started = call_progress(tail)
  for event in reversed(tail):
    if event.invocation_id != ctx.invocation_id:
      continue
    nested = nested_pause(event)
    if event.author != agent.name or nested is None:
      continue
    mine = [answers.pop(i) for i in sorted(event.long_running_tool_ids or ()) if i in answers]
    if not mine:
      continue
    tool_call = types.FunctionCall.model_validate(nested["tool_call"])
    tool = tools.get(tool_call.name)
    if tool is None or not hasattr(tool, "resume"):
      raise ValueError(f"Agent {agent.name!r} no longer has the agent tool {tool_call.name!r} that paused.")
    calls.append(tool_call)
    if any(answer.id in started for answer in mine):
      outcomes.append(_functions.CallOutcome(_may_have_run(tool_call), EventActions()))
      interrupted.append(tool_call.id)
      continue
    for answer in mine:  # committed by the Runner before the nested agent continues
      yield Event(invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch,
                  custom_metadata=start_marker(answer.id))
    actions = EventActions()
    tc = ToolContext(ctx, function_call_id=tool_call.id, event_actions=actions)
    result = await tool.resume(nested, mine, tc)
    if isinstance(result, NestedPause):
      outcomes.append(_functions.CallOutcome(None, actions, paused=True, nested=result))
    else:
      outcomes.append(_functions.CallOutcome(_functions._response_part(tool_call, result), actions))
  if not outcomes:
    return
  results = await _functions.handle_function_calls(agent, ctx, calls, tools, outcomes=outcomes)
  if results.event is not None and interrupted:
    results.event.custom_metadata = {**(results.event.custom_metadata or {}), INTERRUPTED_KEY: interrupted}
  async for event in _functions.emit_results(ctx, results):
    yield event


def _may_have_run(tool_call: types.FunctionCall) -> types.Part:
  """The answer for an AgentTool call whose continuation was interrupted after it started."""
  return types.Part(function_response=types.FunctionResponse(id=tool_call.id, name=tool_call.name, response={
      "error": f"`{tool_call.name}` was continuing after an answer when the run was interrupted, and may "
               "have run (its own tools included); it was not run again. Check its effect before retrying."}))


def still_waiting(agent: "LlmAgent", ctx: "InvocationContext") -> bool:
  """True when this agent still has unanswered long-running or confirmation calls in this invocation."""
  return any(
      item.invocation_id == ctx.invocation_id and item.agent == agent.name and item.branch == ctx.branch
      for item in pending_items(invocation_tail(ctx.session, ctx.invocation_id))
  )
