"""`%agent tools` and `tools_view`: an agent's tools as its model sees them, toolsets expanded, shown escaped."""

from __future__ import annotations

import sys

import pytest

from adk_nb import Agent
from adk_nb.models import ScriptedModel
from adk_nb.notebook import tools_view
from adk_nb.tools import AgentTool, FunctionTool
from adk_nb.tools.openapi_tool import OpenAPIToolset

SPEC = {"openapi": "3.0.0", "servers": [{"url": "https://shop.example.com/v1"}],
        "paths": {"/orders/{id}": {"get": {"operationId": "getOrder", "summary": "Reads <b>an</b> order", "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}]}}}}


def refund(order_id: str, amount: float = 0.0) -> dict:
  """Refunds an order. <script>window.__pwned = 1</script>"""
  return {}


def support_agent(*toolsets):
  helper = Agent(name="helper", model=ScriptedModel([]), description="Answers questions.")
  return Agent(name="support", model=ScriptedModel([]), tools=[
      FunctionTool(refund, require_confirmation=True), AgentTool(helper), OpenAPIToolset(spec_dict=SPEC), *toolsets])


async def test_a_table_of_every_tool_with_kind_parameters_and_approval():
  table = await tools_view(support_agent())
  assert [(r.name, r.kind, r.parameter_summary(), r.require_confirmation) for r in table.rows] == [
      ("refund", "function", "order_id: string, amount?: number", True),
      ("helper", "agent", "request: string", False),
      ("get_order", "openapi", "id: string", False)]
  assert table.rows[2].origin == "OpenAPI GET /orders/{id} at https://shop.example.com/v1"
  frame = table.to_frame()
  assert list(frame.columns) == ["name", "kind", "origin", "description", "parameters", "require_confirmation"]
  assert frame.loc[0, "description"].startswith("Refunds an order.")
  html = table._repr_html_()
  assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in html and "<script>" not in html
  assert "<td>yes</td>" in html and '&quot;required&quot;: [\n    &quot;order_id&quot;' in html
  assert "refund(order_id: string, amount?: number) [function] approval: yes" in repr(table)


async def test_an_mcp_toolset_is_expanded_into_its_server_tools():
  pytest.importorskip("mcp")
  from mcp import StdioServerParameters

  from adk_nb.tools.mcp_tool import McpToolset, StdioConnectionParams
  from tests.tools.conftest import SERVER

  mcp = McpToolset(connection_params=StdioConnectionParams(
      server_params=StdioServerParameters(command=sys.executable, args=[str(SERVER)]), timeout=10.0),
      tool_filter=["add"], require_confirmation=True)
  try:
    table = await tools_view(support_agent(mcp))
  finally:
    await mcp.close()
  [row] = [r for r in table.rows if r.kind == "mcp"]
  assert row.name == "add" and row.require_confirmation is True and row.origin.startswith("MCP stdio server")
  assert row.parameter_summary() == "a: integer, b: integer" and row.description == "Adds two integers."
  assert row.toolset.startswith("McpToolset")


def test_the_tools_line_magic_shows_the_table(shell):
  shell.user_ns["support"] = support_agent()
  result = shell.run_cell("%agent tools support")
  assert result.success, result.error_in_exec
  assert [r.name for r in result.result.rows] == ["refund", "helper", "get_order"]
  failed = shell.run_cell("%agent tools")
  assert not failed.success and "usage: %agent tools AGENT" in str(failed.error_in_exec)
