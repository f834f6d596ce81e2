"""Answers to a node's requests, and what a session's events say about each node run (google-adk 2.x's path).

The response helpers are what the runtime applies to a person's answer: `_wrap_response` makes a
value the `response` of an `adk_request_input` FunctionResponse, `_unwrap_response` takes it back
out (a lone `{"result": ...}` is unwrapped, and a JSON string inside it parsed, as google-adk's web
client sends typed text that way), `_validate_resume_response` checks and coerces it against the
request's `response_schema`.

`_reconstruct_node_states` reads the events of one invocation and returns, per node run under a
path, its last output, route, error code, interrupts and the answers they got. google-adk rebuilds
a paused workflow this way; adk_nb resumes from the one checkpoint a paused workflow commits
(`_checkpoint.py`), so its runtime does not call the reader: it is here for programs that inspect
a session (which node is waiting on what, what it was answered), over adk_nb's events, whose wire
format (node paths, `output_for`, `message_as_output`, long-running ids) is google-adk's.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, TypeAdapter, ValidationError, create_model

from ...events._branch_path import _BranchPath
from ...events._node_path_builder import _NodePathBuilder
from ...events.event import Event
from ...events.protocol import REQUEST_INPUT
from .._errors import WorkflowDataError

logger = logging.getLogger("adk_nb.workflow")

_RESULT_KEY = "result"

_JSON_TYPES: dict[str, type] = {"integer": int, "number": float, "string": str, "boolean": bool,
                                "array": list, "object": dict}


@dataclass
class _ChildScanState:
  """What the events of one invocation say about one node run (every field empty until an event fills it)."""

  run_id: Optional[str] = None
  """The run's id, when the scan keys runs by their path segment ('name@run_id')."""
  output: Any = None
  """The run's last output; None when it emitted none, or when it paused after emitting it."""
  error_code: Optional[str] = None
  """The error code of its last attempt; None once it produced a result."""
  route: Any = None
  """The route it picked, if any."""
  branch: Optional[str] = None
  """The branch of its own events."""
  isolation_scope: Optional[str] = None
  """The isolation scope its events carry, if any."""
  transfer_to_agent: Optional[str] = None
  """The agent it asked to transfer to, if any."""
  interrupt_ids: set[str] = field(default_factory=set)
  """Every request for input (long-running call id) it made."""
  resolved_ids: set[str] = field(default_factory=set)
  """The requests that were answered."""
  resolved_responses: dict[str, Any] = field(default_factory=dict)
  """The answers, unwrapped and validated, by request id."""
  finished_after_resume: bool = False
  """Whether it completed (an event with no call, answer or error) after its last answer."""


def _wrap_response(value: Any) -> dict[str, Any]:
  """`value` as a FunctionResponse `response`: a dict as it is, anything else as `{"result": value}`."""
  return value if isinstance(value, dict) else {_RESULT_KEY: value}


def _unwrap_response(data: Any) -> Any:
  """The value a FunctionResponse `response` carries: a lone `{"result": v}` gives `v` (a string holding
  JSON parsed, as a web client sends typed text), anything else is returned as it is."""
  if not (isinstance(data, dict) and len(data) == 1 and _RESULT_KEY in data):
    return data
  value = data[_RESULT_KEY]
  if isinstance(value, str):
    try:
      return json.loads(value)
    except ValueError:
      return value
  return value


