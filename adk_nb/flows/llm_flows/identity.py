"""ADK's `identity` request processor at its path, working: tells the model its agent name and description."""

from __future__ import annotations

from typing import Any, AsyncGenerator


class _IdentityRequestProcessor:
  async def run_async(self, invocation_context: Any, llm_request: Any) -> AsyncGenerator[Any, None]:
    agent = invocation_context.agent
    if hasattr(agent, "_identity_instruction"):
      llm_request.append_instructions([agent._identity_instruction])
    return
    yield  # pragma: no cover


request_processor = _IdentityRequestProcessor()
