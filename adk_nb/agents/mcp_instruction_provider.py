"""McpInstructionProvider: an agent's instruction read from a prompt an MCP server offers.

At google-adk's path. Give it as `instruction=`; each model call asks the server for the prompt, filling
the prompt's arguments from session state keys of the same names, and joins its text messages. The MCP
SDK is needed when the instruction is first read (`pip install "adk_nb[mcp]"`), not to construct it.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from ..tools.mcp_tool.mcp_session_manager import MCPSessionManager
from .readonly_context import ReadonlyContext


class McpInstructionProvider:
  """Reads `prompt_name` from the MCP server at `connection_params` as the agent's instruction."""

  def __init__(self, connection_params: Any, prompt_name: str, errlog: TextIO = sys.stderr):
    self.prompt_name = prompt_name
    """The name of the server's prompt to read."""
    self._sessions = MCPSessionManager(connection_params=connection_params, errlog=errlog)

  async def __call__(self, context: ReadonlyContext) -> str:
    session = await self._sessions.create_session()
    listed = await session.list_prompts()
    prompt = next((p for p in listed.prompts if p.name == self.prompt_name), None)
    if prompt is None:
      offered = ", ".join(sorted(p.name for p in listed.prompts)) or "none"
      raise ValueError(f"The MCP {self._sessions.server_name} has no prompt {self.prompt_name!r} "
                       f"(it offers: {offered}); fix prompt_name in McpInstructionProvider.")
    wanted = {argument.name for argument in prompt.arguments or ()}
    state = context.state or {}
    arguments = {name: str(state[name]) for name in wanted if name in state}
    result = await session.get_prompt(self.prompt_name, arguments=arguments)
    texts = [m.content.text for m in result.messages or () if getattr(m.content, "type", "") == "text"]
    if not texts:
      raise ValueError(f"The MCP {self._sessions.server_name}'s prompt {self.prompt_name!r} holds no "
                       "text message to use as an instruction.")
    return "".join(texts)
