"""google-adk's flow module paths (`flows.llm_flows.*`), for code and tests that import them.

adk_nb's LLM loop is `adk_nb.flows.llm_flow` (split by step in `flows/_*.py`), not ADK's chain of request
and response processors. What has an adk_nb equivalent works here (the protocol call names,
`functions.handle_function_calls_async`, `find_matching_function_call`,
`merge_parallel_function_response_events`, the `instructions` and `identity` request processors); ADK's
other processor objects and its flow classes exist so imports work, and raise `NotImplementedError`
naming issue 14 when used.
"""

from __future__ import annotations

from typing import Any, NoReturn


def not_in_adk_nb(what: str, instead: str = "") -> NoReturn:
  """Raises the error every import-only name of this package raises on use."""
  hint = f" {instead}" if instead else ""
  raise NotImplementedError(
      f"{what} is google-adk's flow internals; adk_nb's LLM loop is built differently and does not "
      f"provide it (issue 14, README 'Compatibility').{hint}")


class ImportOnlyProcessor:
  """Stands in for one of ADK's request/response processors: importable, raises when run."""

  def __init__(self, name: str):
    self._name = name

  async def run_async(self, invocation_context: Any, llm_request_or_response: Any):
    not_in_adk_nb(f"flows.llm_flows.{self._name}",
                  "Build requests by running the agent (Runner.run_async) and inspect ScriptedModel.requests.")
    yield  # pragma: no cover
