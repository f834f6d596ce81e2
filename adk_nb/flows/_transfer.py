"""Agent transfer: who an LlmAgent may hand over to, the tool and instruction it gets, the handover."""

from __future__ import annotations

from typing import TYPE_CHECKING, AsyncGenerator

from ..events.event import Event
from ..tools.transfer_to_agent_tool import TransferToAgentTool

if TYPE_CHECKING:
  from ..agents.base_agent import BaseAgent
  from ..agents.invocation_context import InvocationContext
  from ..agents.llm_agent import LlmAgent

_DELEGATED = ("task", "single_turn")


def targets(agent: "LlmAgent") -> dict[str, str]:
  """Name -> description of the agents `agent` may transfer to (sub-agents, parent, peers)."""
  from ..agents.llm_agent import LlmAgent

  out: dict[str, str] = {}
  for sub in agent.sub_agents:
    if getattr(sub, "mode", None) not in _DELEGATED:  # task / single_turn sub-agents are tools
      out[sub.name] = sub.description
  parent = agent.parent_agent
  if isinstance(parent, LlmAgent) and getattr(agent, "mode", None) not in _DELEGATED:
    if not agent.disallow_transfer_to_parent:
      out[parent.name] = parent.description
    if not agent.disallow_transfer_to_peers:
      for peer in parent.sub_agents:
        if peer is not agent and getattr(peer, "mode", None) not in _DELEGATED:
          out[peer.name] = peer.description
  return out


def instruction(agent: "LlmAgent", allowed: dict[str, str]) -> str:
  """The system-instruction section that lists the transfer targets."""
  lines = ["You can hand the conversation to one of these agents:", ""]
  for name, description in allowed.items():
    lines.append(f"Agent name: {name}")
    lines.append(f"Agent description: {description}")
    lines.append("")
  lines.append(
      "If your own description fits the question best, answer it yourself. If another agent "
      "fits better, call `transfer_to_agent` with that agent's name and write no other text."
  )
  parent = agent.parent_agent
  if parent is not None and parent.name in allowed:
    lines.append(
        f"If neither you nor the agents above fit, transfer back to your parent agent {parent.name}."
    )
  return "\n".join(lines)


def tool_for(agent: "LlmAgent", allowed: dict[str, str]) -> TransferToAgentTool:
  """The transfer tool for `agent` (cached per agent while its targets stay the same)."""
  cached = agent._transfer_tool
  if cached is None or cached.targets != allowed:
    cached = TransferToAgentTool(allowed)
    object.__setattr__(agent, "_transfer_tool", cached)
  return cached


def direct_sub_agent(agent: "BaseAgent | None", name: str) -> "BaseAgent | None":
  for sub in (agent.sub_agents if agent is not None else ()):
    if sub.name == name:
      return sub
  return None


def resolve_target(agent: "BaseAgent", name: str) -> "BaseAgent | None":
  """The agent a transfer from `agent` to `name` reaches: its own sub-agent, its parent, a sibling,
  and only then any agent of that name in the tree (so a namesake in an unrelated branch never
  shadows a relative). None when no agent has that name."""
  child = direct_sub_agent(agent, name)
  if child is not None:
    return child
  parent = agent.parent_agent
  if parent is not None and parent.name == name:
    return parent
  sibling = direct_sub_agent(parent, name)
  if sibling is not None:
    return sibling
  return agent.root_agent.find_agent(name)


async def run_target(agent: "LlmAgent", ctx: "InvocationContext", name: str) -> AsyncGenerator[Event, None]:
  """Runs the transfer target in the same invocation; it produces the reply."""
  target = resolve_target(agent, name)
  if target is None:  # the tool validated the name; the tree changed under us
    raise ValueError(f"Agent {name!r} was not found in the agent tree of {agent.root_agent.name!r}.")
  async for event in target.run_async(ctx):
    yield event