def _validate_resume_response(response_data: Any, schema: Any) -> Any:
  """`response_data` checked (and coerced) against a request's `response_schema`.

  `schema` is a Python type or pydantic model, or the JSON Schema dict a stored request carries (its
  'type', and for objects its 'properties' / 'required'); a schema it cannot read is not enforced.
  Raises WorkflowDataError (a ValueError) naming what did not fit.
  """
  if schema is None:
    return response_data
  if isinstance(schema, dict):
    kind = schema.get("type")
    if kind == "object" and "properties" in schema:
      required = set(schema.get("required") or ())
      fields: dict[str, Any] = {}
      for name, prop in schema["properties"].items():
        prop_type = _JSON_TYPES.get(prop.get("type"), Any) if isinstance(prop, dict) else Any
        # An optional property takes the schema's default (google-adk: None), so the answer still fits the
        # model the schema was made from.
        default = prop.get("default") if isinstance(prop, dict) else None
        fields[name] = (prop_type, ...) if name in required else (Optional[prop_type], default)
      model = create_model("ResumeResponse", **fields)
      try:
        return model.model_validate(response_data).model_dump()
      except ValidationError as exc:
        raise WorkflowDataError(f"Validation failed for object schema: {exc}") from exc
    target = _JSON_TYPES.get(kind) if isinstance(kind, str) else None
    if target is None:
      return response_data
    try:
      return TypeAdapter(target).validate_python(response_data)
    except ValidationError as exc:
      raise WorkflowDataError(f"Failed to coerce data to {kind}: {exc}") from exc
  try:
    return TypeAdapter(schema).validate_python(response_data)
  except ValidationError as exc:
    raise WorkflowDataError(f"Validation failed against schema: {exc}") from exc


def _extract_schema_from_event(event: Event, interrupt_id: str) -> Any:
  """The `response_schema` of the `adk_request_input` call `interrupt_id` in `event`, if it has one."""
  for call in event.get_function_calls():
    if call.name == REQUEST_INPUT and call.id == interrupt_id and call.args is not None:
      return call.args.get("response_schema")
  return None


def _process_rehydrated_output(node: Any, output: Any) -> Any:
  """A node's output read back from a message (`message_as_output`): its text (thoughts left out), parsed
  against the node's `output_schema` when it has one. Stored text that no longer fits the schema but is
  JSON is returned parsed, with a warning, so a resume is not blocked by a changed schema."""
  if not isinstance(output, types.Content):
    return output
  text = "".join(p.text for p in output.parts or () if p.text and not p.thought).strip()
  if not text:
    return None
  schema = getattr(node, "output_schema", None)
  if schema is None:
    return text
  if schema is str:
    return text
  try:
    value = TypeAdapter(schema).validate_json(text)
  except ValidationError as exc:
    try:
      parsed = json.loads(text)
    except ValueError:
      raise WorkflowDataError(
          f"Validation failed for rehydrated output against schema: {exc}; the stored text is not JSON either."
      ) from exc
    logger.warning("Validation failed for rehydrated output against schema: %s. Using the stored JSON as it is "
                   "so the run can resume.", exc)
    return parsed
  return value.model_dump() if isinstance(value, BaseModel) else value


def _event_has_result(event: Event) -> bool:
  """Whether `event` carries a node's result: an output (or a message that is one), a route or a transfer."""
  info = event.node_info
  return (event.output is not None
          or bool(info is not None and info.message_as_output and event.content is not None)
          or event.actions.route is not None or event.actions.transfer_to_agent is not None)


def is_terminal_event(event: Event) -> bool:
  """Whether `event` ends a node run: a result, an error or a request for input."""
  return _event_has_result(event) or event.error_code is not None or bool(event.long_running_tool_ids)


