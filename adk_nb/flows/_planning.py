"""The planner's two steps in the LLM loop: its instruction on the request, its rewrite of answers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ..agents.callback_context import CallbackContext
from ..agents.readonly_context import ReadonlyContext
from ..events.event import Event
from ..planners.base_planner import BasePlanner
from ..planners.built_in_planner import BuiltInPlanner

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext
  from ..agents.llm_agent import LlmAgent
  from ..models.llm_request import LlmRequest
  from ..models.llm_response import LlmResponse


def apply_to_request(agent: "LlmAgent", ctx: "InvocationContext", request: "LlmRequest") -> None:
  """Adds the planner's thinking config or instruction to the request (after the history is in).

  Under a planner that rewrites answers, the history already carries its earlier thought parts as
  plain text (`_contents.build_contents(..., thoughts_as_text=True)`), as google-adk sends them.
  """
  planner = agent.planner
  if planner is None:
    return
  if isinstance(planner, BuiltInPlanner):
    planner.apply_thinking_config(request)
    return
  text = planner.build_planning_instruction(ReadonlyContext(ctx), request)
  if text:
    request.append_instructions([text])


def rewrites_responses(planner: Optional[BasePlanner]) -> bool:
  """True when the planner's process_planning_response is its own (not BuiltInPlanner's no-op)."""
  return planner is not None and type(planner).process_planning_response is not BuiltInPlanner.process_planning_response


def process_response(agent: "LlmAgent", ctx: "InvocationContext",
                     response: "LlmResponse") -> tuple["LlmResponse", Optional[Event]]:
  """The response with the planner's parts, and an event carrying the state it wrote (or None)."""
  planner = agent.planner
  content = response.content
  if not rewrites_responses(planner) or content is None or not content.parts:
    return response, None
  cc = CallbackContext(ctx)
  parts = planner.process_planning_response(cc, list(content.parts))
  if parts:
    response = response.model_copy(update={"content": content.model_copy(update={"parts": parts})})
  state_event = None
  if cc.actions.state_delta:
    state_event = Event(invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch,
                        actions=cc.actions)
  return response, state_event
