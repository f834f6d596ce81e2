"""Tools: functions and agents offered to a model.

Names are resolved lazily so that low-level modules (events) can import
`adk_nb.tools.tool_confirmation` without pulling in the agent machinery.
"""

from ..utils.lazy import lazy_exports

_EXPORTS = {
    "AgentTool": ".agent_tool",
    "BaseTool": ".base_tool",
    "BaseToolset": ".base_toolset",
    "ExampleTool": ".example_tool",
    "FunctionTool": ".function_tool",
    "GoogleSearchTool": ".google_search_tool",
    "LongRunningFunctionTool": ".long_running_tool",
    "MCPToolset": ".mcp_tool.mcp_toolset",
    "McpToolset": ".mcp_tool.mcp_toolset",
    "ToolConfirmation": ".tool_confirmation",
    "ToolContext": ".tool_context",
    "TransferToAgentTool": ".transfer_to_agent_tool",
    "VertexAiSearchTool": ".vertex_ai_search_tool",
    "exit_loop": ".exit_loop_tool",
    "google_search": ".google_search_tool",
    "load_artifacts": ".load_artifacts_tool:load_artifacts_tool",  # google-adk's spelling of both
    "load_memory": ".load_memory_tool",
    "preload_memory": ".preload_memory_tool",
    "request_input": "._request_input_tool",
    "transfer_to_agent": ".transfer_to_agent_tool",
    "UrlContextTool": ".url_context_tool",
    "url_context": ".url_context_tool",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_exports(__name__, _EXPORTS)
