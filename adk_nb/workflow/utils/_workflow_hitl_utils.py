"""The wire format of a node's request for input: an `adk_request_input` function call and its answer."""

from __future__ import annotations

from typing import Any, Mapping

from google.genai import types

from ...events.protocol import REQUEST_INPUT
from .._values import request_input_event as create_request_input_event

REQUEST_INPUT_FUNCTION_CALL_NAME = REQUEST_INPUT
"""The name of the long-running call a RequestInput becomes ('adk_request_input')."""

__all__ = ["REQUEST_INPUT_FUNCTION_CALL_NAME", "create_auth_request_event", "create_request_input_event",
           "create_request_input_response"]


def create_request_input_response(interrupt_id: str, response: Mapping[str, Any]) -> types.Part:
  """The FunctionResponse part that answers the request `interrupt_id` (send it as the next message)."""
  return types.Part(function_response=types.FunctionResponse(id=interrupt_id, name=REQUEST_INPUT,
                                                             response=dict(response)))


def create_auth_request_event(auth_config: Any, interrupt_id: str, state: Any = None) -> "Event":
  """The event that asks the client for a credential: an `adk_request_credential` call with id `interrupt_id`
  (long-running), whose arguments are google-adk's (`functionCallId`, `authConfig`, and a `message` to show).

  `state` is taken for google-adk's signature: adk_nb does no OAuth code exchange, so it generates no OAuth
  state or PKCE verifier to keep there.
  """
  from ...auth.auth_handler import AuthHandler
  from ...auth.auth_tool import AuthToolArguments
  from ...events.event import Event
  from ...events.protocol import REQUEST_CREDENTIAL

  request = AuthToolArguments(function_call_id=interrupt_id,
                              auth_config=AuthHandler(auth_config).generate_auth_request())
  args = request.model_dump(mode="json", exclude_none=True, by_alias=True)
  args["message"] = _credential_message(auth_config)
  return Event(content=types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(
      name=REQUEST_CREDENTIAL, id=interrupt_id, args=args))]), long_running_tool_ids={interrupt_id})


def _credential_message(auth_config: Any) -> str:
  raw = getattr(auth_config, "raw_auth_credential", None)
  kind = str(getattr(getattr(raw, "auth_type", None), "value", getattr(raw, "auth_type", "")) or "")
  if kind == "apiKey":
    scheme = getattr(auth_config, "auth_scheme", None)
    name = (scheme.get("name") if isinstance(scheme, dict) else getattr(scheme, "name", None)) or "API key"
    return f"An API key for {name} is needed before this step can run."
  if kind in ("oauth2", "openIdConnect"):
    return "Sign in and grant access; this step runs once you have."
  return "A credential is needed before this step can run."
