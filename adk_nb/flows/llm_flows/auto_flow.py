"""`AutoFlow` at google-adk's path: SingleFlow plus transfer between agents."""

from __future__ import annotations

from . import agent_transfer
from .single_flow import SingleFlow


class AutoFlow(SingleFlow):
  """SingleFlow that also offers the agents the current one may transfer to."""

  def __init__(self) -> None:
    super().__init__()
    self.request_processors += [agent_transfer.request_processor]
