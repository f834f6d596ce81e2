"""VertexAiRagRetrieval: Gemini's built-in retrieval from Vertex AI RAG corpora.

The model does the retrieving: the tool adds `types.Tool(retrieval=types.Retrieval(vertex_rag_store=...))`
to each request, and Gemini answers with grounded text. Only Gemini models accept it; with another model
the request is refused before it is sent (google-adk calls the Vertex AI RAG API itself there, which
needs a Google Cloud project; adk_nb does not).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

from .base_retrieval_tool import BaseRetrievalTool

if TYPE_CHECKING:
  from ...models.llm_request import LlmRequest
  from ..tool_context import ToolContext


def _rag_resource(resource: Any) -> types.VertexRagStoreRagResource:
  """A RAG resource from the genai type, a dict, or anything with rag_corpus / rag_file_ids."""
  if isinstance(resource, types.VertexRagStoreRagResource):
    return resource
  if isinstance(resource, Mapping):
    return types.VertexRagStoreRagResource(**resource)
  if hasattr(resource, "rag_corpus") or hasattr(resource, "rag_file_ids"):
    return types.VertexRagStoreRagResource(rag_corpus=getattr(resource, "rag_corpus", None),
                                           rag_file_ids=getattr(resource, "rag_file_ids", None))
  raise TypeError(f"rag_resources takes types.VertexRagStoreRagResource, a dict, or an object with "
                  f"rag_corpus / rag_file_ids (vertexai's RagResource); not {type(resource).__name__}.")


class VertexAiRagRetrieval(BaseRetrievalTool):
  """Lets a Gemini model ground its answers in Vertex AI RAG corpora or files."""

  def __init__(self, *, name: str, description: str, rag_corpora: Optional[list[str]] = None,
               rag_resources: Optional[list[Any]] = None, similarity_top_k: Optional[int] = None,
               vector_distance_threshold: Optional[float] = None):
    super().__init__(name=name, description=description)
    self.vertex_rag_store = types.VertexRagStore(
        rag_corpora=rag_corpora,
        rag_resources=[_rag_resource(r) for r in rag_resources] if rag_resources else None,
        similarity_top_k=similarity_top_k, vector_distance_threshold=vector_distance_threshold)
    """What each request asks Gemini to retrieve from."""

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    raise RuntimeError(f"{self.name} is Gemini's built-in RAG retrieval; a model cannot call it as a function.")

  async def process_llm_request(self, *, tool_context: "ToolContext", llm_request: "LlmRequest") -> None:
    model = (llm_request.model or "").rsplit("/", 1)[-1]
    if not model.startswith("gemini-"):
      raise ValueError(f"{self.name} (VertexAiRagRetrieval) is Gemini's built-in retrieval and cannot be "
                       f"used with model {llm_request.model!r}; use a Gemini model, or a "
                       "LlamaIndexRetrieval / FunctionTool that searches your documents.")
    llm_request.config.tools = list(llm_request.config.tools or [])
    llm_request.config.tools.append(
        types.Tool(retrieval=types.Retrieval(vertex_rag_store=self.vertex_rag_store)))
