"""LoopAgent: runs its sub-agents in a loop until one escalates or max_iterations is reached."""

from __future__ import annotations

from typing import AsyncGenerator, Optional

from ..events.event import Event
from ._agent_state import LoopAgentState  # noqa: F401  (google-adk's path)
from ._resumable import pause_checkpoint, restored_state
from .base_agent import BaseAgent
from .invocation_context import InvocationContext


class LoopAgent(BaseAgent):
  """Repeats its sub-agents in order.

  Stops when an event escalates (`exit_loop` tool, or `actions.escalate = True`; the
  escalating event is still yielded and committed) or after `max_iterations` passes.
  """

  max_iterations: Optional[int] = None
  """Passes over the sub-agents at most; None loops until an escalation."""

  async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
    if not self.sub_agents:
      return
    saved = restored_state(self, ctx)
    iteration = saved.get("iteration", 0) if saved else 0
    start = saved.get("index", 0) if saved else 0
    while self.max_iterations is None or iteration < self.max_iterations:
      for index in range(start, len(self.sub_agents)):
        escalated = False
        async for event in self.sub_agents[index].run_async(ctx):
          yield event
          if event.actions.escalate:
            escalated = True
        if ctx.paused:
          yield pause_checkpoint(self, ctx, {"iteration": iteration, "index": index})
          return
        if escalated or ctx.end_invocation:
          return
      start = 0
      iteration += 1
