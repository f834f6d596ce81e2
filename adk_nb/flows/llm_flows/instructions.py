"""google-adk's `instructions` request processor at its path: the step of adk_nb's request building
that adds the root's global instruction, the static instruction and the agent's instruction (with
`{state}` placeholders filled), as `adk_nb.flows.llm_flow.build_request` does."""

from __future__ import annotations

from .._instructions import add_instructions
from . import RequestProcessor


class _InstructionsLlmRequestProcessor(RequestProcessor):
  name = "instructions"

  async def _apply(self, agent, invocation_context, llm_request) -> None:
    await add_instructions(agent, invocation_context, llm_request)


request_processor = _InstructionsLlmRequestProcessor()
