"""The answer a person gives to a tool call that asked for confirmation."""

from __future__ import annotations

import json
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, alias_generators


class ToolConfirmation(BaseModel):
  """A request for, or an answer to, a tool call that needs a person's approval."""

  model_config = ConfigDict(
      extra="forbid", alias_generator=alias_generators.to_camel, populate_by_name=True
  )

  hint: str = ""
  """Why the tool asks: shown to the person deciding."""
  confirmed: bool = False
  """True when the person approved the call."""
  payload: Optional[Any] = None
  """Extra JSON data the person supplies (for example edited arguments)."""

  @classmethod
  def from_response_dict(cls, response: dict[str, Any]) -> "ToolConfirmation":
    """Parses a function response, accepting ADK web's `{'response': '<json>'}` wrapper."""
    if response and len(response) == 1 and "response" in response and isinstance(response["response"], str):
      return cls.model_validate(json.loads(response["response"]))
    return cls.model_validate(response)


NEEDS_CONFIRMATION_RESPONSE = {"error": "This tool call requires confirmation, please approve or reject."}
"""The placeholder answer of a call paused for confirmation (ADK's wording, which clients match)."""
REJECTED_RESPONSE = {"error": "This tool call is rejected."}
"""The answer of a call a person rejected (ADK's wording)."""


def approval_hint(tool_name: str) -> str:
  """The hint shown for a call paused by `require_confirmation` (ADK's wording)."""
  return (f"Please approve or reject the tool call {tool_name}() by responding with a FunctionResponse "
          "with an expected ToolConfirmation payload.")
