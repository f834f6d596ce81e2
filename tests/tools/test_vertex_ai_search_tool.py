"""VertexAiSearchTool at google-adk's path: what the Gemini request carries, and what it refuses."""

import pytest
from google.genai import types

from adk_nb.models import LlmRequest
from adk_nb.tools import VertexAiSearchTool


async def test_the_request_names_the_data_store_with_its_filter():
  tool = VertexAiSearchTool(data_store_id="projects/p/locations/global/collections/c/dataStores/docs",
                            filter="lang: en", max_results=3)
  request = LlmRequest(model="gemini-2.5-flash")
  await tool.process_llm_request(tool_context=None, llm_request=request)
  search = request.config.tools[0].retrieval.vertex_ai_search
  assert (search.datastore, search.engine, search.filter, search.max_results) == (
      "projects/p/locations/global/collections/c/dataStores/docs", None, "lang: en", 3)
  assert tool.name == "vertex_ai_search"


async def test_a_subclass_can_vary_the_search_per_request():
  class PerUser(VertexAiSearchTool):
    def _build_vertex_ai_search_config(self, readonly_context):
      return types.VertexAISearch(engine=self.search_engine_id, filter="owner: ada")

  request = LlmRequest(model="gemini-2.5-pro")
  await PerUser(search_engine_id="engines/e").process_llm_request(tool_context=None, llm_request=request)
  assert request.config.tools[0].retrieval.vertex_ai_search.filter == "owner: ada"


@pytest.mark.parametrize("kwargs", [{}, {"data_store_id": "d", "search_engine_id": "e"},
                                    {"data_store_id": "d", "data_store_specs": []}])
def test_it_needs_one_data_store_or_one_engine(kwargs):
  with pytest.raises(ValueError, match="data_store_id|search_engine_id"):
    VertexAiSearchTool(**kwargs)


async def test_other_models_are_refused_before_the_call():
  with pytest.raises(ValueError, match="Gemini built-in"):
    await VertexAiSearchTool(data_store_id="d").process_llm_request(
        tool_context=None, llm_request=LlmRequest(model="openai/gpt-4o"))
