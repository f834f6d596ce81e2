"""google-adk's `agent_transfer` request processor at its path: offers the agents the current one may
transfer to (the instruction listing them and the `transfer_to_agent` tool)."""

from __future__ import annotations

from .. import _transfer
from ...tools.tool_context import ToolContext
from . import RequestProcessor


class _AgentTransferLlmRequestProcessor(RequestProcessor):
  name = "agent_transfer"

  async def _apply(self, agent, invocation_context, llm_request) -> None:
    targets = _transfer.targets(agent)
    if not targets:
      return
    llm_request.append_instructions([_transfer.instruction(agent, targets)])
    tool = _transfer.tool_for(agent, targets)
    await tool.process_llm_request(tool_context=ToolContext(invocation_context), llm_request=llm_request)


request_processor = _AgentTransferLlmRequestProcessor()
