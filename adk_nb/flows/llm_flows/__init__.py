"""google-adk's flow module paths (`flows.llm_flows.*`), for code and tests that import them.

adk_nb's LLM loop is `adk_nb.flows.llm_flow`; its request is built in steps that follow google-adk's
request processors, and each processor object here runs one of those steps (`basic`, `instructions`,
`identity`, `contents`, `agent_transfer`, `request_confirmation`), so code that drives them by hand gets
the request adk_nb would send. The flow classes (`base_llm_flow.BaseLlmFlow`, `SingleFlow`, `AutoFlow`)
run the same loop. The protocol call names and `functions.handle_function_calls_async`,
`find_matching_function_call`, `merge_parallel_function_response_events` work too. Live runs do not
exist in adk_nb: their entry points raise `NotImplementedError`.
"""

from __future__ import annotations

from typing import Any, NoReturn


def not_in_adk_nb(what: str, instead: str = "") -> NoReturn:
  """Raises the error every import-only name of this package raises on use."""
  hint = f" {instead}" if instead else ""
  raise NotImplementedError(
      f"{what} is google-adk's flow internals; adk_nb's LLM loop is built differently and does not "
      f"provide it (see README 'Compatibility').{hint}")


def llm_agent_of(invocation_context: Any):
  """The context's agent when it is an LlmAgent (the processors do nothing for other agents)."""
  from ...agents.llm_agent import LlmAgent

  agent = invocation_context.agent
  return agent if isinstance(agent, LlmAgent) else None


class RequestProcessor:
  """One step of building a model request, run as google-adk runs its processors:
  `async for event in processor.run_async(invocation_context, llm_request)`."""

  name = ""

  async def run_async(self, invocation_context: Any, llm_request: Any):
    agent = llm_agent_of(invocation_context)
    if agent is not None:
      await self._apply(agent, invocation_context, llm_request)
    return
    yield  # pragma: no cover  (an async generator, as ADK's processors are)

  async def _apply(self, agent: Any, invocation_context: Any, llm_request: Any) -> None:
    raise NotImplementedError
