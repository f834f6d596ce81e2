"""google-adk's `contents` request processor at its path: the conversation the agent sends.

Replaces the request's contents by what the agent sees of the session (its branch, other agents' turns
as context, no protocol calls or partial events), then places the contents the instruction step left
there (a per-turn instruction, a static instruction's files).
"""

from __future__ import annotations

from typing import Any

from .._instructions import place_instruction_contents
from ..llm_flow import add_contents
from . import RequestProcessor


class _ContentLlmRequestProcessor(RequestProcessor):
  name = "contents"

  async def _apply(self, agent, invocation_context, llm_request) -> None:
    add_contents(agent, invocation_context, llm_request)


request_processor = _ContentLlmRequestProcessor()


async def _add_instructions_to_user_content(invocation_context: Any, llm_request: Any,
                                            instruction_contents: list) -> None:
  """Places instruction contents in the request's conversation (before the latest user messages)."""
  place_instruction_contents(llm_request, instruction_contents)
