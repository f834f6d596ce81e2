"""Retrieval tools at google-adk's paths: a query in, the best matching text out.

`LlamaIndexRetrieval` and `FilesRetrieval` need llama-index (`pip install llama-index`), imported on
first use of their names; `VertexAiRagRetrieval` is Gemini's built-in retrieval from a Vertex AI RAG
corpus.
"""

from ...utils.lazy import lazy_exports
from .base_retrieval_tool import BaseRetrievalTool

__all__ = ["BaseRetrievalTool", "FilesRetrieval", "LlamaIndexRetrieval", "VertexAiRagRetrieval"]

_LAZY = {"FilesRetrieval": ".files_retrieval", "LlamaIndexRetrieval": ".llama_index_retrieval",
         "VertexAiRagRetrieval": ".vertex_ai_rag_retrieval"}


__getattr__ = lazy_exports(__name__, _LAZY)
