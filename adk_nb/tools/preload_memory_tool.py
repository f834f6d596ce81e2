"""preload_memory: puts memories matching the user's message into every model request.

The model never calls it: before each model call it searches memory with the text of
the user's message and appends what it finds to the system instruction. As in
google-adk, `from adk_nb.tools import preload_memory` is the tool instance.
"""

from __future__ import annotations

import logging
from typing import Optional

from google.genai import types

from ..memory.memory_entry import MemoryEntry
from ..models.llm_request import LlmRequest
from .base_tool import BaseTool
from .tool_context import ToolContext

logger = logging.getLogger("adk_nb." + __name__)


def _text(content: Optional[types.Content]) -> str:
  if content is None or not content.parts:
    return ""
  return " ".join(p.text for p in content.parts if p.text and not p.thought).strip()


def format_memories(memories: list[MemoryEntry]) -> str:
  """The memories as lines for the system instruction ('' when none has text)."""
  lines = []
  for memory in memories:
    text = _text(memory.content)
    if not text:
      continue
    if memory.timestamp:
      lines.append(f"Time: {memory.timestamp}")
    lines.append(f"{memory.author}: {text}" if memory.author else text)
  if not lines:
    return ""
  body = "\n".join(lines)
  return (
      "Earlier conversations with this user that may help with the current request:\n"
      f"<PAST_CONVERSATIONS>\n{body}\n</PAST_CONVERSATIONS>"
  )


class PreloadMemoryTool(BaseTool):
  """Adds memories relevant to the user's message to the system instruction, every model call."""

  def __init__(self) -> None:
    # Never declared to the model: it only edits the request.
    super().__init__(name="preload_memory", description="preload_memory")

  async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
    query = _text(tool_context.user_content)
    if not query:
      return
    try:
      response = await tool_context.search_memory(query)
    except Exception as exc:
      # As in google-adk, a failing memory store costs the memories, not the turn.
      logger.warning("preload_memory found no memories: %s", exc)
      return
    text = format_memories(response.memories)
    if text:
      llm_request.append_instructions([text])


preload_memory_tool = PreloadMemoryTool()
preload_memory = preload_memory_tool
