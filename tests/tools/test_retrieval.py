"""Retrieval tools at google-adk's paths (tools.retrieval), as the sample agents use them."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import pytest

from adk_nb import Agent, InMemoryRunner
from adk_nb.models import ScriptedModel, call
from adk_nb.models.llm_request import LlmRequest
from adk_nb.testing import run_turn
from adk_nb.tools.retrieval import BaseRetrievalTool, LlamaIndexRetrieval, VertexAiRagRetrieval


class Retriever:
  """Shaped like a llama-index retriever: retrieve(query) -> nodes with .text."""

  def __init__(self, docs):
    self.docs, self.queries = docs, []

  def retrieve(self, query):
    self.queries.append(query)
    return [SimpleNamespace(text=d) for d in self.docs if query.lower() in d.lower()]


async def test_the_model_calls_it_with_a_query_and_reads_the_best_match():
  retriever = Retriever(["Refunds take 5 days.", "Shipping is free over 50 EUR."])
  tool = LlamaIndexRetrieval(name="policies", description="Company policies.", retriever=retriever)
  declarations = []

  def model(request):
    declarations.append(request.config.tools[0].function_declarations[0])
    last = request.contents[-1].parts[0]
    if last.function_response:
      return f"Found: {last.function_response.response['result']}"
    return call("policies", query=request.contents[-1].parts[0].text)

  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel(model), tools=[tool]), app_name="app")
  events = await run_turn(runner, "refunds")
  assert events[-1].content.parts[0].text == "Found: Refunds take 5 days."
  events = await run_turn(runner, "gift cards")
  assert events[-1].content.parts[0].text == "Found: No matching result found for the query: gift cards"
  assert retriever.queries == ["refunds", "gift cards"]
  assert list(declarations[0].parameters.properties) == ["query"]
  assert isinstance(tool, BaseRetrievalTool)


async def test_vertex_rag_is_gemini_built_in_retrieval():
  tool = VertexAiRagRetrieval(name="docs", description="d", rag_corpora=["projects/p/ragCorpora/1"],
                              rag_resources=[{"rag_corpus": "projects/p/ragCorpora/2"}],
                              similarity_top_k=3)
  request = LlmRequest(model="gemini-2.5-flash")
  await tool.process_llm_request(tool_context=None, llm_request=request)
  store = request.config.tools[-1].retrieval.vertex_rag_store
  assert store.rag_corpora == ["projects/p/ragCorpora/1"] and store.similarity_top_k == 3
  assert store.rag_resources[0].rag_corpus == "projects/p/ragCorpora/2"
  with pytest.raises(ValueError, match="Gemini's built-in retrieval"):
    await tool.process_llm_request(tool_context=None, llm_request=LlmRequest(model="openai/gpt-4o"))
  with pytest.raises(TypeError, match="rag_resources takes"):
    VertexAiRagRetrieval(name="x", description="d", rag_resources=[42])


@pytest.mark.skipif(importlib.util.find_spec("llama_index") is not None, reason="llama-index is installed")
def test_files_retrieval_without_llama_index_names_the_install():
  from adk_nb.tools.retrieval import FilesRetrieval

  with pytest.raises(ImportError, match="pip install llama-index"):
    FilesRetrieval(name="f", description="d", input_dir=".")
