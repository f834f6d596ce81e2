"""Runs the function calls of a model turn and builds the function response event."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, AsyncGenerator, NamedTuple, Optional

from google.genai import types
from pydantic import BaseModel

from ..agents import _callbacks
from ..events.event import Event, new_uuid4
from ..events.event_actions import EventActions
from ..events.protocol import GATED_KEY, NESTED_KEY, confirmation_request_call
from ..events.protocol import MALFORMED_ARGUMENTS_KEY as MALFORMED_ARGUMENTS
from ..sessions import json_form
from ..tools.agent_tool import NestedPause
from ..tools._function_schema import ToolArgumentsError
from ..tools.tool_confirmation import (NEEDS_CONFIRMATION_RESPONSE, REJECTED_RESPONSE, ToolConfirmation,
                                       approval_hint)
from ..telemetry import tracing
from ..tools.tool_context import ToolContext
from ..utils.trusted import trusted
from ._tool_media import computer_use_image, split_media

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext
  from ..agents.llm_agent import LlmAgent
  from ..tools.base_tool import BaseTool

tool_logger = logging.getLogger("adk_nb.tools")
"""Where tool exceptions are logged, with their traceback."""

NEEDS_CONFIRMATION = NEEDS_CONFIRMATION_RESPONSE
REJECTED = REJECTED_RESPONSE


def rejection(confirmation: ToolConfirmation) -> dict[str, Any]:
  """ADK's rejection answer, plus the person's reason when they gave one (payload {'reason': ...})."""
  payload = confirmation.payload
  if isinstance(payload, dict) and isinstance(payload.get("reason"), str) and payload["reason"].strip():
    return {**REJECTED, "reason": payload["reason"].strip()}
  return REJECTED


def new_function_call_id() -> str:
  """An id for a function call the model sent without one ('adk-' + uuid, as ADK)."""
  return "adk-" + new_uuid4()


def populate_call_ids(event: Event) -> None:
  """Gives every function call in a model event an id, so its answer can be matched."""
  for call in event.get_function_calls():
    if not call.id:
      call.id = new_function_call_id()


@dataclass(slots=True)
class CallOutcome:
  """What one function call came to: its response part (None while it waits) and its actions."""

  part: Optional[types.Part]
  actions: EventActions
  paused: bool = False
  nested: Optional[NestedPause] = None
  gated: bool = False  # paused because require_confirmation asked (not the tool itself)


class CallResults(NamedTuple):
  """What running a turn's function calls produced."""

  event: Optional[Event]
  """The function response event (None when every call is still pending)."""
  paused: bool
  """True when some call waits for a person or an external answer."""
  surfaced: list[Event]
  """Pending calls of agents run through AgentTool, raised to this invocation."""
  gated: frozenset = frozenset()
  """Ids of the calls paused because their tool's require_confirmation asked for approval."""


async def emit_results(ctx: "InvocationContext", results: CallResults) -> AsyncGenerator[Event, None]:
  """Yields a step's function response event and any newly raised nested calls; pauses the invocation
  when a call waits."""
  if results.event is not None:
    yield results.event
  for event in results.surfaced:
    yield event
  if results.paused:
    ctx.pause()


def _response_part(call: types.FunctionCall, response: Any,
                   actions: Optional[EventActions] = None) -> types.Part:
  """The FunctionResponse part for a tool's value: a dict as is, anything else as {'result': value}."""
  if isinstance(response, BaseModel):
    response = {"result": response.model_dump(mode="json")}
  elif not isinstance(response, dict):
    response = {"result": response}
  # The one JSON form every store keeps and the model sees (the tool's state writes too).
  response = json_form.function_response(call.name, response, actions.state_delta if actions else None)
  # Unvalidated: the id and name come from the validated call, the response is json_form's dict.
  return trusted(types.Part, function_response=trusted(types.FunctionResponse, id=call.id, name=call.name,
                                                       response=response))


