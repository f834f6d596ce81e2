"""The wire protocol carried inside events: ADK's reserved call names and adk_nb's metadata keys.

Every layer that writes or reads these names imports them from here (the flows that write
them, `adk_nb.pending` and the Runner that match answers, the notebook views that show them),
so the confirmation format is parsed in one place. Nothing here runs an agent.

ADK's names (`adk_request_confirmation`, `adk_request_input`, `adk_request_credential`) are
wire-compatible with google-adk. The `adk_nb_*` metadata keys are ours: google-adk ignores
them, and a session written by adk_nb stays readable there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

from google.genai import types

from .event import Event

REQUEST_CONFIRMATION = "adk_request_confirmation"
"""The long-running call that asks a person to approve a tool call (ADK's name)."""
REQUEST_INPUT = "adk_request_input"
"""The long-running call that asks a person for input (ADK 2.x workflows)."""
REQUEST_CREDENTIAL = "adk_request_credential"
"""The long-running call that asks the client for credentials (ADK's name)."""
MALFORMED_ARGUMENTS_KEY = "__adk_nb_malformed_arguments__"
"""Key of FunctionCall.args when a model sent tool arguments that are not a JSON object.

Its value is `{"raw": <the text the model sent>, "error": <why it does not parse>}`. The model
adapters write it; the flow answers such a call with an error function response so the model
can try again, and the adapters echo the raw text back to the model that wrote it.
"""
TOOL_CALL_DELTA_KEY = "adk_nb_tool_call_delta"
"""custom_metadata key of a streamed partial response that carries a tool-call fragment (no content)."""
PROTOCOL_CALLS = frozenset({REQUEST_CONFIRMATION, REQUEST_INPUT, REQUEST_CREDENTIAL})
"""Calls the framework makes to the client (not tool calls): a person or the client answers them."""
HIDDEN_FROM_MODEL = frozenset({REQUEST_CONFIRMATION, REQUEST_CREDENTIAL})
"""Protocol calls left out of what a model is sent, as google-adk does (`adk_request_input` stays visible)."""

NESTED_KEY = "adk_nb_nested"
"""custom_metadata key of an event that raises an AgentTool's pending calls to the caller."""
NESTED_ANSWER_KEY = "adk_nb_nested_answer"
"""custom_metadata key listing the answers in a user message that belong to nested calls."""
STARTED_KEY = "adk_nb_tool_started"
"""custom_metadata key of the marker committed just before an approved tool runs (value: the call id)."""
INTERRUPTED_KEY = "adk_nb_interrupted"
"""custom_metadata key of the event answering calls whose run was interrupted (value: their ids)."""
TRACEBACK_KEY = "adk_nb_traceback"
"""custom_metadata key of an error event reporting an exception: its traceback (cut, see errors.traceback_text)."""
GATED_KEY = "adk_nb_gated"
"""custom_metadata key of a confirmation request event: the ids of the original calls whose approval
the tool's `require_confirmation` asked for (not the tool itself). A rejection of one of them is
answered without running the tool, whatever the tool's code says when the answer arrives."""
EDITED_FROM_KEY = "adk_nb_edited_from"
"""custom_metadata key of the event an edited fork put in another's place (value: the replaced event's id)."""


@dataclass(frozen=True)
class ConfirmationRequest:
  """One `adk_request_confirmation` call, read: which tool call it guards and why."""

  request_id: str
  """The id to answer (the `adk_request_confirmation` call's own id)."""
  original: types.FunctionCall
  """The tool call waiting for approval."""
  hint: str = ""
  """Why approval is needed, as the tool put it."""
  payload: Any = None
  """The payload the tool attached to its request."""
  raw: dict[str, Any] = field(default_factory=dict)
  """The call's arguments as sent."""


def confirmation_request(call: types.FunctionCall) -> Optional[ConfirmationRequest]:
  """The confirmation `call` carries, or None when it is not an `adk_request_confirmation` call.

  Tolerant: a request whose arguments were mangled still reads, with empty fields, so a
  view or a resume can report it instead of failing.
  """
  if call.name != REQUEST_CONFIRMATION:
    return None
  args = dict(call.args or {})
  original = args.get("originalFunctionCall")
  try:
    original_call = types.FunctionCall.model_validate(original or {})
  except ValueError:
    original_call = types.FunctionCall()
  confirmation = args.get("toolConfirmation")
  if not isinstance(confirmation, dict):
    confirmation = {}
  return ConfirmationRequest(request_id=call.id or "", original=original_call,
                             hint=confirmation.get("hint") or "", payload=confirmation.get("payload"), raw=args)


NODE_CONFIRMATION_PREFIX = "wf_tool_confirmation:"
"""Interrupt-id prefix of a workflow FunctionNode asking approval to run (google-adk 2.x's id)."""


def node_confirmation(call_id: Optional[str], args: Optional[dict[str, Any]]) -> Optional[tuple[str, dict[str, Any]]]:
  """(tool name, arguments) when an `adk_request_input` call asks a person to approve a workflow node's run.

  Such a request is answered like a RequestInput, with a ToolConfirmation (`{"confirmed": true}`); views
  offer Approve / Reject for it instead of an answer box. None for any other call.
  """
  if not (call_id or "").startswith(NODE_CONFIRMATION_PREFIX):
    return None
  payload = (args or {}).get("payload")
  if not isinstance(payload, dict):
    payload = {}
  node_args = payload.get("args")
  return str(payload.get("tool_name") or call_id[len(NODE_CONFIRMATION_PREFIX):]), (
      dict(node_args) if isinstance(node_args, dict) else {})


def confirmation_request_call(request_id: str, original: types.FunctionCall, confirmation: Any) -> types.FunctionCall:
  """The `adk_request_confirmation` call asking a person to approve `original` (ADK's argument names)."""
  return types.FunctionCall(
      id=request_id,
      name=REQUEST_CONFIRMATION,
      args={
          "originalFunctionCall": original.model_dump(exclude_none=True, by_alias=True),
          "toolConfirmation": confirmation.model_dump(by_alias=True, exclude_none=True),
      },
  )


def start_marker(call_id: str) -> dict[str, Any]:
  """The custom_metadata of the marker committed just before approved call `call_id` runs."""
  return {STARTED_KEY: call_id}


def started_call_id(event: Event) -> Optional[str]:
  """The call id an event marks as started, or None when it is not a start marker."""
  meta = event.custom_metadata
  if meta and STARTED_KEY in meta:
    return meta[STARTED_KEY]
  return None


def is_start_marker(event: Event) -> bool:
  """True for the at-most-once marker: bookkeeping, not a step a view shows."""
  return bool(event.custom_metadata) and STARTED_KEY in event.custom_metadata


def nested_pause(event: Event) -> Optional[dict[str, Any]]:
  """The nested-run record of an event raising an AgentTool's pending calls ('tool_call', 'state', 'events')."""
  meta = event.custom_metadata
  if meta and NESTED_KEY in meta:
    return meta[NESTED_KEY]
  return None


def nested_answer_ids(event: Event) -> tuple[str, ...]:
  """The ids of answers in a user message that belong to calls raised from an AgentTool."""
  meta = event.custom_metadata
  return tuple(meta.get(NESTED_ANSWER_KEY) or ()) if meta else ()


def interrupted_ids(event: Event) -> tuple[str, ...]:
  """The ids of calls an event answers as interrupted (outcome unknown)."""
  meta = event.custom_metadata
  return tuple(meta.get(INTERRUPTED_KEY) or ()) if meta else ()


def error_traceback(event: Event) -> str:
  """The traceback an error event keeps ('' when it has none: a model's refusal, a run from before)."""
  meta = event.custom_metadata
  text = meta.get(TRACEBACK_KEY) if meta else None
  return text if isinstance(text, str) else ""


def long_running_calls(event: Event) -> Iterator[types.FunctionCall]:
  """The calls of `event` that wait for a later answer (a person's or an external system's)."""
  ids = event.long_running_tool_ids
  if not ids:
    return
  for call in event.get_function_calls():
    if call.id in ids:
      yield call


def reply_text(event: Event) -> Optional[str]:
  """The text a person reads as the run's answer in `event`, or None when it holds none.

  That is an agent's final reply, or the output of a top-level graph Workflow (the event of its
  terminal node: `node_info.output_for` names the workflow's own path, e.g. 'wf@1'), shown as
  the string itself or as JSON. A workflow of function nodes has no reply text otherwise.
  """
  if event.author == "user" or event.partial:
    return None
  if event.text and event.is_final_response():
    return event.text
  info = event.node_info
  if event.output is None or info is None or not info.output_for:
    return None
  if not any("/" not in path for path in info.output_for):
    return None  # the output of an inner node or nested workflow, not of the run
  if isinstance(event.output, str):
    return event.output
  return json.dumps(event.output, ensure_ascii=False, default=str)
