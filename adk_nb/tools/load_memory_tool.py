"""load_memory: a tool the model calls to search the user's past conversations.

As in google-adk, `from adk_nb.tools import load_memory` is the ready-made tool
instance (also `load_memory_tool`); the function it wraps is `load_memory.func`.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..memory.memory_entry import MemoryEntry
from ..models.llm_request import LlmRequest
from .function_tool import FunctionTool
from .tool_context import ToolContext

MEMORY_INSTRUCTION = (
    "You can remember earlier conversations with this user. When a question may depend on "
    "something said before, call the load_memory function with a few keywords as the query."
)


class LoadMemoryResponse(BaseModel):
  """What load_memory returns to the model: the memories that matched."""

  memories: list[MemoryEntry] = Field(default_factory=list)
  """The matching memories, best first."""


async def load_memory(query: str, tool_context: ToolContext) -> LoadMemoryResponse:
  """Searches the user's earlier conversations.

  Args:
    query: Keywords to look for in earlier conversations.
  """
  response = await tool_context.search_memory(query)
  return LoadMemoryResponse(memories=response.memories)


class LoadMemoryTool(FunctionTool):
  """Lets the model search memory; also tells the model, in the system instruction, that it can."""

  def __init__(self) -> None:
    super().__init__(load_memory)

  async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
    await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
    llm_request.append_instructions([MEMORY_INSTRUCTION])


load_memory_tool = LoadMemoryTool()
load_memory = load_memory_tool  # noqa: F811  (the package exports the tool, as ADK does)
