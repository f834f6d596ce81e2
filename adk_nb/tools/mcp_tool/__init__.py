"""MCP toolsets: an MCP server's tools and resources offered to an agent.

Needs the official MCP SDK (`pip install "adk_nb[mcp]"`), imported when a session opens;
importing this package does not import it.
"""

from .load_mcp_resource_tool import LoadMcpResourceTool
from .mcp_session_manager import (
    MCPSessionManager,
    McpConnectionError,
    SseConnectionParams,
    StdioConnectionParams,
    StreamableHTTPConnectionParams,
)
from .mcp_tool import MCPTool, McpTool
from .mcp_toolset import MCPToolset, McpToolset

__all__ = [
    "LoadMcpResourceTool",
    "MCPSessionManager",
    "MCPTool",
    "MCPToolset",
    "McpConnectionError",
    "McpTool",
    "McpToolset",
    "SseConnectionParams",
    "StdioConnectionParams",
    "StreamableHTTPConnectionParams",
]
