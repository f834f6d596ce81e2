"""`BasePlanner`: the two hooks a planner has on every model call of its agent."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Optional

from google.genai import types

if TYPE_CHECKING:
  from ..agents.callback_context import CallbackContext
  from ..agents.readonly_context import ReadonlyContext
  from ..models.llm_request import LlmRequest


class BasePlanner(abc.ABC):
  """Shapes an agent's requests (an instruction) and rewrites its model's answers (parts).

  `build_planning_instruction` runs while the request is built (after the history, before the
  tools) and its text is appended to the system instruction. `process_planning_response` runs on
  every model response (streamed chunks too), after the after-model callbacks, before the event
  is made; the parts it returns replace the response's. State it writes through
  `callback_context.state` is committed with an event of its own.
  """

  @abc.abstractmethod
  def build_planning_instruction(self, readonly_context: "ReadonlyContext",
                                 llm_request: "LlmRequest") -> Optional[str]:
    """The planning instruction to append to the system instruction, or None."""

  @abc.abstractmethod
  def process_planning_response(self, callback_context: "CallbackContext",
                                response_parts: list[types.Part]) -> Optional[list[types.Part]]:
    """The parts to use instead of `response_parts` (not to be mutated), or None to keep them."""


__all__ = ["BasePlanner"]
