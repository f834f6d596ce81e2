"""LoopAgent: runs its sub-agents in a loop until one escalates or max_iterations is reached."""

from __future__ import annotations

from typing import AsyncGenerator, ClassVar, Optional

from ..events.event import Event
from ._agent_state import LoopAgentState  # noqa: F401  (google-adk's path)
from ._resumable import commit_pause_checkpoint, end_of_agent, progress_checkpoint, restored_state, sub_agent_index
from .base_agent import BaseAgent
from .invocation_context import InvocationContext


class LoopAgent(BaseAgent):
  """Repeats its sub-agents in order.

  Stops when an event escalates (`exit_loop` tool, or `actions.escalate = True`; the
  escalating event is still yielded and committed) or after `max_iterations` passes.
  """

  step_kind: ClassVar[str] = "loop"

  max_iterations: Optional[int] = None
  """Passes over the sub-agents at most; None loops until an escalation."""

  async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
    if not self.sub_agents:
      return
    saved = restored_state(self, ctx) or {}
    iteration = saved.get("iteration", saved.get("times_looped", 0))
    start = saved.get("index", sub_agent_index(self, saved.get("current_sub_agent")))
    resumed_at = (iteration, start) if saved else None
    escalated = False
    while not escalated and (self.max_iterations is None or iteration < self.max_iterations):
      for index in range(start, len(self.sub_agents)):
        if (iteration, index) != resumed_at:  # the sub-agent being resumed already has its checkpoint
          checkpoint = progress_checkpoint(
              self, ctx, {"current_sub_agent": self.sub_agents[index].name, "times_looped": iteration})
          if checkpoint is not None:
            yield checkpoint
        async for event in self.sub_agents[index].run_async(ctx):
          yield event
          if event.actions.escalate:
            escalated = True
        if ctx.paused:
          await commit_pause_checkpoint(self, ctx, {"iteration": iteration, "index": index})
          return
        if ctx.end_invocation:
          return
        if escalated:
          break
      start = 0
      iteration += 1
    done = end_of_agent(self, ctx)
    if done is not None:
      yield done
