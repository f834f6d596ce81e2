"""`BaseLlmFlow` at google-adk's path: importable; adk_nb's loop is `adk_nb.flows.llm_flow.run_flow`."""

from __future__ import annotations

from typing import Any

from . import not_in_adk_nb


class BaseLlmFlow:
  """ADK's processor-based flow class. Constructing it raises: run agents through a Runner instead."""

  def __init__(self, *args: Any, **kwargs: Any):
    not_in_adk_nb(type(self).__name__, "Run the LlmAgent through a Runner; its loop is adk_nb.flows.llm_flow.")
