"""The wire format of a node's request for input: an `adk_request_input` function call and its answer."""

from __future__ import annotations

from typing import Any, Mapping

from google.genai import types

from ...events.protocol import REQUEST_INPUT
from .._values import request_input_event as create_request_input_event

REQUEST_INPUT_FUNCTION_CALL_NAME = REQUEST_INPUT
"""The name of the long-running call a RequestInput becomes ('adk_request_input')."""

__all__ = ["REQUEST_INPUT_FUNCTION_CALL_NAME", "create_request_input_event", "create_request_input_response"]


def create_request_input_response(interrupt_id: str, response: Mapping[str, Any]) -> types.Part:
  """The FunctionResponse part that answers the request `interrupt_id` (send it as the next message)."""
  return types.Part(function_response=types.FunctionResponse(id=interrupt_id, name=REQUEST_INPUT,
                                                             response=dict(response)))
