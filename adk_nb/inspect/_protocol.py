"""The parts of ADK's wire format the step model reads, in one place.

When `adk_nb.events.protocol` (the public protocol module) lands, these come from there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ..flows._contents import REQUEST_CONFIRMATION, STARTED_KEY

REQUEST_INPUT = "adk_request_input"
"""ADK's function call that asks a person for input (workflows' RequestInput)."""

__all__ = ["REQUEST_CONFIRMATION", "REQUEST_INPUT", "STARTED_KEY", "ConfirmationRequest", "confirmation_request"]


@dataclass(frozen=True)
class ConfirmationRequest:
  """What an `adk_request_confirmation` call asks about."""

  call_id: Optional[str]
  """The id of the tool call waiting for approval."""
  tool: str
  args: dict[str, Any] = field(default_factory=dict)
  hint: str = ""


def confirmation_request(args: dict[str, Any]) -> ConfirmationRequest:
  """Reads the arguments of an `adk_request_confirmation` call."""
  original = args.get("originalFunctionCall") or {}
  return ConfirmationRequest(call_id=original.get("id"), tool=original.get("name", "?"),
                             args=dict(original.get("args") or {}),
                             hint=(args.get("toolConfirmation") or {}).get("hint", "") or "")
