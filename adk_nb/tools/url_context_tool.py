"""`url_context`: Gemini's built-in URL reading, at google-adk's path.

Like `google_search`, not a function the agent runs: the tool adds `types.Tool(url_context=...)` to
the request and Gemini fetches the URLs named in the conversation on its side (grounding it reports
is kept on the event's `grounding_metadata`; google-genai's per-URL `url_context_metadata` is not
kept, as in google-adk). Only Gemini models accept it; with another model the request is refused
before it is sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.genai import types

from .base_tool import BaseTool

if TYPE_CHECKING:
  from ..models.llm_request import LlmRequest
  from .tool_context import ToolContext


class UrlContextTool(BaseTool):
  """Lets a Gemini model read the web pages whose URLs appear in the conversation."""

  def __init__(self) -> None:
    super().__init__(name="url_context", description="url_context")

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    raise RuntimeError("url_context runs inside Gemini; a model cannot call it as a function.")

  async def process_llm_request(self, *, tool_context: "ToolContext", llm_request: "LlmRequest") -> None:
    model = (llm_request.model or "").rsplit("/", 1)[-1]
    if not model.startswith("gemini-"):
      raise ValueError(f"url_context is a Gemini built-in tool and cannot be used with model {model!r}; "
                       "use a gemini-2.x model, or a FunctionTool that fetches pages.")
    llm_request.config.tools = [*(llm_request.config.tools or []), types.Tool(url_context=types.UrlContext())]


url_context = UrlContextTool()
"""The ready-made instance agents list in `tools=[url_context]`."""

__all__ = ["UrlContextTool", "url_context"]