async def _run_tool(agent: "LlmAgent", ctx: "InvocationContext", tool: "BaseTool",
                    call: types.FunctionCall, tc: ToolContext) -> Any:
  """before-tool callbacks, the tool itself (errors handled), after-tool callbacks."""
  args = call.args or {}
  pm = ctx.plugin_manager
  run_hooks = _callbacks.run_hooks
  common = {"tool": tool, "tool_context": tc}
  result = await run_hooks(pm, "before_tool_callback", agent._before_tool_cbs,
                           plugin_kwargs={**common, "tool_args": args}, args=args, **common)
  if result is None:
    try:
      with tracing.tool_span(ctx, tool, call) as span:
        result = await tool.run_async(args=args, tool_context=tc)
        tracing.record_tool_result(span, result)
    except Exception as exc:
      # An error callback (or plugin) may answer for the failed tool; else the run fails (ADK).
      handled = await run_hooks(pm, "on_tool_error_callback", agent._on_tool_error_cbs,
                                plugin_kwargs={**common, "tool_args": args, "error": exc},
                                args=args, error=exc, **common)
      # The traceback is for people: logged here, kept on the error event when the run fails.
      tool_logger.log(logging.ERROR if handled is None else logging.INFO,
                      "Tool %s (call %s) of agent %s raised %s%s", tool.name, call.id, agent.name,
                      type(exc).__name__, "" if handled is None else "; an error callback answered for it",
                      exc_info=exc)
      if handled is None:
        raise
      result = handled
  if tc.actions.requested_tool_confirmations:
    tc.actions.skip_summarization = True  # the placeholder answer ends the turn, as above
    return NEEDS_CONFIRMATION
  if isinstance(result, NestedPause):
    return result
  if result is None and tool.is_long_running:
    return None
  altered = await run_hooks(pm, "after_tool_callback", agent._after_tool_cbs,
                            plugin_kwargs={**common, "tool_args": args, "result": result},
                            args=args, tool_response=result, **common)
  return altered if altered is not None else result


async def _unknown_tool(agent: "LlmAgent", ctx: "InvocationContext", call: types.FunctionCall,
                        tools: dict[str, "BaseTool"], actions: EventActions) -> CallOutcome:
  """A call of a tool the agent does not have, answered as in ADK.

  Before-tool callbacks may answer it, then error callbacks (given a ValueError naming the
  available tools); otherwise the model reads an error and can call a real tool.
  """
  from ..tools.base_tool import BaseTool

  args = call.args or {}
  tool = BaseTool(name=call.name or "<unnamed>", description="Tool not found")
  tc = ToolContext(ctx, function_call_id=call.id, event_actions=actions)
  pm = ctx.plugin_manager
  common = {"tool": tool, "tool_context": tc}
  names = ", ".join(tools) or "none"
  result = await _callbacks.run_hooks(pm, "before_tool_callback", agent._before_tool_cbs,
                                      plugin_kwargs={**common, "tool_args": args}, args=args, **common)
  if result is None:
    error = ValueError(
        f"Tool '{call.name}' not found.\nAvailable tools: {names}\n\nThe model named a tool this "
        "agent does not have: check the agent's tools and its instruction."
    )
    result = await _callbacks.run_hooks(pm, "on_tool_error_callback", agent._on_tool_error_cbs,
                                        plugin_kwargs={**common, "tool_args": args, "error": error},
                                        args=args, error=error, **common)
  if result is None:
    result = {"error": f"There is no tool `{call.name}()`. The tools you can call are: {names}. "
                       "Call one of those, with its exact name."}
  return CallOutcome(_response_part(call, result), actions)


