"""google-adk's `identity` request processor at its path: tells the model its agent name and description."""

from __future__ import annotations

from ..llm_flow import add_identity
from . import RequestProcessor


class _IdentityLlmRequestProcessor(RequestProcessor):
  name = "identity"

  async def _apply(self, agent, invocation_context, llm_request) -> None:
    add_identity(agent, llm_request)


request_processor = _IdentityLlmRequestProcessor()
