"""`MultimodalToolResultsPlugin`: a function tool may return `types.Part`s (images, files, text) for the model.

The parts a tool returns are kept in `temp:` state and appended to the next model request, so the
model sees the media itself rather than a JSON rendering of it. Only the default retention
("next_model_call": attached once, then cleared) is implemented.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from google.genai import types

from ..agents.callback_context import CallbackContext
from ..models.llm_request import LlmRequest
from ..models.llm_response import LlmResponse
from ..tools.base_tool import BaseTool
from ..tools.tool_context import ToolContext
from .base_plugin import BasePlugin

PARTS_RETURNED_BY_TOOLS_ID = "temp:PARTS_RETURNED_BY_TOOLS_ID"
"""State key holding the parts waiting for the next model request."""


def _as_parts(result: Any) -> Optional[list[types.Part]]:
  if isinstance(result, dict) and len(result) == 1 and "result" in result:
    result = result["result"]  # a non-dict return value, already wrapped for the function response
  if isinstance(result, types.Part):
    return [result]
  if isinstance(result, list) and result and all(isinstance(p, types.Part) for p in result):
    return list(result)
  return None


def _part(value: Any) -> types.Part:
  # Committed state holds plain JSON (adk_nb.sessions.json_form): a Part comes back as its JSON dict.
  return value if isinstance(value, types.Part) else types.Part.model_validate_json(json.dumps(value))


class MultimodalToolResultsPlugin(BasePlugin):
  """Sends the Parts a tool returned to the model with its next request."""

  def __init__(self, name: str = "multimodal_tool_results_plugin", *, retention: str = "next_model_call"):
    if retention == "session":
      raise NotImplementedError(
          "MultimodalToolResultsPlugin(retention='session') is not implemented in adk_nb; use the default "
          "retention='next_model_call', which keeps a tool's images for the model call right after it.")
    if retention != "next_model_call":
      raise ValueError(f"Unknown retention {retention!r}; the choices are 'next_model_call' and 'session'.")
    super().__init__(name)
    self._retention = retention

  async def after_tool_callback(self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext,
                                result: Any) -> Optional[Any]:
    parts = _as_parts(result)
    if parts is None:
      return result
    waiting = tool_context.state.get(PARTS_RETURNED_BY_TOOLS_ID) or []
    tool_context.state[PARTS_RETURNED_BY_TOOLS_ID] = list(waiting) + parts
    return None

  async def before_model_callback(self, *, callback_context: CallbackContext,
                                  llm_request: LlmRequest) -> Optional[LlmResponse]:
    if not llm_request.contents:
      return None
    waiting = callback_context.state.get(PARTS_RETURNED_BY_TOOLS_ID)
    if waiting:
      # A copy: the request's Content objects are shared with the history cache.
      last = llm_request.contents[-1]
      parts = [_part(p) for p in waiting]
      llm_request.contents[-1] = last.model_copy(update={"parts": list(last.parts or []) + parts})
      callback_context.state[PARTS_RETURNED_BY_TOOLS_ID] = []
    return None


__all__ = ["MultimodalToolResultsPlugin", "PARTS_RETURNED_BY_TOOLS_ID"]
