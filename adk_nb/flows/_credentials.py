"""The credential round trip: a tool asks the client for a credential, the client answers, the tool runs again.

1. A tool calls `tool_context.request_credential(auth_config)` (and answers something like "pending"):
   its call's answer carries `actions.requested_auth_configs`. The flow then yields, before that
   answer, an event with one long-running `adk_request_credential` call per credential asked
   (args `{"functionCallId": <the tool call>, "authConfig": <the request, no secrets>}`, google-adk's
   wire format; two calls asking for the same `credential_key` share one request), and the
   invocation pauses. The model never sees the request, nor the "pending" answer.
2. The client answers with a FunctionResponse named `adk_request_credential` (the id of the request;
   the response the AuthConfig with `exchanged_auth_credential` filled in, or that credential alone,
   or a bare API key). `adk_nb.resume` checks the answer before anything is committed
   (`credential_from_answer`); the resumed run keeps the credential in `temp:<credential_key>`
   (readable by `tool_context.get_auth_response`) and calls again each tool call that asked for that
   credential: the one case where a tool body runs a second time for one call, on purpose, since
   its first run only asked. A call that did not ask is never run again, and a call that asked is
   run again at most once per answer (its start marker is committed first; an answer seen again
   finds it and does nothing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncGenerator, Optional

from google.genai import types

from ..events.event import Event
from ..events.protocol import REQUEST_CREDENTIAL, nested_pause, start_marker, started_call_id
from ..pending import invocation_tail
from . import _functions

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext
  from ..agents.llm_agent import LlmAgent
  from ..auth.auth_credential import AuthCredential
  from ..auth.auth_tool import AuthConfig, AuthToolArguments


def credential_request_event(ctx: "InvocationContext", agent_name: str, response_event: Event) -> Optional[Event]:
  """The long-running `adk_request_credential` calls for the credentials a function response event asks for
  (google-adk's format and role); None when it asks for none."""
  requested = response_event.actions.requested_auth_configs
  if not requested:
    return None
  role = response_event.content.role if response_event.content is not None else None
  return request_event(ctx, agent_name, requested, role)


def request_event(ctx: "InvocationContext", author: str, requested: dict[str, Any], role: Optional[str]) -> Event:
  """The event asking the client for `requested` (tool call id -> AuthConfig): one long-running
  `adk_request_credential` call per credential_key."""
  from ..auth.auth_tool import AuthToolArguments

  parts, ids, keys = [], set(), set()
  for call_id, config in requested.items():
    key = _key_of(config)
    if key and key in keys:
      continue  # one request per credential: its answer re-runs every call that asked for it
    keys.add(key)
    request_id = _functions.new_function_call_id()
    ids.add(request_id)
    args = AuthToolArguments(function_call_id=call_id, auth_config=config).model_dump(
        mode="json", exclude_none=True, by_alias=True)
    parts.append(types.Part(function_call=types.FunctionCall(id=request_id, name=REQUEST_CREDENTIAL, args=args)))
  return Event(invocation_id=ctx.invocation_id, author=author, branch=ctx.branch,
               content=types.Content(role=role, parts=parts), long_running_tool_ids=ids)


def _key_of(config: Any) -> Optional[str]:
  """The credential_key of a requested AuthConfig, also as read back from a store (a dict)."""
  if isinstance(config, dict):
    return config.get("credentialKey") or config.get("credential_key")
  return getattr(config, "credential_key", None)


def request_arguments(call: types.FunctionCall) -> "AuthToolArguments":
  """The arguments of an `adk_request_credential` call, read back (ValueError when they do not parse)."""
  from ..auth.auth_tool import AuthToolArguments

  return AuthToolArguments.model_validate(call.args or {})


def credential_from_answer(requested: "AuthConfig", response: Any) -> "AuthCredential":
  """The credential a client's answer to a credential request carries.

  Accepted, as google-adk: the AuthConfig (a dict, camelCase or snake_case) with
  `exchanged_auth_credential` filled in, an AuthCredential alone, or a bare API key (a string) when the
  request is for an API key. Raises ValueError naming what to send otherwise.
  """
  from pydantic import ValidationError

  from ..auth.auth_credential import AuthCredential, AuthCredentialTypes
  from ..auth.auth_tool import AuthConfig

  value = response
  if isinstance(value, dict) and set(value) == {"result"}:
    value = value["result"]  # a bare value sent through a dict-only client
  if isinstance(value, str) and value.strip():
    raw = requested.raw_auth_credential
    if raw is not None and raw.auth_type == AuthCredentialTypes.API_KEY:
      return AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key=value)
  if isinstance(value, dict):
    if any(k in value for k in ("authScheme", "auth_scheme", "exchangedAuthCredential", "exchanged_auth_credential")):
      try:
        credential = AuthConfig.model_validate(value).exchanged_auth_credential
      except ValidationError as exc:
        raise ValueError(f"the AuthConfig does not parse ({_first_error(exc)})") from None
      if credential is not None:
        return credential
      raise ValueError("the AuthConfig has no exchanged_auth_credential: fill in `exchangedAuthCredential` "
                       "(for an API key: {\"authType\": \"apiKey\", \"apiKey\": ...})")
    try:
      return AuthCredential.model_validate(value)
    except ValidationError as exc:
      raise ValueError(f"the credential does not parse ({_first_error(exc)})") from None
  raise ValueError(f"a {type(value).__name__} is not a credential")


