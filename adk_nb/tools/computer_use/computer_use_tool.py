"""ComputerUseTool: one computer action, the model's coordinates scaled to the screen, a state answered as an image."""

import base64
import inspect
import logging
from typing import TYPE_CHECKING, Any, Callable

from google.genai import types

from ...features import FeatureName, experimental
from ..function_tool import FunctionTool
from .base_computer import ComputerState

if TYPE_CHECKING:
  from ...models.llm_request import LlmRequest
  from ..tool_context import ToolContext

logger = logging.getLogger(__name__)

_X_FIELDS = ("x", "destination_x", "start_x", "end_x")
_Y_FIELDS = ("y", "destination_y", "start_y", "end_y")
# Gemini 3.x names a drag's ends start_*/end_*; a method written for the older names gets them renamed.
_LEGACY_DRAG_NAMES = {"start_x": "x", "start_y": "y", "end_x": "destination_x", "end_y": "destination_y"}


def _check_size(value: Any, what: str) -> tuple[int, int]:
  if not isinstance(value, tuple) or len(value) != 2:
    raise ValueError(f"{what} must be a tuple of (width, height), not {value!r}")
  if value[0] <= 0 or value[1] <= 0:
    raise ValueError(f"{what} dimensions must be positive, not {value!r}")
  return value


@experimental(FeatureName.COMPUTER_USE)
class ComputerUseTool(FunctionTool):
  """A computer action as a tool: coordinates on the model's `virtual_screen_size` grid (1000x1000) are
  scaled to `screen_size` and clamped to the screen; a `ComputerState` answer becomes
  `{"image": {"mimetype": "image/png", "data": base64}, "url": ...}`.

  When the model marks a call `safety_decision: require_confirmation`, the call pauses for a
  person's approval (the explanation is the hint); a rejection is answered with an error and the
  action does not run; an approved call's answer carries `safety_acknowledgement: "true"`.
  """

  def __init__(self, *, func: Callable[..., Any], screen_size: tuple[int, int],
               virtual_screen_size: tuple[int, int] = (1000, 1000)) -> None:
    super().__init__(func)
    self._screen_size = _check_size(screen_size, "screen_size")
    self._coordinate_space = _check_size(virtual_screen_size, "virtual_screen_size")
    try:
      self._accepts_start_coords = "start_x" in inspect.signature(func).parameters
    except (TypeError, ValueError):
      self._accepts_start_coords = False

  def _scale(self, value: Any, axis: int, field: str) -> int:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
      raise ValueError(f"{field} coordinate must be numeric, got {type(value)}")
    size = self._screen_size[axis]
    scaled = max(0, min(int(value / self._coordinate_space[axis] * size), size - 1))
    logger.debug("Normalized %s: %s -> %s", field, value, scaled)
    return scaled

  def _normalize_x(self, x: Any) -> int:
    """`x` on the model's grid as a screen pixel column, clamped to the screen."""
    return self._scale(x, 0, "x")

  def _normalize_y(self, y: Any) -> int:
    """`y` on the model's grid as a screen pixel row, clamped to the screen."""
    return self._scale(y, 1, "y")

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    confirmation = tool_context.tool_confirmation
    if confirmation is None:
      decision = args.get("safety_decision")
      if isinstance(decision, dict) and decision.get("decision") == "require_confirmation":
        tool_context.request_confirmation(
            hint=decision.get("explanation") or "This computer use action requires safety confirmation.")
        tool_context.actions.skip_summarization = True
        return {"error": "This tool call requires confirmation, please approve or reject."}
    elif not confirmation.confirmed:
      return {"error": "This tool call is rejected."}

    for axis, fields in ((0, _X_FIELDS), (1, _Y_FIELDS)):
      for field in fields:
        if field in args:
          args[field] = self._scale(args[field], axis, field)
    if not self._accepts_start_coords:
      for new, old in _LEGACY_DRAG_NAMES.items():
        if new in args and old not in args:
          args[old] = args.pop(new)

    result = await super().run_async(args=args, tool_context=tool_context)
    answer = result
    if isinstance(result, ComputerState):
      answer = {"image": {"mimetype": "image/png",
                          "data": base64.b64encode(result.screenshot or b"").decode("ascii")},
                "url": result.url}
    if confirmation is not None and confirmation.confirmed:
      if not isinstance(answer, dict):
        answer = {"result": answer}
      answer["safety_acknowledgement"] = "true"
    return answer

  async def process_llm_request(self, *, tool_context: "ToolContext", llm_request: "LlmRequest") -> None:
    """Adds nothing: the model knows computer actions by name (`ComputerUseToolset` sends `computer_use`)."""
