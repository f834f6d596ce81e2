"""ContextFilterPlugin: sends the model only the last few user turns of a long conversation.

At google-adk's path and with its constructor. A "turn" starts at a message the person typed (one
or more in a row; a tool's answer, though sent with role 'user', starts none) and runs until the
next. The session keeps everything; only what one model request carries is cut.
"""

from __future__ import annotations

import logging
from typing import Callable, Optional

from google.genai import types

from .base_plugin import BasePlugin

logger = logging.getLogger(__name__)

ContentFilter = Callable[[list[types.Content]], list[types.Content]]


def _is_typed_by_user(content: types.Content) -> bool:
  return content.role == "user" and not any(p.function_response for p in content.parts or ())


def turn_starts(contents: list[types.Content]) -> list[int]:
  """Indices of the contents that begin a user turn."""
  starts, previous = [], False
  for index, content in enumerate(contents):
    typed = _is_typed_by_user(content)
    if typed and not previous:
      starts.append(index)
    previous = typed
  return starts


def keep_calls_whole(contents: list[types.Content], cut: int) -> int:
  """The latest index at or before `cut` from which no kept tool answer lacks its call."""
  waiting: set[str] = set()  # answers kept whose call lies further back
  for index in range(len(contents) - 1, -1, -1):
    for part in reversed(contents[index].parts or ()):
      if part.function_response and part.function_response.id:
        waiting.add(part.function_response.id)
      if part.function_call and part.function_call.id:
        waiting.discard(part.function_call.id)
    if index <= cut and not waiting:
      return index
  return 0


class ContextFilterPlugin(BasePlugin):
  """Cuts each model request to the last `num_invocations_to_keep` user turns, then applies `custom_filter`.

  The cut waits until there are `num_invocations_to_keep + remove_amount` turns, then drops the
  oldest ones at once (so the cached prefix of the request changes less often), and never keeps a
  tool's answer without the call it answers. A filter that raises is logged and the request goes
  out as it was.
  """

  def __init__(self, num_invocations_to_keep: Optional[int] = None,
               custom_filter: Optional[ContentFilter] = None,
               name: str = "context_filter_plugin", remove_amount: int = 1):
    if remove_amount < 1:
      raise ValueError(f"remove_amount must be at least 1, not {remove_amount!r}: it is how many "
                       "turns beyond num_invocations_to_keep are dropped at once.")
    super().__init__(name)
    self.num_invocations_to_keep = num_invocations_to_keep
    self.custom_filter = custom_filter
    self.remove_amount = remove_amount

  def filtered(self, contents: list[types.Content]) -> list[types.Content]:
    """What a request carrying `contents` carries after this plugin."""
    keep = self.num_invocations_to_keep
    if keep is not None and keep > 0:
      starts = turn_starts(contents)
      if len(starts) >= keep + self.remove_amount:
        contents = contents[keep_calls_whole(contents, starts[-keep]):]
    if self.custom_filter is not None:
      contents = self.custom_filter(contents)
    return contents

  async def before_model_callback(self, *, callback_context, llm_request):
    try:
      llm_request.contents = self.filtered(list(llm_request.contents))
    except Exception:
      logger.exception("%s: filtering the request's contents failed; it is sent unfiltered", self.name)
    return None
