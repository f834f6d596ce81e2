"""The Task API (google-adk 2.x agent `mode`): a coordinator LlmAgent delegating to sub-agents.

- A `single_turn` sub-agent is called like a tool: it runs at once on its request alone and its
  final answer comes back as `{"result": ...}` in the same turn.
- A `task` sub-agent talks with the user: its replies end the turn, the user's next message goes
  to it (in the same invocation), and when it calls `finish_task` its result answers the
  coordinator's call and the coordinator continues.

Each delegation runs in its own isolation scope (the id of the coordinator's call): the
sub-agent sees only its input (rebuilt from that call) and its task's own events, and the rest
of the conversation does not see them. Its events carry `isolation_scope` and the branch
`name@{call id}`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, AsyncGenerator, Optional

from google.genai import types

from ..events.event import Event
from ..tools._task_tools import DelegationTool, finishes_task
from ..utils import _schema_utils

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext
  from ..agents.llm_agent import LlmAgent


@dataclass(frozen=True)
class ActiveTask:
  """A task-mode sub-agent waiting for the user's reply."""

  scope: str
  """The coordinator's call id (the task's isolation scope)."""
  invocation_id: str
  """The invocation the task belongs to; the reply continues it."""
  coordinator: str
  """The agent that delegated the task."""
  branch: Optional[str]
  """The coordinator's branch."""


def delegation_calls(calls: list[types.FunctionCall], tools: dict[str, Any]) -> bool:
  """True when some call in a model turn goes to a task or single_turn sub-agent."""
  return any(isinstance(tools.get(c.name), DelegationTool) for c in calls)


def active_task(events: list[Event]) -> Optional[ActiveTask]:
  """The task waiting for the user, if the latest turn ended in one; else None.

  Reads back from the end of the session to the last message the user sent outside a task,
  so the cost is that of the latest turn, not of the session. A delegation is open until the
  coordinator's call is answered.
  """
  latest = None
  for index in range(len(events) - 1, -1, -1):
    event = events[index]
    if event.isolation_scope:
      latest = index
      break
    if event.author == "user" and not event.get_function_responses():
      return None  # the user spoke outside any task since: nothing waits
  if latest is None:
    return None
  scope = events[latest].isolation_scope
  if any(r.id == scope for event in events[latest + 1:] for r in event.get_function_responses()):
    return None  # the delegation already answered its coordinator
  for index in range(latest - 1, -1, -1):
    event = events[index]
    for call in event.get_function_calls():
      if call.id == scope:
        return ActiveTask(scope=scope, invocation_id=event.invocation_id, coordinator=event.author,
                          branch=event.branch)
    if event.author == "user" and not event.isolation_scope and not event.get_function_responses():
      return None
  return None


@dataclass
class TaskOutcome:
  """Whether a delegated task finished, and its response when it did."""

  finished: bool = False
  response: Any = None


async def run_calls(agent: "LlmAgent", ctx: "InvocationContext", calls: list[types.FunctionCall],
                    tools: dict[str, Any]) -> AsyncGenerator[Event, None]:
  """Runs a model turn that delegates: other tools first (as usual), then each sub-agent in order.

  A task that waits for the user ends the turn there; calls after it in the same model turn
  are not run (google-adk tells the model not to call a task in parallel with other tools).
  """
  from . import _functions

  others = [c for c in calls if not isinstance(tools.get(c.name), DelegationTool)]
  if others:
    results = await _functions.handle_function_calls(agent, ctx, others, tools)
    async for event in _functions.emit_results(ctx, results):
      yield event
    if results.paused:
      return
  answers: list[types.Part] = []
  for call in calls:
    tool = tools.get(call.name)
    if not isinstance(tool, DelegationTool):
      continue
    outcome = TaskOutcome()
    if tool.mode == "single_turn":
      async for event in _run_sub_agent(ctx, tool, call, outcome, first=True):
        yield event
      answers.append(types.Part(function_response=types.FunctionResponse(
          id=call.id, name=call.name, response={"result": outcome.response})))
      continue
    if answers:  # the single-turn answers so far go first
      yield _answer_event(ctx, agent.name, answers)
      answers = []
    async for event in _run_sub_agent(ctx, tool, call, outcome, first=True):
      yield event
    if not outcome.finished:
      return  # the task waits for the user: the turn ends
    yield _task_answer(ctx, call, outcome.response)
  if answers:
    yield _answer_event(ctx, agent.name, answers)


