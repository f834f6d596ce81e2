"""`BuiltInPlanner`: the model's own thinking, configured per agent."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Optional

from google.genai import types

from .base_planner import BasePlanner

if TYPE_CHECKING:
  from ..agents.callback_context import CallbackContext
  from ..agents.readonly_context import ReadonlyContext
  from ..models.llm_request import LlmRequest

logger = logging.getLogger("adk_nb.planners")


class BuiltInPlanner(BasePlanner):
  """Sends `thinking_config` with every model call of the agent (Gemini 2.5+ thinking).

  `BuiltInPlanner(thinking_config=types.ThinkingConfig(include_thoughts=True, thinking_budget=1024))`:
  with `include_thoughts` the model's thought summaries come back as parts marked `thought=True`;
  they stay on the events (the inspector can show them) but are never sent back to a model. The
  planner's config wins over a `thinking_config` in the agent's `generate_content_config`. A model
  that cannot think rejects the request (the provider's error ends the run).
  """

  thinking_config: types.ThinkingConfig
  """The thinking settings sent as `generationConfig.thinkingConfig`."""

  def __init__(self, *, thinking_config: types.ThinkingConfig):
    if isinstance(thinking_config, dict):
      thinking_config = types.ThinkingConfig(**thinking_config)
    if not isinstance(thinking_config, types.ThinkingConfig):
      raise TypeError("BuiltInPlanner(thinking_config=...) takes a google.genai.types.ThinkingConfig, e.g. "
                      f"types.ThinkingConfig(include_thoughts=True); got {type(thinking_config).__name__}.")
    self.thinking_config = thinking_config

  def apply_thinking_config(self, llm_request: "LlmRequest") -> None:
    """Puts the planner's thinking config on the request (replacing one from generate_content_config)."""
    if not self.thinking_config:
      return
    if llm_request.config.thinking_config is not None:
      logger.debug("BuiltInPlanner replaces the thinking_config of generate_content_config.")
    llm_request.config.thinking_config = self.thinking_config

  def build_planning_instruction(self, readonly_context: "ReadonlyContext",
                                 llm_request: "LlmRequest") -> Optional[str]:
    return None

  def process_planning_response(self, callback_context: "CallbackContext",
                                response_parts: list[types.Part]) -> Optional[list[types.Part]]:
    return None

  def __repr__(self) -> str:
    return f"BuiltInPlanner(thinking_config={self.thinking_config!r})"


__all__ = ["BuiltInPlanner"]
