"""Agent transfer seen from a workflow (google-adk 2.x's module path): which agent a transfer
reaches, and under which node context it then runs.

The target is resolved relative to the agent that transfers (child, parent, sibling, then any
namesake in the tree, the rule the LLM flow's handover follows too), and a transfer to itself, or one the
agent's `disallow_transfer_to_parent` / `disallow_transfer_to_peers` forbids, is a
WorkflowDataError. adk_nb's LLM flow hands over inside one invocation context, so its own code
uses only the target half; the context half follows google-adk's rule for code that walks node
contexts (`Context.node`, `Context.parent_ctx`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from .._errors import WorkflowDataError

if TYPE_CHECKING:
  from ...agents.base_agent import BaseAgent

__all__ = ["resolve_and_derive_transfer_context"]


def direct_sub_agent(agent: Optional["BaseAgent"], name: str) -> Optional["BaseAgent"]:
  """`agent`'s own sub-agent called `name` (None when it has none, or no agent is given)."""
  for sub in (agent.sub_agents if agent is not None else ()):
    if sub.name == name:
      return sub
  return None


def resolve_and_derive_transfer_context(target_name: str, current_agent: "BaseAgent", root_agent: "BaseAgent",
                                        curr_ctx: Any, curr_parent_ctx: Any
                                        ) -> tuple[Optional["BaseAgent"], Any]:
  """(target agent, the context it runs under) for a transfer from `current_agent` to `target_name`.

  A sub-agent runs under `curr_ctx`; a sibling under `curr_parent_ctx`; the parent under the
  context above the parent's own (or the outermost one when the parent was never entered as a
  node). An agent found elsewhere in `root_agent`'s tree gives (agent, None); no agent of that
  name gives (None, None).
  """
  if target_name == current_agent.name:
    raise WorkflowDataError(
        f"Agent '{target_name}' cannot transfer to itself; answer the user, or transfer to another agent."
    )
  child = direct_sub_agent(current_agent, target_name)
  if child is not None:
    return child, curr_ctx
  parent = current_agent.parent_agent
  if parent is not None and parent.name == target_name:
    if getattr(current_agent, "disallow_transfer_to_parent", False):
      raise WorkflowDataError(
          f"Cannot transfer from '{current_agent.name}' to parent agent '{target_name}': "
          "disallow_transfer_to_parent is set."
      )
    ctx = curr_ctx
    while ctx is not None and ctx.node is not None:
      if ctx.node.name == target_name:
        return parent, ctx.parent_ctx
      ctx = ctx.parent_ctx
    outermost = curr_ctx
    while outermost.parent_ctx is not None and outermost.node is not None:
      outermost = outermost.parent_ctx
    return parent, outermost
  sibling = direct_sub_agent(parent, target_name)
  if sibling is not None:
    if getattr(current_agent, "disallow_transfer_to_peers", False):
      raise WorkflowDataError(
          f"Cannot transfer from '{current_agent.name}' to peer agent '{target_name}': "
          "disallow_transfer_to_peers is set."
      )
    return sibling, curr_parent_ctx
  found = root_agent.find_agent(target_name)
  return (found, None) if found is not None else (None, None)
