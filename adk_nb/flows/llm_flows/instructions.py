"""ADK's `instructions` request processor at its path, working: adds the agent's instructions to a request.

The global instruction of the root agent, the static instruction and the agent's instruction, with
`{state}` placeholders filled from the session (unless an instruction provider returned the text), in the
order and form adk_nb's own loop sends them (`adk_nb.flows.llm_flow.build_request`).
"""

from __future__ import annotations

from typing import Any, AsyncGenerator

from ...agents.readonly_context import ReadonlyContext
from .._instructions import inject_session_state
from ..llm_flow import _content_text


class _InstructionsRequestProcessor:
  async def run_async(self, invocation_context: Any, llm_request: Any) -> AsyncGenerator[Any, None]:
    agent = invocation_context.agent
    if not hasattr(agent, "canonical_instruction"):  # not an LlmAgent
      return
    readonly = ReadonlyContext(invocation_context)
    texts = []
    root = agent.root_agent
    if getattr(root, "global_instruction", None):
      text, bypass = await root.canonical_global_instruction(invocation_context)
      texts.append(text if bypass else await inject_session_state(text, readonly))
    if agent.static_instruction is not None:
      texts.append(_content_text(agent.static_instruction))
    if agent.instruction:
      text, bypass = await agent.canonical_instruction(readonly)
      texts.append(text if bypass else await inject_session_state(text, readonly))
    if texts:
      llm_request.append_instructions(texts)
    return
    yield  # pragma: no cover  (an async generator, as ADK's processors are)


request_processor = _InstructionsRequestProcessor()
