"""The loop of an LlmAgent: build request, call model, run tools, repeat until a final answer."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, AsyncGenerator, Optional

from google.genai import types

from ..agents import _callbacks
from ..agents.callback_context import CallbackContext
from ..agents._resumable import commit_pause_checkpoint, end_of_agent, restored_state
from ..agents.run_config import StreamingMode
from ..events.event import Event
from ..events.event_actions import EventActions
from ..models.llm_request import LlmRequest
from ..telemetry import progress, tracing
from ..models.llm_response import LlmResponse
from ..tools._task_tools import FINISH_TASK, FinishTaskTool, finishes_task, task_input
from ..tools.set_model_response_tool import SET_MODEL_RESPONSE
from ..tools.tool_context import ToolContext
from ..utils.trusted import trusted
from . import (_code_execution, _contents, _context_cache, _credentials, _delegation, _edit, _functions,
               _instructions, _planning, _resume, _transfer)

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext
  from ..agents.llm_agent import LlmAgent

AGENT_NAME_LABEL = "adk_agent_name"
"""The request label naming the agent that makes a model call."""


async def run_flow(agent: "LlmAgent", ctx: "InvocationContext") -> AsyncGenerator[Event, None]:
  """Runs model steps until the agent gives a final answer, pauses, or transfers."""
  saved = restored_state(agent, ctx) if ctx.resumed else None
  if saved and saved.get("transferred_to"):
    # This agent had handed the turn over when the invocation paused: continue there.
    async for event in _transfer.run_target(agent, ctx, saved["transferred_to"]):
      yield event
    if ctx.paused:
      await commit_pause_checkpoint(agent, ctx, saved)
    return
  if ctx.resumed:
    if ctx.resume_answers:
      async for event in _credentials.resume_credential_calls(agent, ctx):
        yield event
    if ctx.resume_answers:
      async for event in _resume.resume_confirmed_calls(agent, ctx):
        yield event
    if ctx.resume_answers:
      async for event in _resume.resume_nested_calls(agent, ctx):
        yield event
    if ctx.paused or ctx.end_invocation:
      return
    if _resume.still_waiting(agent, ctx):
      # Other calls of this turn are still unanswered: the model continues once all are in.
      ctx.pause()
      return
  edited = _edit.continuation_of(agent, ctx)
  if edited is not None:
    # Continuing from an edited step (a fork's replace_with): its calls run, or the model follows.
    if edited.get_function_calls():
      tools = (await build_request(agent, ctx)).tools_dict
      transferred = False
      async for event in run_function_calls(agent, ctx, edited, tools):
        transferred = transferred or bool(event.actions.transfer_to_agent)
        yield event
      if transferred or ctx.paused or ctx.end_invocation:
        return
    elif not edited.get_function_responses():
      return  # an edited final answer: the invocation is complete, nothing follows it
  if ctx.task_scope and not ctx.resumed:
    # The user's message answers this agent's task sub-agent: it goes there first.
    async for event in _delegation.continue_task(agent, ctx):
      yield event
    if ctx.task_scope or ctx.paused or ctx.end_invocation:
      return  # the task still waits for the user
  while True:
    last: Optional[Event] = None
    transferred = False
    finish_args: Optional[dict] = None
    async for event in _run_one_step(agent, ctx):
      last = event
      if event.actions.transfer_to_agent and event.author == agent.name and not event.partial:
        transferred = True
      if agent.mode == "task" and event.author == agent.name and not event.partial:
        finish_args = _note_task_result(agent, event, finish_args)
      yield event
    if transferred or ctx.paused or ctx.end_invocation:
      return
    if last is None or last.is_final_response() or last.partial or last.error_code:
      return
    if agent.mode == "task" and last.author == agent.name and finishes_task(last):
      return  # the task is done: its result goes to the coordinator, the model is not called again


def _note_task_result(agent: "LlmAgent", event: Event, finish_args: Optional[dict]) -> Optional[dict]:
  """Puts a finished task's result on finish_task's answer: its `output`, and state under output_key
  (as google-adk, for a root task agent too). Returns the latest finish_task arguments seen."""
  for fc in event.get_function_calls():
    if fc.name == FINISH_TASK:
      finish_args = dict(fc.args or {})
  if finishes_task(event) and event.output is None:
    event.output = FinishTaskTool(agent).result(finish_args or {})
    if agent.output_key and event.output is not None:
      event.actions.state_delta[agent.output_key] = event.output
  return finish_args


async def build_request(agent: "LlmAgent", ctx: "InvocationContext") -> LlmRequest:
  """The request for the next model call: instructions, tools, history, schema.

  The steps run in the order of google-adk's request processors (each is also one of the
  `flows.llm_flows.*.request_processor` objects): model and config, instructions, identity,
  conversation, transfer, planning, code execution, tools, output schema, context cache.
  """
  request = new_request(agent)
  await _instructions.add_instructions(agent, ctx, request)
  add_identity(agent, request)
  add_contents(agent, ctx, request)
  transfer_targets = _transfer.targets(agent)
  if transfer_targets:
    request.append_instructions([_transfer.instruction(agent, transfer_targets)])
  # History before tools, as in ADK: a tool's process_llm_request may read or extend the contents
  # (load_artifacts attaches what the model asked for).
  _planning.apply_to_request(agent, ctx, request)
  _code_execution.apply_to_request(agent, request)
  tools = await add_tools(agent, ctx, request, transfer_targets)
  add_output_schema(agent, request, has_tools=bool(tools))
  _context_cache.apply_to_request(agent, ctx, request)
  return request


def new_request(agent: "LlmAgent") -> LlmRequest:
  """An empty request for the agent's model, with its generate_content_config (google-adk's `basic`)."""
  llm = agent.canonical_model
  # A shallow copy of a per-agent base config: building a GenerateContentConfig costs ~15 us.
  config = agent._base_config().model_copy()
  return trusted(LlmRequest, model=llm.model, contents=[], config=config, tools_dict={})


def add_identity(agent: "LlmAgent", request: LlmRequest) -> None:
  """Tells the model its agent name and description (google-adk's `identity`)."""
  request.append_instructions([agent._identity_instruction])


def add_contents(agent: "LlmAgent", ctx: "InvocationContext", request: LlmRequest) -> None:
  """Replaces the request's contents by the conversation the agent sees, with whatever the
  instruction step put there (a turn instruction, a static instruction's files) placed in it."""
  instruction_contents = list(request.contents)
  events = ctx.session.events
  # The 'adk-' ids adk_nb gave calls are not the model's: dropped, unless the provider pairs
  # calls and answers by id (LiteLLM / OpenAI-style), as google-adk does.
  try:
    strip = not getattr(agent.canonical_model, "pairs_calls_by_id", False)
  except ValueError:  # no model anywhere up the tree (a request built by hand): nothing pairs by id
    strip = True
  # A planner that rewrites answers (PlanReActPlanner) marks its plan as thoughts: the model reads
  # them again as plain text, as in google-adk.
  plans = _planning.rewrites_responses(agent.planner)
  if _contents.has_rewind(events):
    events = _contents.without_rewound(events)  # a plain list: its conversation is read from the start
  if ctx.isolation_scope:
    request.contents = _contents.build_scoped(agent.name, ctx.isolation_scope, events, strip,
                                              lambda args: task_input(agent, args))
  elif agent.include_contents == "none":
    request.contents = _contents.build_current_turn(agent.name, ctx.branch, events, strip, plans)
  else:
    # The list is new; its Contents are shared with the session's events. Summaries of compacted
    # events replace them.
    request.contents = _contents.build_contents(agent.name, ctx.branch, events, strip, plans)
  _instructions.place_instruction_contents(request, instruction_contents)


async def add_tools(agent: "LlmAgent", ctx: "InvocationContext", request: LlmRequest,
                    transfer_targets: Optional[list] = None) -> list:
  """Lets each toolset and tool add itself to the request; returns the agent's tools."""
  tools = await agent.canonical_tools(ctx, skip_failed_toolsets=True)
  if transfer_targets:
    tools = tools + [_transfer.tool_for(agent, transfer_targets)]
  toolsets = agent.toolsets
  if tools or toolsets:
    tc = ToolContext(ctx)
    for toolset in toolsets:
      await toolset.process_llm_request(tool_context=tc, llm_request=request)
    for tool in tools:
      await tool.process_llm_request(tool_context=tc, llm_request=request)
  return tools


def add_output_schema(agent: "LlmAgent", request: LlmRequest, *, has_tools: bool) -> None:
  """Asks for JSON of output_schema; with tools, through the set_model_response tool instead."""
  if agent.output_schema is None:
    return
  if not has_tools:
    request.set_output_schema(agent.output_schema)
  else:  # schema and function calling do not mix: the answer arrives through a tool call
    request.append_tools([agent._set_model_response_tool()])
    request.append_instructions([
        f"Use your other tools as needed, then give your final answer by calling {SET_MODEL_RESPONSE} "
        "with arguments in its schema: only that call counts as your answer."])


def _structured_answer(agent, ctx, response_event: Optional[Event]) -> Optional[Event]:
  """The final answer event when the model answered through set_model_response successfully."""
  if response_event is None or agent.output_schema is None:
    return None
  for response in response_event.get_function_responses():
    if response.name == SET_MODEL_RESPONSE and "error" not in (response.response or {}):
      value = response.response
      tool = agent._set_model_response_tool()
      if tool._key is not None and isinstance(value, dict) and set(value) == {"result"} and not isinstance(
          value["result"], dict):
        value = value["result"]  # list[str], list[Model]...: the tool's non-dict value, as the flow wrapped it
      text = json.dumps(value)
      return Event(invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch,
                   content=types.Content(role="model", parts=[types.Part(text=text)]))
  return None


def _isolate(request: LlmRequest) -> None:
  """Gives the request its own copies of history and tool declarations.

  Requests normally share the session's Content objects (so building one costs nothing per
  past turn); a before-model hook may edit the request in place, so it gets copies, as
  google-adk always makes.
  """
  request.contents = [c.model_copy(deep=True) for c in request.contents]
  if request.config.tools:
    request.config.tools = [t.model_copy(deep=True) for t in request.config.tools]


async def _before_model(agent, ctx, cc, request) -> Optional[LlmResponse]:
  pm = ctx.plugin_manager
  if agent._before_model_cbs or (pm is not None and pm.has("before_model_callback")):
    _isolate(request)
  return await _callbacks.run_hooks(ctx.plugin_manager, "before_model_callback", agent._before_model_cbs,
                                    callback_context=cc, llm_request=request)


async def _after_model(agent, ctx, cc, response) -> LlmResponse:
  out = await _callbacks.run_hooks(ctx.plugin_manager, "after_model_callback", agent._after_model_cbs,
                                   callback_context=cc, llm_response=response)
  return response if out is None else out


async def _on_model_error(agent, ctx, cc, request, error) -> Optional[LlmResponse]:
  return await _callbacks.run_hooks(ctx.plugin_manager, "on_model_error_callback", agent._on_model_error_cbs,
                                    callback_context=cc, llm_request=request,
                                    error=error)


def _event_from_response(agent, ctx, response: LlmResponse, event_id: str, actions: EventActions) -> Event:
  fields = {k: v for k, v in response.__dict__.items() if v is not None}
  if type(response) is LlmResponse and isinstance(response.content, (types.Content, type(None))):
    # The response was validated when it was built: its values are copied over as they are.
    return trusted(Event, id=event_id, invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch,
                   actions=actions, timestamp=time.time(), **fields)
  return Event(id=event_id, invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch,
               actions=actions, **fields)


async def _call_model(agent, ctx, request, cc, event_id: str) -> AsyncGenerator[LlmResponse, None]:
  """Model responses for one call, with callbacks and error handling applied."""
  short = await _before_model(agent, ctx, cc, request)
  if short is not None:
    yield short
    return
  labels = request.config.labels
  if not labels or AGENT_NAME_LABEL not in labels:
    # Lets billing reports be sliced per agent (as ADK); a new dict, the config's is shared.
    request.config.labels = {**(labels or {}), AGENT_NAME_LABEL: agent.name}
  ctx.increment_llm_call_count()  # past RunConfig.max_llm_calls: LlmCallsLimitExceededError ends the run
  stream = ctx.run_config.streaming_mode is StreamingMode.SSE
  llm = agent.canonical_model
  span = tracing.model_span(ctx, request.model or llm.model)
  progress.model_started(ctx, event_id, request.model or llm.model, request)
  final: Optional[LlmResponse] = None
  try:
    async for response in llm.generate_content_async(request, stream=stream):
      if response.partial:
        yield response
      else:
        progress.model_ended(ctx, event_id, response)
        final = await _after_model(agent, ctx, cc, response)
        yield final
  except Exception as exc:
    progress.model_ended(ctx, event_id, None)
    if _callbacks.raised_by_hook(exc):
      raise
    # The model failed: an error callback (or plugin) may answer instead; else the run fails.
    handled = await _on_model_error(agent, ctx, cc, request, exc)
    if handled is None:
      raise
    final = handled
    yield handled
  finally:
    tracing.end_model_span(span, final)


async def _run_one_step(agent: "LlmAgent", ctx: "InvocationContext") -> AsyncGenerator[Event, None]:
  request = await build_request(agent, ctx)
  actions = EventActions()
  cc = CallbackContext(ctx, event_actions=actions)
  event_id = Event.new_id()
  final: Optional[Event] = None
  async for response in _call_model(agent, ctx, request, cc, event_id):
    if not response.content and not response.error_code and not response.interrupted:
      continue  # an empty response carries nothing to record (google-adk drops it too)
    response, planner_state = _planning.process_response(agent, ctx, response)
    if planner_state is not None:
      yield planner_state
    if agent.code_executor is not None and not response.partial:
      response, saved = await _code_execution.save_generated_images(agent, ctx, response)
      if saved is not None:
        yield saved
      found = _code_execution.code_to_run(agent, ctx, response)
      if found is not None:  # the answer becomes its code; the result follows and the model goes on
        code, content = found
        code_event = _event_from_response(agent, ctx, response.model_copy(update={"content": content}),
                                          event_id, actions)
        async for event in _code_execution.run_code(agent, ctx, code, code_event):
          yield event
        continue
    event = _event_from_response(agent, ctx, response, event_id,
                                 actions if not response.partial else trusted(EventActions))
    if not response.partial:
      _functions.populate_call_ids(event)
      calls = event.get_function_calls()
      if calls:
        long_running = {c.id for c in calls if getattr(request.tools_dict.get(c.name), "is_long_running", False)}
        if long_running:
          event.long_running_tool_ids = long_running
      final = event
    yield event
  if final is None or final.error_code:
    return
  async for event in run_function_calls(agent, ctx, final, request.tools_dict):
    yield event


async def run_function_calls(agent: "LlmAgent", ctx: "InvocationContext", final: Event,
                             tools_dict: dict) -> AsyncGenerator[Event, None]:
  """Runs the calls of the model's event: their answers, a structured answer or a confirmation
  request, and the agent a transfer hands over to. Nothing when the event makes no call."""
  calls = final.get_function_calls()
  if not calls:
    return
  if _delegation.delegation_calls(calls, tools_dict):
    async for event in _delegation.run_calls(agent, ctx, calls, tools_dict):
      yield event
    return
  results = await _functions.handle_function_calls(agent, ctx, calls, tools_dict)
  response_event, paused = results.event, results.paused
  structured = _structured_answer(agent, ctx, response_event)
  if structured is not None:
    yield response_event
    yield structured  # the final answer, as text JSON (output_key stores it)
    return
  if response_event is not None:
    # ADK's order: the confirmation request first, then the placeholder answer.
    confirm = _functions.confirmation_request_event(ctx, agent.name, final, response_event,
                                                     results.gated)
    if confirm is not None:
      yield confirm
    credential = _credentials.credential_request_event(ctx, agent.name, response_event)
    if credential is not None:
      yield credential  # google-adk's order: the credential request, then the "pending" answer
      paused = True
    yield response_event
  for event in results.surfaced:
    yield event
  if paused:
    ctx.pause()
    return
  if response_event is not None and response_event.actions.transfer_to_agent:
    target = response_event.actions.transfer_to_agent
    # As google-adk: in a resumable app an agent that hands over at the top of the tree (its parent, if
    # any, is an LlmAgent) ends before its target starts; inside a workflow agent it ends after it.
    from ..agents.llm_agent import LlmAgent

    parent = agent.parent_agent
    done = end_of_agent(agent, ctx) if parent is None or isinstance(parent, LlmAgent) else None
    if done is not None:
      yield done
    async for event in _transfer.run_target(agent, ctx, target):
      yield event
    if ctx.paused:  # so a resume comes back through this agent (and whatever encloses it)
      await commit_pause_checkpoint(agent, ctx, {"transferred_to": target})