async def _call_one(agent: "LlmAgent", ctx: "InvocationContext", call: types.FunctionCall,
                    tools: dict[str, "BaseTool"], confirmation: Optional[ToolConfirmation],
                    gated: bool = False) -> CallOutcome:
  """One call's answer. `gated`: its approval was asked by require_confirmation when it paused."""
  actions = trusted(EventActions)
  tool = tools.get(call.name)
  if tool is None:
    return await _unknown_tool(agent, ctx, call, tools, actions)
  args = call.args or {}
  if MALFORMED_ARGUMENTS in args:
    bad = args[MALFORMED_ARGUMENTS]
    return CallOutcome(_response_part(call, {
        "error": f"The arguments for `{call.name}` were not valid JSON ({bad}). Call it again with a JSON object."
    }), actions)
  tc = ToolContext(ctx, function_call_id=call.id, event_actions=actions, tool_confirmation=confirmation)
  needs = getattr(tool, "needs_confirmation", None)
  if needs is not None and confirmation is None:
    try:
      required = await needs(args, tc)
    except ToolArgumentsError:
      required = False  # bad arguments: the tool's own validation answers them
    except Exception as exc:  # a failing predicate fails closed, as an answer the model can read
      return CallOutcome(_response_part(call, {
          "error": f"Could not decide whether `{call.name}` needs approval: {type(exc).__name__}: {exc}. "
                   "The call did not run."}), actions)
    if required:
      tc.request_confirmation(hint=approval_hint(tool.name))
      # As in google-adk: the placeholder answer ends the turn (it is a final response).
      actions.skip_summarization = True
      return CallOutcome(_response_part(call, NEEDS_CONFIRMATION), actions, paused=True, gated=True)
  if confirmation is not None and not confirmation.confirmed and (gated or await _gated(tool, args, tc)):
    # require_confirmation asked (when the call paused, or by the code now): the rejection is
    # answered for the tool, which never runs. Fail closed: a redeployed tool that no longer
    # asks does not turn a person's "no" into a run.
    return CallOutcome(_response_part(call, rejection(confirmation)), actions)
  # Otherwise the tool asked itself (tool_context.request_confirmation): as in ADK it runs again
  # and reads tool_context.tool_confirmation (confirmed or not) to decide what to answer.
  result = await _run_tool(agent, ctx, tool, call, tc)
  if isinstance(result, NestedPause):
    return CallOutcome(None, actions, paused=True, nested=result)
  if result is None and tool.is_long_running:
    # A long-running tool left the call pending: the answer arrives in a later message.
    return CallOutcome(None, actions, paused=True)
  result, media = split_media(result)  # images etc. the tool returned go to the response's parts
  if media is None and type(result) is dict and "image" in result:
    result, media = computer_use_image(tool, result)
  part = _response_part(call, result, actions)
  if media is not None:
    part.function_response.parts = media
  return CallOutcome(part, actions, paused=bool(actions.requested_tool_confirmations))


async def _gather_or_cancel(coros: list) -> list:
  """Runs the calls concurrently; the first failure cancels the others and is raised as is."""
  tasks = [asyncio.ensure_future(c) for c in coros]
  try:
    done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    for task in tasks:
      if task.done() and not task.cancelled() and task.exception() is not None:
        raise task.exception()
    return [task.result() for task in tasks]
  finally:
    for task in tasks:
      if not task.done():
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _gated(tool: "BaseTool", args: dict[str, Any], tc: ToolContext) -> bool:
  """True when the tool's require_confirmation setting applies to these arguments."""
  needs = getattr(tool, "needs_confirmation", None)
  if needs is None:
    return False
  try:
    return bool(await needs(args, tc))
  except Exception:  # cannot tell: fail closed, the tool does not run
    return True


def merge_actions(into: EventActions, other: EventActions) -> None:
  """Folds one call's actions into the response event's actions."""
  if other.state_delta:
    into.state_delta.update(other.state_delta)
  if other.artifact_delta:
    into.artifact_delta.update(other.artifact_delta)
  if other.requested_tool_confirmations:
    into.requested_tool_confirmations.update(other.requested_tool_confirmations)
  if other.requested_auth_configs:
    into.requested_auth_configs.update(other.requested_auth_configs)
  if other.transfer_to_agent:
    into.transfer_to_agent = other.transfer_to_agent
    into.transfer_reason = other.transfer_reason
  if other.escalate:
    into.escalate = True
  if other.skip_summarization:
    into.skip_summarization = True


