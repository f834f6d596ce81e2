"""load_mcp_resource: lets the model read an MCP server's resources by name."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from google.genai import types

from ..base_tool import BaseTool
from .mcp_tool import dump_wire, limit_result

logger = logging.getLogger("adk_nb.tools.mcp")

if TYPE_CHECKING:
  from ...models.llm_request import LlmRequest
  from ..tool_context import ToolContext
  from .mcp_toolset import McpToolset


class LoadMcpResourceTool(BaseTool):
  """Offered by `McpToolset(use_mcp_resources=True)`.

  The instruction lists the server's resource names; a call answers with their contents.
  google-adk inserts the contents into the next request instead and answers with a status;
  here the contents are the answer, so they stay in the history like any tool result.
  """

  def __init__(self, mcp_toolset: "McpToolset") -> None:
    super().__init__(name="load_mcp_resource",
                     description="Reads resources of the MCP server by name. Call it when you need what a resource holds.")
    self._mcp_toolset = mcp_toolset

  def _get_declaration(self) -> types.FunctionDeclaration:
    return types.FunctionDeclaration(name=self.name, description=self.description, parameters_json_schema={
        "type": "object",
        "properties": {"resource_names": {"type": "array", "items": {"type": "string"}}},
        "required": ["resource_names"],
    })

  async def process_llm_request(self, *, tool_context: "ToolContext", llm_request: "LlmRequest") -> None:
    await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
    try:
      names = await self._mcp_toolset.list_resources(tool_context)
    except Exception as exc:  # noqa: BLE001 - a server without resources still has its tools
      logger.warning("Listing the resources of %r failed; the model is not told about them: %s",
                     self._mcp_toolset, exc)
      return
    if names:
      llm_request.append_instructions([
          f"The MCP server offers these resources:\n{json.dumps(names)}\n\nWhen the user asks about any of them, "
          f"call `{self.name}` with their names first and answer from what it returns."])

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    names = args.get("resource_names")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
      return {"error": "resource_names must be a list of resource names, e.g. {\"resource_names\": [\"readme\"]}."}
    contents = []
    for name in names:
      try:
        for item in await self._mcp_toolset.read_resource(name, tool_context):
          contents.append({"type": "resource", "name": name, "resource": dump_wire(item)})
      except ValueError as exc:
        contents.append({"type": "text", "name": name, "text": f"error: {exc}"})
    return limit_result({"content": contents}, self._mcp_toolset.max_result_chars)
