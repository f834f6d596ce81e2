"""transfer_to_agent: hands the conversation to another agent in the tree."""

from __future__ import annotations

from typing import Any, Optional

from google.genai import types

from .base_tool import BaseTool
from .tool_context import ToolContext


def transfer_to_agent(agent_name: str, tool_context: ToolContext) -> None:
  """Hands the conversation to another agent, which answers from now on.

  Args:
    agent_name: name of the agent that takes over.
  """
  tool_context.actions.transfer_to_agent = agent_name


class TransferToAgentTool(BaseTool):
  """The transfer tool offered to an LlmAgent, restricted to the agents it may transfer to.

  A call naming an agent outside the allowed set is answered with an error the model can
  recover from; nothing is transferred.
  """

  def __init__(self, targets: dict[str, str]):
    super().__init__(name="transfer_to_agent", description="Hands the conversation to another agent, which answers from now on.")
    self.targets = targets
    self._declaration = types.FunctionDeclaration(
        name=self.name,
        description=(
            "Hands the conversation to another agent, which answers from now on. Use it when another "
            "agent's description fits the question better than yours."
        ),
        parameters_json_schema={
            "type": "object",
            "properties": {
                "agent_name": {
                    "type": "string",
                    "description": "name of the agent that takes over.",
                    "enum": sorted(targets),
                }
            },
            "required": ["agent_name"],
        },
    )

  def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
    return self._declaration

  async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
    name = args.get("agent_name")
    if name not in self.targets:
      allowed = ", ".join(sorted(self.targets)) or "none"
      return {
          "error": f"Cannot transfer to {name!r}: not an agent you can transfer to. "
          f"Allowed agents: {allowed}. Answer yourself or transfer to one of those."
      }
    ctx = tool_context.invocation_context
    if not ctx.count_transfer():
      return {
          "error": f"Transfer limit reached ({ctx.run_config.max_transfers} transfers in this turn); "
          "answer the user yourself instead of transferring again."
      }
    tool_context.actions.transfer_to_agent = name
    return None  # answered {"result": None}, as in ADK, so histories match across frameworks
