"""`request_input`: a tool an LLM agent can be given to ask the user something and wait (ADK 2.x path).

The model calls `adk_request_input(message=..., response_schema=...)`; the call is long-running,
so the turn ends with it pending. The client answers with
`FunctionResponse(name='adk_request_input', id=<the call's id>, response={...})` and the agent
continues with that answer, as with any long-running tool (and as a workflow's RequestInput).
"""

from __future__ import annotations

from typing import Any, Optional

from ..events.protocol import REQUEST_INPUT
from .long_running_tool import LongRunningFunctionTool

__all__ = ["request_input"]


def _request_input(message: str, response_schema: Optional[dict[str, Any]] = None) -> None:
  """Puts a question to the user and pauses until they reply. Use it when you need facts or a
  decision from the user before you can go on.

  Args:
    message: The question, as the user will read it.
    response_schema: A JSON schema for the answer: {"type": "string"} for free text,
      {"type": "boolean"} for yes or no, or an object schema for structured input.
  """
  return None  # no answer yet: the call stays pending until the user's response arrives


_request_input.__name__ = REQUEST_INPUT

request_input = LongRunningFunctionTool(_request_input)
"""The tool: put it in an LlmAgent's `tools` to let the model ask the user."""
