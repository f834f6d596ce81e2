"""`VertexAiSearchTool`: Gemini's built-in grounding in a Vertex AI Search data store, at google-adk's path.

Like `google_search`, the model does the searching: the tool adds a `types.Tool(retrieval=...)` naming the
data store (or search engine) to the request, and Gemini answers with grounded text. Only Gemini models
accept it; with another model the request is refused before it is sent. google-adk's
`bypass_multi_tools_limit=True` swaps the tool for a Discovery Engine API client (Google Cloud), which
adk_nb does not have: the flag is kept and the built-in tool is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

from .base_tool import BaseTool

if TYPE_CHECKING:
  from ..agents.readonly_context import ReadonlyContext
  from ..models.llm_request import LlmRequest
  from .tool_context import ToolContext


class VertexAiSearchTool(BaseTool):
  """Lets a Gemini model ground its answers in a Vertex AI Search data store or search engine."""

  def __init__(self, *, data_store_id: Optional[str] = None,
               data_store_specs: Optional[list[types.VertexAISearchDataStoreSpec]] = None,
               search_engine_id: Optional[str] = None, filter: Optional[str] = None,
               max_results: Optional[int] = None, bypass_multi_tools_limit: bool = False,
               name: Optional[str] = None, description: Optional[str] = None):
    if (data_store_id is None) == (search_engine_id is None):
      raise ValueError("VertexAiSearchTool needs exactly one of data_store_id or search_engine_id "
                       "(both were given, or neither).")
    if data_store_specs is not None and search_engine_id is None:
      raise ValueError("data_store_specs narrows a search engine: pass search_engine_id with it.")
    super().__init__(name=name or "vertex_ai_search", description=description or "vertex_ai_search")
    self.data_store_id = data_store_id
    """The data store's resource name (projects/.../dataStores/...)."""
    self.data_store_specs = data_store_specs
    """Data stores (and their filters) searched through the search engine."""
    self.search_engine_id = search_engine_id
    """The search engine's resource name (projects/.../engines/...)."""
    self.filter = filter
    """A Vertex AI Search filter expression applied to every search."""
    self.max_results = max_results
    """How many results the search returns at most."""
    self.bypass_multi_tools_limit = bypass_multi_tools_limit
    """Kept for google-adk compatibility (there it swaps in a Discovery Engine API tool)."""

  def _build_vertex_ai_search_config(self, readonly_context: "ReadonlyContext") -> types.VertexAISearch:
    """The search settings sent with each request; override to vary them by session (say, a filter)."""
    return types.VertexAISearch(datastore=self.data_store_id, data_store_specs=self.data_store_specs,
                                engine=self.search_engine_id, filter=self.filter, max_results=self.max_results)

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    raise RuntimeError("vertex_ai_search runs inside Gemini; a model cannot call it as a function.")

  async def process_llm_request(self, *, tool_context: "ToolContext", llm_request: "LlmRequest") -> None:
    model = (llm_request.model or "").rsplit("/", 1)[-1]
    if not model.startswith("gemini-"):
      raise ValueError(f"vertex_ai_search is a Gemini built-in tool and cannot be used with model "
                       f"{llm_request.model!r}; use a Gemini model or a search FunctionTool.")
    search = self._build_vertex_ai_search_config(tool_context)
    llm_request.config.tools = list(llm_request.config.tools or [])
    llm_request.config.tools.append(types.Tool(retrieval=types.Retrieval(vertex_ai_search=search)))


__all__ = ["VertexAiSearchTool"]
