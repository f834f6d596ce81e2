"""SequentialAgent: runs its sub-agents one after another."""

from __future__ import annotations

from typing import AsyncGenerator, ClassVar

from ..events.event import Event
from ._agent_state import SequentialAgentState  # noqa: F401  (google-adk's path)
from ._resumable import commit_pause_checkpoint, end_of_agent, progress_checkpoint, restored_state, sub_agent_index
from .base_agent import BaseAgent
from .invocation_context import InvocationContext


class SequentialAgent(BaseAgent):
  """Runs each sub-agent in order, in the same invocation and branch.

  If a sub-agent pauses (a pending confirmation or long-running call), the sequence stops
  there; resuming the invocation continues with that sub-agent, never the next one.
  (google-adk issue 3184: there, the next sub-agent runs before the answer.)
  """

  step_kind: ClassVar[str] = "sequential"

  async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
    saved = restored_state(self, ctx) or {}
    start = saved.get("index", sub_agent_index(self, saved.get("current_sub_agent")))
    resumed_at = start if saved else None
    for index in range(start, len(self.sub_agents)):
      if index != resumed_at:  # the sub-agent being resumed already has its checkpoint
        checkpoint = progress_checkpoint(self, ctx, {"current_sub_agent": self.sub_agents[index].name})
        if checkpoint is not None:
          yield checkpoint
      async for event in self.sub_agents[index].run_async(ctx):
        yield event
      if ctx.paused:
        await commit_pause_checkpoint(self, ctx, {"index": index})
        return
      if ctx.end_invocation:
        return
    done = end_of_agent(self, ctx)
    if done is not None:
      yield done
