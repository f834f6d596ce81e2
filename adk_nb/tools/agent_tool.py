"""AgentTool: another agent offered to a model as a tool, run in an isolated nested invocation."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from google.genai import types
from pydantic import ValidationError

from .base_tool import BaseTool
from .tool_context import ToolContext

if TYPE_CHECKING:
  from ..agents.base_agent import BaseAgent


@dataclass
class NestedPause:
  """An AgentTool call whose agent paused: the calls it waits on and how to continue it."""

  tool_call: dict[str, Any]
  """The caller's call of the AgentTool (id, name, args); answered once the agent finishes."""
  calls: list[types.FunctionCall]
  """The nested agent's pending calls (confirmation requests or long-running calls)."""
  state: dict[str, Any]
  """The state the nested session started from."""
  events: list[dict[str, Any]]
  """The nested session's events, as JSON."""

  def to_metadata(self) -> dict[str, Any]:
    return {"tool_call": self.tool_call, "state": self.state, "events": self.events}


class AgentTool(BaseTool):
  """Offers `agent` as a tool. The model delegates a subtask as data and gets the answer back.

  The wrapped agent runs in a nested invocation with its own session: it sees only the
  tool's argument, never the caller's history. It starts from a copy of the caller's
  state, and its state writes are merged back into the caller's state (recorded on the
  function response event). Artifacts are the caller's session's, both ways, as in ADK:
  the agent loads what the caller saved, and what it saves lands in the caller's session
  (in the function response event's artifact_delta). Its final text (validated against `output_schema` when the
  agent has one) is the function response. The agent gets no parent link, so one
  instance can be a tool of several agents.

  Args:
    agent: the agent to wrap.
    skip_summarization: end the caller's turn with the tool's answer instead of asking
      the caller's model to summarise it.
  """

  def __init__(self, agent: "BaseAgent", skip_summarization: bool = False, **_: Any):
    super().__init__(name=agent.name, description=agent.description)
    self.agent = agent
    self.skip_summarization = skip_summarization
    self._declaration: Optional[types.FunctionDeclaration] = None

  def _get_declaration(self) -> types.FunctionDeclaration:
    if self._declaration is None:
      input_schema = getattr(self.agent, "input_schema", None)
      if input_schema is not None:
        from ._function_schema import _strip_titles

        schema = _strip_titles(input_schema.model_json_schema())
        schema["type"] = "object"
      else:
        schema = {
            "type": "object",
            "properties": {"request": {"type": "string"}},  # no description, as google-adk declares it
            "required": ["request"],
        }
      self._declaration = types.FunctionDeclaration(
          name=self.name, description=self.description, parameters_json_schema=schema
      )
    return self._declaration

  def _message(self, args: dict[str, Any]) -> types.Content:
    input_schema = getattr(self.agent, "input_schema", None)
    if input_schema is not None:
      try:
        text = input_schema.model_validate(args).model_dump_json(exclude_none=True)
      except ValidationError as exc:
        raise ValueError(
            f"Invalid arguments for agent tool `{self.name}`: {exc.errors()[0]['msg']} "
            f"at {'.'.join(str(p) for p in exc.errors()[0]['loc'])}."
        ) from None
    else:
      text = args.get("request")
      if not isinstance(text, str):
        text = json.dumps(args, default=str)
    return types.Content(role="user", parts=[types.Part(text=text)])

  def _runner(self, tool_context: ToolContext):
    from ..runners import Runner
    from ..sessions.in_memory_session_service import InMemorySessionService

    parent = tool_context.invocation_context
    return Runner(
        app_name=self.agent.name,
        agent=self.agent,
        session_service=InMemorySessionService(),
        artifact_service=_parent_artifacts(tool_context) if parent.artifact_service is not None else None,
        memory_service=parent.memory_service,
        plugins=list(parent.plugin_manager.plugins) if parent.plugin_manager else None,
    )

  async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
    if self.skip_summarization:
      tool_context.actions.skip_summarization = True
    try:
      message = self._message(args)
    except ValueError as exc:
      return {"error": str(exc)}
    runner = self._runner(tool_context)
    state = {k: v for k, v in tool_context.state.to_dict().items() if not k.startswith("temp:")}
    session = await runner.session_service.create_session(
        app_name=self.agent.name, user_id=tool_context.invocation_context.user_id, state=state
    )
    call = {"id": tool_context.function_call_id, "name": self.name, "args": args}
    return await self._drive(runner, session.id, message, tool_context, state, call)

  async def resume(self, nested: dict[str, Any], answers: list[types.FunctionResponse],
                   tool_context: ToolContext) -> Any:
    """Continues a paused nested run with the answers to its pending calls."""
    from ..events.event import Event

    if self.skip_summarization:
      tool_context.actions.skip_summarization = True
    runner = self._runner(tool_context)
    user_id = tool_context.invocation_context.user_id
    session = await runner.session_service.create_session(
        app_name=self.agent.name, user_id=user_id, state=dict(nested["state"])
    )
    for raw in nested["events"]:
      await runner.session_service.append_event(session, Event.model_validate(raw))
    message = types.Content(role="user", parts=[types.Part(function_response=a) for a in answers])
    return await self._drive(runner, session.id, message, tool_context, nested["state"], nested["tool_call"])

  async def _drive(self, runner, session_id: str, message: types.Content, tool_context: ToolContext,
                   initial_state: dict[str, Any], call: dict[str, Any]) -> Any:
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
    session = await runner.session_service.get_session(app_name=self.agent.name, user_id=parent.user_id,
                                                       session_id=session_id)
    waiting = pending_items(session.events)
    if waiting:
      ids = {item.call_id for item in waiting}
      calls = [c for e in session.events for c in e.get_function_calls() if c.id in ids]
      return NestedPause(
          tool_call=call,
          calls=calls,
          state=initial_state,
          events=[e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in session.events],
      )
    if error and last_text is None:
      return {"error": f"Agent `{self.name}` failed: {error}"}
    if last_text is None:
      return ""
    output_schema = getattr(self.agent, "output_schema", None)
    if output_schema is not None:
      from ..utils import _schema_utils

      try:
        return _schema_utils.validate_schema(output_schema, last_text)
      except ValidationError as exc:
        return {"error": f"Agent `{self.name}` answered text that does not match "
                         f"{_schema_utils.schema_name(output_schema)}: {exc.errors()[0]['msg']}."}
      except ValueError as exc:  # not JSON at all (list[str], a JSON-schema dict...)
        return {"error": f"Agent `{self.name}` answered text that does not match "
                         f"{_schema_utils.schema_name(output_schema)}: {exc}."}
    return last_text


def _parent_artifacts(tool_context: ToolContext):
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
