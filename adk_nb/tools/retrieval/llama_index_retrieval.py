"""LlamaIndexRetrieval: answers a query with the best node a llama-index retriever returns."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base_retrieval_tool import NOTHING_FOUND, BaseRetrievalTool

if TYPE_CHECKING:
  from ..tool_context import ToolContext


class LlamaIndexRetrieval(BaseRetrievalTool):
  """Wraps any object with `retrieve(query) -> nodes` (a llama-index `BaseRetriever`)."""

  def __init__(self, *, name: str, description: str, retriever: Any):
    super().__init__(name=name, description=description)
    self.retriever = retriever
    """The retriever asked for each query; the first node's text is the answer."""

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    query = args["query"]
    nodes = self.retriever.retrieve(query)
    return nodes[0].text if nodes else NOTHING_FOUND.format(query=query)
