"""Tools: functions and agents offered to a model."""

from .base_tool import BaseTool
from .exit_loop_tool import exit_loop
from .function_tool import FunctionTool
from .long_running_tool import LongRunningFunctionTool
from .tool_confirmation import ToolConfirmation
from .tool_context import ToolContext
from .transfer_to_agent_tool import TransferToAgentTool, transfer_to_agent

__all__ = [
    "AgentTool",
    "BaseTool",
    "FunctionTool",
    "LongRunningFunctionTool",
    "ToolConfirmation",
    "ToolContext",
    "TransferToAgentTool",
    "exit_loop",
    "load_memory",
    "preload_memory",
    "transfer_to_agent",
]


def __getattr__(name: str):
  if name == "AgentTool":
    from .agent_tool import AgentTool

    return AgentTool
  if name == "load_memory":
    from .load_memory_tool import load_memory

    return load_memory
  if name == "preload_memory":
    from .preload_memory_tool import preload_memory

    return preload_memory
  raise AttributeError(f"module 'adk_nb.tools' has no attribute {name!r}")