async def handle_function_calls(
    agent: "LlmAgent",
    ctx: "InvocationContext",
    calls: list[types.FunctionCall],
    tools: dict[str, "BaseTool"],
    confirmations: Optional[dict[str, ToolConfirmation]] = None,
    outcomes: Optional[list] = None,
    gated: frozenset = frozenset(),
) -> CallResults:
  """Runs the calls (concurrently when there are several) and gathers their answers.

  `outcomes` may pass precomputed results (resumed AgentTool calls) instead of running calls.
  `gated`: ids of resumed calls whose approval require_confirmation asked for (see GATED_KEY).
  """
  confirmations = confirmations or {}
  if outcomes is not None:
    pass
  elif len(calls) == 1:
    outcomes = [await _call_one(agent, ctx, calls[0], tools, confirmations.get(calls[0].id),
                                calls[0].id in gated)]
  else:
    outcomes = await _gather_or_cancel(
        [_call_one(agent, ctx, c, tools, confirmations.get(c.id), c.id in gated) for c in calls]
    )
  parts = [o.part for o in outcomes if o.part is not None]
  paused = any(o.paused for o in outcomes)
  surfaced = [surface_nested_pause(ctx, agent.name, o.nested) for o in outcomes if o.nested is not None]
  asked = frozenset(c.id for c, o in zip(calls, outcomes) if o.gated) if paused else frozenset()
  if not parts and not any(o.actions.state_delta or o.actions.escalate for o in outcomes):
    return CallResults(None, paused, surfaced, asked)
  actions = trusted(EventActions)
  for outcome in outcomes:
    merge_actions(actions, outcome.actions)
  event = trusted(Event, id=Event.new_id(), invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch,
                  content=trusted(types.Content, role="user", parts=parts) if parts else None,
                  actions=actions, timestamp=time.time())
  return CallResults(event, paused, surfaced, asked)


def surface_nested_pause(ctx: "InvocationContext", agent_name: str, nested: NestedPause) -> Event:
  """Raises the pending calls of an agent run through AgentTool to this invocation.

  The event repeats the nested calls (same ids, names, arguments) as long-running calls of
  this agent, so clients answer them like any other pending call; its metadata keeps the
  nested session so the AgentTool can continue it when the answers arrive, even in another
  process. The model of this agent never sees these calls.
  """
  return Event(
      invocation_id=ctx.invocation_id,
      author=agent_name,
      branch=ctx.branch,
      content=types.Content(role="model", parts=[types.Part(function_call=c) for c in nested.calls]),
      long_running_tool_ids={c.id for c in nested.calls},
      custom_metadata={NESTED_KEY: nested.to_metadata()},
  )


def confirmation_request_event(ctx: "InvocationContext", agent_name: str, call_event: Event,
                               response_event: Event, gated: frozenset = frozenset()) -> Optional[Event]:
  """The long-running `adk_request_confirmation` calls that pause the invocation (ADK's wire format).

  The event records which of the original calls `require_confirmation` gated (`GATED_KEY`), so
  their rejection is answered without running the tool even if its code changes meanwhile.
  """
  requested = response_event.actions.requested_tool_confirmations
  if not requested:
    return None
  by_id = {c.id: c for c in call_event.get_function_calls()}
  parts = []
  ids = set()
  for call_id, confirmation in requested.items():
    original = by_id.get(call_id)
    if original is None:
      continue
    request_id = new_function_call_id()
    ids.add(request_id)
    parts.append(types.Part(function_call=confirmation_request_call(request_id, original, confirmation)))
  if not parts:
    return None
  return Event(
      invocation_id=ctx.invocation_id,
      author=agent_name,
      branch=ctx.branch,
      content=types.Content(role="model", parts=parts),
      long_running_tool_ids=ids,
      custom_metadata={GATED_KEY: sorted(gated & requested.keys())} if gated & requested.keys() else None,
  )