async def continue_task(agent: "LlmAgent", ctx: "InvocationContext") -> AsyncGenerator[Event, None]:
  """Hands the user's reply to the coordinator's waiting task; answers the call once it finishes.

  Leaves `ctx.task_scope` set while the task still waits (the coordinator then stops).
  """
  scope = ctx.task_scope
  call = next((c for e in reversed(ctx.session.events) for c in e.get_function_calls() if c.id == scope), None)
  tools = {t.name: t for t in await agent.canonical_tools(ctx)}
  tool = tools.get(call.name) if call is not None else None
  if not isinstance(tool, DelegationTool):
    raise ValueError(f"Agent {agent.name!r} has no task sub-agent for the waiting call {scope!r}; was the "
                     "sub-agent removed or its mode changed since the task started?")
  outcome = TaskOutcome()
  async for event in _run_sub_agent(ctx, tool, call, outcome, first=False):
    yield event
  if outcome.finished:
    ctx.task_scope = None
    yield _task_answer(ctx, call, outcome.response)


async def _run_sub_agent(ctx: "InvocationContext", tool: DelegationTool, call: types.FunctionCall,
                         outcome: TaskOutcome, first: bool) -> AsyncGenerator[Event, None]:
  sub = tool.agent
  scope = call.id
  branch = f"{ctx.branch}.{sub.name}@{call.id}" if ctx.branch else f"{sub.name}@{call.id}"
  sub_ctx = ctx.model_copy(update={"branch": branch, "agent": sub, "isolation_scope": scope, "task_scope": None})
  if first:
    # Checked before the sub-agent starts (an input_schema that refuses the arguments raises
    # here). Nothing is stored: as in google-adk, each model call of the task rebuilds its first
    # user turn from the coordinator's call, which is in the session (_contents.build_scoped).
    tool.task_input(dict(call.args or {}))
  text: Optional[str] = None
  async for event in sub.run_async(sub_ctx):
    if not event.isolation_scope:
      event.isolation_scope = scope
    if event.author == sub.name and not event.partial:
      if finishes_task(event):
        # The task agent's own loop put the result on its finish_task answer (llm_flow).
        outcome.finished = True
        outcome.response = event.output
      elif event.text and event.is_final_response() and not event.get_function_responses():
        text = event.text
    yield event
  if tool.mode == "single_turn":
    outcome.finished = True
    value: Any = text
    if text is not None and sub.output_schema is not None:
      if _schema_utils.is_basemodel_schema(sub.output_schema):
        value = sub.output_schema.model_validate_json(text).model_dump(mode="json")
      else:  # list[Model], list[str], a JSON-schema dict...: as the agent's own output_key stores it
        value = _schema_utils.validate_schema(sub.output_schema, text)
    outcome.response = value


def _answer_event(ctx: "InvocationContext", author: str, parts: list[types.Part]) -> Event:
  return Event(invocation_id=ctx.invocation_id, author=author, branch=ctx.branch,
               content=types.Content(role="user", parts=parts))


def _task_answer(ctx: "InvocationContext", call: types.FunctionCall, result: Any) -> Event:
  """The coordinator's call answered with the task's result (authored by the user, as google-adk)."""
  response = result if isinstance(result, dict) else {"output": result}
  return Event(invocation_id=ctx.invocation_id, author="user", branch=ctx.branch,
               content=types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
                   id=call.id, name=call.name, response=json.loads(json.dumps(response, default=str))))]))
