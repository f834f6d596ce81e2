"""FilesRetrieval: a llama-index vector index over the files of a folder, queried by the model.

Needs llama-index (`pip install llama-index llama-index-embeddings-google-genai`); the index is built
when the tool is made, with Gemini embeddings unless `embedding_model` says otherwise.
"""

from __future__ import annotations

from typing import Any, Optional

from .llama_index_retrieval import LlamaIndexRetrieval

LLAMA_INDEX_HINT = ("FilesRetrieval builds a llama-index vector index: pip install llama-index "
                    "llama-index-embeddings-google-genai")


class FilesRetrieval(LlamaIndexRetrieval):
  """Indexes `input_dir` and answers each query with the most similar chunk."""

  def __init__(self, *, name: str, description: str, input_dir: str,
               embedding_model: Optional[Any] = None):
    try:
      from llama_index.core import SimpleDirectoryReader, VectorStoreIndex
    except ImportError as exc:
      raise ImportError(LLAMA_INDEX_HINT) from exc
    if embedding_model is None:
      try:
        from llama_index.embeddings.google_genai import GoogleGenAIEmbedding
      except ImportError as exc:
        raise ImportError(LLAMA_INDEX_HINT) from exc
      embedding_model = GoogleGenAIEmbedding(model_name="text-embedding-004")
    self.input_dir = input_dir
    documents = SimpleDirectoryReader(input_dir).load_data()
    index = VectorStoreIndex.from_documents(documents, embed_model=embedding_model)
    super().__init__(name=name, description=description, retriever=index.as_retriever())
