"""`google_search`: Gemini's built-in Google Search grounding, at google-adk's path.

Not a function the agent runs: the tool adds `types.Tool(google_search=...)` to the request and
Gemini searches on its side, returning grounded text (and `grounding_metadata`). It only works with
Gemini models (2.x and later); with another model the request is refused before it is sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.genai import types

from .base_tool import BaseTool

if TYPE_CHECKING:
  from ..models.llm_request import LlmRequest
  from .tool_context import ToolContext


class GoogleSearchTool(BaseTool):
  """Lets a Gemini model ground its answers in Google Search results."""

  def __init__(self, *, bypass_multi_tools_limit: bool = False, model: str | None = None):
    super().__init__(name="google_search", description="google_search")
    self.bypass_multi_tools_limit = bypass_multi_tools_limit
    """Kept for google-adk compatibility (there it wraps the search in an agent when other tools exist)."""
    self.model = model
    """A model name to send the request to instead of the agent's (as in google-adk)."""

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    raise RuntimeError("google_search runs inside Gemini; a model cannot call it as a function.")

  async def process_llm_request(self, *, tool_context: "ToolContext", llm_request: "LlmRequest") -> None:
    if self.model is not None:
      llm_request.model = self.model
    model = (llm_request.model or "").rsplit("/", 1)[-1]
    if not model.startswith("gemini-"):
      raise ValueError(f"google_search is a Gemini built-in tool and cannot be used with model {model!r}; "
                       "use a gemini-2.x model or a search FunctionTool.")
    if model.startswith("gemini-1"):
      raise ValueError(f"google_search needs Gemini 2 or later (got {model!r}).")
    llm_request.config.tools = list(llm_request.config.tools or [])
    llm_request.config.tools.append(types.Tool(google_search=types.GoogleSearch()))


google_search = GoogleSearchTool()
"""The ready-made instance agents list in `tools=[google_search]`."""

__all__ = ["GoogleSearchTool", "google_search"]
