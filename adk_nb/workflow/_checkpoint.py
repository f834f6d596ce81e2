"""Where a paused workflow stopped: the checkpoint event it commits, and the answers that resume it.

A workflow that pauses commits one event whose `actions.agent_state` holds its scheduler
state (runs, outputs, queued triggers, waiting nodes). A resume restores that state instead
of replaying the graph, so completed nodes never run twice and the cost of a resume does
not depend on how long the session is. Only the events of the resumed invocation are read.
"""

from __future__ import annotations

from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel

from ..events.event import Event, NodeInfo
from ._errors import WorkflowDataError

_CONTENT = "__adk_nb_content__"


def encode(value: Any) -> Any:
  """A JSON-friendly form of a node value (Content and pydantic models are tagged or dumped)."""
  if isinstance(value, types.Content):
    return {_CONTENT: value.model_dump(mode="json", exclude_none=True)}
  if isinstance(value, BaseModel):
    return value.model_dump(mode="json")
  if isinstance(value, dict):
    return {k: encode(v) for k, v in value.items()}
  if isinstance(value, (list, tuple)):
    return [encode(v) for v in value]
  return value


def decode(value: Any) -> Any:
  if isinstance(value, dict):
    if len(value) == 1 and _CONTENT in value:
      return types.Content.model_validate(value[_CONTENT])
    return {k: decode(v) for k, v in value.items()}
  if isinstance(value, list):
    return [decode(v) for v in value]
  return value


def invocation_events(events: list[Event], invocation_id: str) -> list[Event]:
  """The events of one invocation, oldest first, read back from the end of the session.

  The scan stops at the message that started the invocation, so a fresh invocation costs
  one step and a resume costs the length of its own invocation, not of the session.
  """
  found: list[Event] = []
  for event in reversed(events):
    if event.invocation_id != invocation_id:
      continue
    found.append(event)
    if _starts_invocation(event):
      break
  found.reverse()
  return found


class Progress:
  """What the nodes of a workflow committed after its checkpoint, in a pass that was interrupted
  (the process stopped or the run was cancelled before the workflow paused again or finished)."""

  __slots__ = ("outputs", "routes", "started", "interrupts", "answers")

  def __init__(self) -> None:
    self.outputs: dict[str, Any] = {}
    """Node run path -> the output it committed (the run completed)."""
    self.routes: dict[str, Any] = {}
    """Node run path -> the route it committed."""
    self.started: set[str] = set()
    """Node run paths with any event committed."""
    self.interrupts: dict[str, list[str]] = {}
    """Node run path -> the requests (long-running call ids) it made itself."""
    self.answers: dict[str, Any] = {}
    """Answers to requests made after the checkpoint (by call id): given after the request they answer,
    so an id asked again after its earlier request was answered gets only the later answer."""


def find_checkpoint(events: list[Event], path: str
                    ) -> tuple[Optional[dict[str, Any]], dict[str, Any], Optional[Progress]]:
  """(the latest paused-state checkpoint of the workflow at `path`, answers given after it by call id,
  what its direct nodes committed after it, or None when they committed nothing)."""
  for index in range(len(events) - 1, -1, -1):
    state = events[index].actions.agent_state
    if state is not None and state.get("workflow") == path:
      if state.get("status") != "paused":
        return None, {}, None
      answers: dict[str, Any] = {}
      later_answers: dict[str, Any] = {}
      asked_again: set[str] = set()
      progress: Optional[Progress] = None
      prefix = path + "/"
      for later in events[index + 1:]:
        for response in later.get_function_responses():
          if response.id:
            # An answer goes to the request open when it was given: the checkpoint's, or, once a node
            # asked with that id again after the checkpoint, that later request.
            (later_answers if response.id in asked_again else answers)[response.id] = response.response
        if later.long_running_tool_ids:
          asked_again.update(later.long_running_tool_ids)
        info = later.node_info
        if info is not None and info.path == path and later.custom_metadata and RESUMED_KEY in later.custom_metadata:
          progress = progress or Progress()
          progress.started.update(later.custom_metadata[RESUMED_KEY])
          continue
        if info is None or not info.path or not info.path.startswith(prefix):
          continue
        if progress is None:
          progress = Progress()
        child = prefix + info.path[len(prefix):].split("/", 1)[0]
        progress.started.add(child)
        if child in (info.output_for or ()):
          progress.outputs[child] = later.content if info.message_as_output and later.output is None else later.output
        if info.path == child and later.actions.route is not None:
          progress.routes[child] = later.actions.route
        if info.path == child and later.long_running_tool_ids:
          progress.interrupts.setdefault(child, []).extend(sorted(later.long_running_tool_ids))
      if later_answers:
        progress = progress or Progress()
        progress.answers = _answer_values(events, later_answers)
      return state, _answer_values(events[:index], answers), progress
  return None, {}, None


def _answer_values(before: list[Event], answers: dict[str, Any]) -> dict[str, Any]:
  """The answers as the nodes get them, as in google-adk: a lone `{"result": v}` unwrapped to `v`, and an
  answer to a request with a `response_schema` checked (and coerced) against it."""
  if not answers:
    return answers
  from .utils._rehydration_utils import _extract_schema_from_event, _unwrap_response, _validate_resume_response

  values = {call_id: _unwrap_response(response) for call_id, response in answers.items()}
  unchecked = set(values)
  for event in reversed(before):  # the latest request with an id is the one its answer answers
    if not unchecked:
      break
    if not event.long_running_tool_ids:
      continue
    for call_id in event.long_running_tool_ids & unchecked:
      unchecked.discard(call_id)
      schema = _extract_schema_from_event(event, call_id)
      if schema:
        try:
          values[call_id] = _validate_resume_response(values[call_id], schema)
        except ValueError as exc:
          raise WorkflowDataError(
              f"Validation failed for interrupt {call_id}: the answer to request {call_id!r} does not fit its "
              f"response_schema ({schema_summary(schema)}): "
              f"{exc}. No node ran."
          ) from exc
  return values


def schema_summary(schema: Any) -> str:
  """A request's response_schema in one line: its title and fields (name: type, required)."""
  if not isinstance(schema, dict):
    return str(schema)
  properties = schema.get("properties")
  if not isinstance(properties, dict):
    return str(schema.get("type", schema))
  required = set(schema.get("required") or ())
  fields = [f"{name}: {prop.get('type', 'any') if isinstance(prop, dict) else 'any'}"
            f"{', required' if name in required else ''}" for name, prop in properties.items()]
  title = schema.get("title")
  return (f"{title}: " if title else "") + "; ".join(fields)


RESUMED_KEY = "adk_nb_resumed_nodes"
"""custom_metadata key of the marker a resumed workflow commits before nodes run again."""


def resumed_marker(invocation_id: str, author: str, branch: Optional[str], path: str, paths: list[str]) -> Event:
  """The event a workflow commits (without yielding it) before runs at `paths` run again on resume."""
  return Event(invocation_id=invocation_id, author=author, branch=branch, node_info=NodeInfo(path=path),
               custom_metadata={RESUMED_KEY: list(paths)})


def original_user_content(events: list[Event]) -> Optional[types.Content]:
  """The message that started the invocation (START's input again on resume)."""
  for event in events:
    if _starts_invocation(event):
      return event.content
  return None


def _starts_invocation(event: Event) -> bool:
  # An agent node's input turn is a user event too, but it carries the node's path.
  return (event.author == "user" and event.content is not None and not event.node_info.path
          and not event.get_function_responses())
