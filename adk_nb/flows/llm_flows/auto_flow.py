"""`AutoFlow` at google-adk's path: importable; constructing it raises (see `flows.llm_flows`)."""

from __future__ import annotations

from .base_llm_flow import BaseLlmFlow


class AutoFlow(BaseLlmFlow):
  """ADK's AutoFlow; adk_nb's LlmAgent runs its own loop (adk_nb.flows.llm_flow)."""
