"""The nested run behind AgentTool and NodeTool: one driver for "run this as a tool, in a session of its own".

Both tools run what they wrap (an agent; a node inside a one-node Workflow) through a Runner of its own
with an in-memory session. What the two share, and is written only here:

- the nested session starts from a copy of the caller's state (`temp:` keys left out), and every state
  write the nested run makes is merged back into the caller's state as it happens (so it lands on the
  caller's function response event);
- artifacts are the caller's session's, both ways (`caller_artifacts`); memory, plugins and the run
  config are the caller's;
- a nested run that stops on a request (a confirmation, a RequestInput, a long-running call) becomes a
  `NestedPause`: the caller raises its pending calls to its own invocation with the same ids, and
  `resume_nested` rebuilds the session from the pause and continues it with the answers;
- otherwise the run's outcome (`NestedOutcome`: its last reply text, its last error) is handed back to
  the tool, which turns it into the function response. What counts as the answer differs on purpose:
  an agent answers with its last text, a node with its output (see each tool's `_answer`).

An exception raised inside the nested run propagates out of the tool unchanged, as a FunctionTool's own
would, so the caller's on_tool_error callbacks see the real cause.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Union

from google.genai import types

from .tool_context import ToolContext

if TYPE_CHECKING:
  from ..agents.base_agent import BaseAgent
  from ..runners import Runner


@dataclass
class NestedPause:
  """An AgentTool or NodeTool call whose nested run paused: the calls it waits on and how to continue it."""

  tool_call: dict[str, Any]
  """The caller's call of the tool (id, name, args); answered once the nested run finishes."""
  calls: list[types.FunctionCall]
  """The nested run's pending calls (confirmation requests, input requests or long-running calls)."""
  state: dict[str, Any]
  """The state the nested session started from."""
  events: list[dict[str, Any]]
  """The nested session's events, as JSON."""

  def to_metadata(self) -> dict[str, Any]:
    return {"tool_call": self.tool_call, "state": self.state, "events": self.events}


@dataclass
class NestedOutcome:
  """How a nested run that did not pause ended; the tool makes its function response from it."""

  text: Optional[str]
  """The text of the run's last reply (an event with text that is neither a call nor a response), if any."""
  error: Optional[str]
  """`"CODE: message"` of the run's last event that carried an error code, if any."""


def nested_runner(tool_context: ToolContext, agent: "BaseAgent") -> "Runner":
  """A Runner for `agent` with a fresh in-memory session store and the caller's services and plugins."""
  from ..runners import Runner
  from ..sessions.in_memory_session_service import InMemorySessionService

  parent = tool_context.invocation_context
  return Runner(
      app_name=agent.name,
      agent=agent,
      session_service=InMemorySessionService(),
      artifact_service=caller_artifacts(tool_context) if parent.artifact_service is not None else None,
      memory_service=parent.memory_service,
      plugins=list(parent.plugin_manager.plugins) if parent.plugin_manager else None,
  )


async def start_nested(runner: "Runner", tool_context: ToolContext, message: types.Content, *,
                       tool_name: str, args: dict[str, Any]) -> Union[NestedOutcome, NestedPause]:
  """Runs `message` in a new nested session that starts from a copy of the caller's state.

  `tool_name` and `args` are the caller's call, kept on a pause so the answer can be given to it later.
  """
  state = {k: v for k, v in tool_context.state.to_dict().items() if not k.startswith("temp:")}
  session = await runner.session_service.create_session(
      app_name=runner.app_name, user_id=tool_context.invocation_context.user_id, state=state)
  call = {"id": tool_context.function_call_id, "name": tool_name, "args": args}
  return await _drive(runner, session.id, message, tool_context, state, call)


async def resume_nested(runner: "Runner", tool_context: ToolContext, nested: dict[str, Any],
                        answers: list[types.FunctionResponse]) -> Union[NestedOutcome, NestedPause]:
  """Continues a paused nested run (`NestedPause.to_metadata()`) with the answers to its pending calls."""
  from ..events.event import Event

  session = await runner.session_service.create_session(
      app_name=runner.app_name, user_id=tool_context.invocation_context.user_id, state=dict(nested["state"]))
  for raw in nested["events"]:
    await runner.session_service.append_event(session, Event.model_validate(raw))
  message = types.Content(role="user", parts=[types.Part(function_response=a) for a in answers])
  return await _drive(runner, session.id, message, tool_context, nested["state"], nested["tool_call"])


async def _drive(runner: "Runner", session_id: str, message: types.Content, tool_context: ToolContext,
                 initial_state: dict[str, Any], call: dict[str, Any]) -> Union[NestedOutcome, NestedPause]:
  from ..pending import pending_items

  parent = tool_context.invocation_context
  last_text: Optional[str] = None
  error: Optional[str] = None
  async for event in runner.run_async(user_id=parent.user_id, session_id=session_id, new_message=message,
                                      run_config=parent.run_config):
    if event.author == "user" or event.partial:
      continue
    if event.actions.state_delta:
      tool_context.state.update(event.actions.state_delta)
    if event.error_code:
      error = f"{event.error_code}: {event.error_message}"
    if event.content and event.content.parts and not event.get_function_calls() and not event.get_function_responses():
      text = "".join(p.text for p in event.content.parts if p.text and not p.thought)
      if text:
        last_text = text
  session = await runner.session_service.get_session(app_name=runner.app_name, user_id=parent.user_id,
                                                     session_id=session_id)
  waiting = pending_items(session.events)
  if waiting:
    ids = {item.call_id for item in waiting}
    return NestedPause(
        tool_call=call,
        calls=[c for e in session.events for c in e.get_function_calls() if c.id in ids],
        state=initial_state,
        events=[e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in session.events],
    )
  return NestedOutcome(text=last_text, error=error)


def caller_artifacts(tool_context: ToolContext):
  """An artifact service for the nested run that reads and writes the caller's session's artifacts."""
  from ..artifacts.base_artifact_service import BaseArtifactService

  class CallerArtifacts(BaseArtifactService):
    """Forwards to the calling agent's artifacts (whatever app, user and session the nested run names)."""

    def __init__(self) -> None:
      parent = tool_context.invocation_context
      self._service = parent.artifact_service
      self._scope = dict(app_name=parent.app_name, user_id=parent.user_id, session_id=parent.session.id)

    async def save_artifact(self, *, filename, artifact, custom_metadata=None, **_):
      return await tool_context.save_artifact(filename, artifact, custom_metadata=custom_metadata)

    async def load_artifact(self, *, filename, version=None, **_):
      return await tool_context.load_artifact(filename, version=version)

    async def list_artifact_keys(self, **_):
      return await tool_context.list_artifacts()

    async def delete_artifact(self, *, filename, **_):
      await self._service.delete_artifact(filename=filename, **self._scope)

    async def list_versions(self, *, filename, **_):
      return await self._service.list_versions(filename=filename, **self._scope)

    async def list_artifact_versions(self, *, filename, **_):
      return await self._service.list_artifact_versions(filename=filename, **self._scope)

    async def get_artifact_version(self, *, filename, version=None, **_):
      return await self._service.get_artifact_version(filename=filename, version=version, **self._scope)

  return CallerArtifacts()