def _first_error(exc: Any) -> str:
  error = exc.errors()[0]
  where = ".".join(str(p) for p in error.get("loc", ())) or "value"
  return f"{where}: {error.get('msg')}"


def answer_problem(call: types.FunctionCall, response: Any) -> Optional[str]:
  """Why `response` does not answer the credential request `call`, or None when it does."""
  try:
    requested = request_arguments(call).auth_config
  except ValueError:
    return None  # a mangled request: the resume reports it to the model instead
  try:
    credential_from_answer(requested, response)
  except ValueError as exc:
    return str(exc)
  return None


def _requests(agent: "LlmAgent", ctx: "InvocationContext", tail) -> dict[str, types.FunctionCall]:
  """This agent's `adk_request_credential` calls in the invocation that the resume answers, by id."""
  answers = ctx.resume_answers
  found: dict[str, types.FunctionCall] = {}
  for event in tail:
    if event.invocation_id != ctx.invocation_id or event.author != agent.name or not event.long_running_tool_ids:
      continue
    if nested_pause(event) is not None:
      continue  # raised from an AgentTool: its agent takes the answer (resume_nested_calls)
    for call in event.get_function_calls():
      if call.name == REQUEST_CREDENTIAL and call.id in answers:
        found[call.id] = call
  return found


async def resume_credential_calls(agent: "LlmAgent", ctx: "InvocationContext") -> AsyncGenerator[Event, None]:
  """Keeps the credentials the client answered with and runs again the tool calls that asked for them."""
  tail = invocation_tail(ctx.session, ctx.invocation_id)
  requests = _requests(agent, ctx, tail)
  if not requests:
    return
  from ..auth.auth_handler import AuthHandler

  stored: dict[str, Any] = {}
  keys: set[str] = set()
  for request_id, call in requests.items():
    answer = ctx.resume_answers.pop(request_id)
    args = request_arguments(call)
    config = args.auth_config.model_copy(deep=True)
    config.exchanged_auth_credential = credential_from_answer(args.auth_config, answer.response)
    state: dict[str, Any] = {}
    await AuthHandler(config).parse_and_store_auth_response(state)
    stored.update(state)
    keys.add(config.credential_key or "")
  # Every call of this agent in the invocation whose latest request was for one of these credentials and that
  # has not run again since (its start marker comes after the request): a call asking again asks anew.
  latest: dict[str, Optional[str]] = {}  # call id -> the key it waits for, None once it ran again
  for event in tail:
    if event.invocation_id != ctx.invocation_id or event.author != agent.name:
      continue
    started = started_call_id(event)
    if started is not None and started in latest:
      latest[started] = None
    for call_id, config in (event.actions.requested_auth_configs or {}).items():
      latest[call_id] = _key_of(config)
  asked = {call_id for call_id, key in latest.items() if key is not None and key in keys}
  calls = [c for e in tail if e.invocation_id == ctx.invocation_id and e.author == agent.name
           and e.content is not None and e.content.role == "model"
           for c in e.get_function_calls() if c.id in asked]
  if not calls:
    # Nothing to run again: the credential is kept for the rest of the invocation all the same.
    yield Event(invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch,
                actions=_state_actions(stored))
    return
  tools = {t.name: t for t in await agent.canonical_tools(ctx)}
  for i, call in enumerate(calls):
    # Committed before the tool runs again: the at-most-once marker (the first one carries the credential,
    # kept in temp: state, which the session keeps for this invocation and never stores).
    marker = Event(invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch,
                   custom_metadata=start_marker(call.id))
    if i == 0:
      marker.actions = _state_actions(stored)
    yield marker
  results = await _functions.handle_function_calls(agent, ctx, calls, tools)
  async for event in emit_with_requests(agent, ctx, results):
    yield event


def _state_actions(delta: dict[str, Any]):
  from ..events.event_actions import EventActions

  return EventActions(state_delta={k: (v.model_dump(mode="json", exclude_none=True, by_alias=True)
                                       if hasattr(v, "model_dump") else v) for k, v in delta.items()})


async def emit_with_requests(agent: "LlmAgent", ctx: "InvocationContext",
                             results: "_functions.CallResults") -> AsyncGenerator[Event, None]:
  """A step's events with its credential requests first (google-adk's order); pauses when a credential is asked."""
  request = None if results.event is None else credential_request_event(ctx, agent.name, results.event)
  if request is not None:
    yield request
  async for event in _functions.emit_results(ctx, results):
    yield event
  if request is not None and not ctx.paused:
    ctx.pause()
