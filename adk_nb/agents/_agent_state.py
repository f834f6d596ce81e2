"""Checkpoint shapes of resumable agents, at google-adk's paths (`base_agent.BaseAgentState`, ...).

A custom agent that should continue where it stopped after a pause keeps its progress in a
`BaseAgentState` subclass: `ctx.set_agent_state(self.name, agent_state=MyState(...))`, then
`yield self._create_agent_state_event(ctx)` commits it; on resume
`self._load_agent_state(ctx, MyState)` returns it (after `ctx.populate_invocation_agent_states()`,
which the Runner's resume path or the agent calls).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class BaseAgentState(BaseModel):
  """The base of every agent checkpoint: a pydantic model stored as JSON in `EventActions.agent_state`."""

  model_config = ConfigDict(extra="forbid")


class SequentialAgentState(BaseAgentState):
  """Where a SequentialAgent is: the sub-agent running when it paused."""

  current_sub_agent: str = ""
  """Name of the sub-agent to continue with."""


class LoopAgentState(BaseAgentState):
  """Where a LoopAgent is: the sub-agent running and the passes completed."""

  current_sub_agent: str = ""
  """Name of the sub-agent to continue with."""
  times_looped: int = 0
  """Passes over the sub-agents completed so far."""