def _reconstruct_node_states(events: list[Event], base_path: str, invocation_id: str,
                             group_by_direct_child: bool = False) -> dict[str, _ChildScanState]:
  """What the events of invocation `invocation_id` say about the node runs under `base_path`.

  With `group_by_direct_child`, one entry per direct child run of `base_path`, keyed by its path
  segment ('name@run_id'; the events of its descendants count as its own); otherwise one entry,
  keyed by `base_path`, for that run and everything under it. Answers (the user's FunctionResponses)
  resolve the requests they answer, unwrapped and validated against the request's schema.
  """
  states: dict[str, _ChildScanState] = {}
  owner_of_request: dict[str, str] = {}
  schemas: dict[str, Any] = {}
  base = _NodePathBuilder.from_string(base_path)
  call_ids = {c.id for e in events for c in e.get_function_calls() if c.id}

  for event in events:
    if invocation_id and event.invocation_id != invocation_id:
      continue
    if event.author == "user":
      if owner_of_request or states:
        _apply_answers(event, states, owner_of_request, schemas)
      continue
    path = _NodePathBuilder.from_string(event.node_info.path if event.node_info and event.node_info.path else "")
    if group_by_direct_child:
      if not path.is_descendant_of(base):
        continue
      key = base.get_direct_child(path).leaf_segment
      direct = path.is_direct_child_of(base)
      own_path = str(base.append(key))
    else:
      if not (path == base or path.is_descendant_of(base)):
        continue
      key, direct, own_path = base_path, path == base, base_path
    state = states.get(key)
    if state is None:
      state = states[key] = _ChildScanState(run_id=_NodePathBuilder.from_string(key).run_id)
    _apply_event(event, state, direct, own_path, call_ids)
    for request_id in sorted(event.long_running_tool_ids or ()):
      state.interrupt_ids.add(request_id)
      state.resolved_ids.discard(request_id)
      state.resolved_responses.pop(request_id, None)
      owner_of_request[request_id] = key
      schema = _extract_schema_from_event(event, request_id)
      if schema:
        schemas[request_id] = schema
    if direct:
      state.finished_after_resume = (not event.long_running_tool_ids and state.error_code is None
                                     and not event.partial and not event.get_function_calls()
                                     and not event.get_function_responses())
  return states


def _apply_answers(event: Event, states: dict[str, _ChildScanState], owner_of_request: dict[str, str],
                   schemas: dict[str, Any]) -> None:
  for response in event.get_function_responses():
    if not response.id:
      continue
    value = _unwrap_response(response.response)
    schema = schemas.get(response.id)
    if schema:
      try:
        value = _validate_resume_response(value, schema)
      except ValueError as exc:
        raise WorkflowDataError(f"Validation failed for interrupt {response.id}: {exc}") from exc
    owner = owner_of_request.get(response.id)
    if owner is not None:
      _resolve(states.setdefault(owner, _ChildScanState()), response.id, value)
    elif event.branch:
      # An answer given on a request's own branch (a tool's lane) resolves the request that branch names.
      run_ids = set(_BranchPath.from_string(event.branch).run_ids)
      for state in states.values():
        for request_id in state.interrupt_ids & run_ids:
          _resolve(state, request_id, value)


def _resolve(state: _ChildScanState, request_id: str, value: Any) -> None:
  state.resolved_ids.add(request_id)
  state.resolved_responses[request_id] = value
  # It paused to ask: what it emitted before is not its result (its route stands).
  state.output = None
  state.finished_after_resume = False


def _apply_event(event: Event, state: _ChildScanState, direct: bool, own_path: str, call_ids: set[str]) -> None:
  info = event.node_info
  output_for = (info.output_for or ()) if info is not None else ()
  if direct and event.isolation_scope:
    state.isolation_scope = event.isolation_scope
  claimed = event.output is not None and len(output_for) > 1 and not event.get_function_responses()
  tool_lane = bool(event.branch and _BranchPath.is_tool_branch(event.branch, _NodePathBuilder.from_string(
      own_path).node_name, call_ids))
  if direct and event.branch and not claimed and not tool_lane:
    state.branch = event.branch
  message_output = (event.output is None and info is not None and info.message_as_output
                    and event.content is not None)
  delegated = (event.output is not None or message_output) and own_path in output_for
  if not (direct or delegated):
    return
  if event.output is not None:
    state.output = event.output
  elif message_output:
    state.output = event.content
  if event.actions.route is not None:
    state.route = event.actions.route
  if event.actions.transfer_to_agent is not None:
    state.transfer_to_agent = event.actions.transfer_to_agent
  # The latest attempt decides: a result (even on an event with an error code, as a model's response
  # that stopped for another reason is) or a clean event clears an earlier attempt's error.
  if _event_has_result(event) or (event.error_code is None and not event.partial):
    state.error_code = None
  elif event.error_code is not None:
    state.error_code = event.error_code
