"""The answer a person gives to a tool call that asked for confirmation."""

from __future__ import annotations

import inspect
import json
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from pydantic import BaseModel, ConfigDict, alias_generators

if TYPE_CHECKING:
  from .tool_context import ToolContext


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


# The two answers below are interface strings, kept exactly as google-adk spells them: they are
# committed to the session as the call's function response, where code and tests written against
# google-adk recognise a paused or rejected call by comparing the text, and a session stored in
# google-adk's table layout may be resumed by either framework.
NEEDS_CONFIRMATION_RESPONSE = {"error": "This tool call requires confirmation, please approve or reject."}
"""The placeholder answer of a call paused for confirmation (an interface string, see above)."""
REJECTED_RESPONSE = {"error": "This tool call is rejected."}
"""The answer of a call a person rejected (an interface string, see above)."""

_HINT_TAIL = ("() is waiting for approval. Answer this request with a FunctionResponse carrying a "
              "ToolConfirmation (confirmed: true or false).")
_ADK_HINT_START = "Please approve or reject the tool call"
"""How google-adk's default hint begins. Matched, not written: sessions written by google-adk carry it."""


def approval_hint(tool_name: str) -> str:
  """The hint shown for a call paused by `require_confirmation`: advice to API clients on how to answer."""
  return f"{tool_name}{_HINT_TAIL}"


def is_default_hint(hint: str) -> bool:
  """Whether `hint` is a default hint (ours or google-adk's), which addresses API clients, not people."""
  return hint.endswith(_HINT_TAIL) or hint.startswith(_ADK_HINT_START)


async def confirmation_required(rule: Union[bool, Callable[..., Any]], args: dict[str, Any],
                                tool_context: "ToolContext") -> bool:
  """Applies a tool's `require_confirmation`: a bool as is, or the predicate's answer for these arguments.

  The predicate gets the arguments it names (all of them when it takes `**kwargs`) and
  `tool_context` when it names it or takes `**kwargs`, as google-adk's MCP tools pass them;
  it may be async.
  """
  if not callable(rule):
    return bool(rule)
  params = inspect.signature(rule).parameters
  takes_all = any(p.kind is p.VAR_KEYWORD for p in params.values())
  values = dict(args) if takes_all else {k: v for k, v in args.items() if k in params}
  if takes_all or "tool_context" in params:
    values["tool_context"] = tool_context
  out = rule(**values)
  if inspect.isawaitable(out):
    out = await out
  return bool(out)


async def confirmation_gate(tool: Any, args: dict[str, Any], tool_context: "ToolContext") -> Optional[dict[str, Any]]:
  """What a tool answers instead of running when its `require_confirmation` applies; None: run it.

  Asks for approval (pausing the call) when no answer has come yet, and answers a rejection
  with REJECTED_RESPONSE. The flow decides this before calling the tool; tools call this too so
  that one run by other means (directly, from a plugin) cannot skip the approval, as in ADK.
  `tool` has `_require_confirmation` and `needs_confirmation(args, tool_context)`.
  """
  if not tool._require_confirmation or not await tool.needs_confirmation(args, tool_context):
    return None
  confirmation = tool_context.tool_confirmation
  if confirmation is None:
    tool_context.request_confirmation(hint=approval_hint(tool.name))
    tool_context.actions.skip_summarization = True
    return dict(NEEDS_CONFIRMATION_RESPONSE)
  return None if confirmation.confirmed else dict(REJECTED_RESPONSE)
