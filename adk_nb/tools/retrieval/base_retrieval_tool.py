"""BaseRetrievalTool: a tool the model calls with one string, `query`."""

from __future__ import annotations

from google.genai import types

from ..base_tool import BaseTool

NOTHING_FOUND = "No matching result found for the query: {query}"
"""What a retrieval tool answers when nothing matches (an answer the model can act on, not an error)."""


class BaseRetrievalTool(BaseTool):
  """A tool whose only argument is the text to look up; subclasses implement `run_async`."""

  def _get_declaration(self) -> types.FunctionDeclaration:
    query = types.Schema(type=types.Type.STRING, description="What to look up.")
    return types.FunctionDeclaration(
        name=self.name, description=self.description,
        parameters=types.Schema(type=types.Type.OBJECT, properties={"query": query}))
