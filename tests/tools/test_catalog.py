"""agent_tools: what an agent offers its model, with origins and approval, toolsets expanded."""

from adk_nb import Agent
from adk_nb.testing import ScriptedModel
from adk_nb.tools import AgentTool, FunctionTool
from adk_nb.tools.catalog import agent_tools
from adk_nb.tools.openapi_tool import OpenAPIToolset


def refund(order_id: str, amount: float) -> dict:
  """Refunds an order."""
  return {}


def lookup(order_id: str) -> dict:
  """Looks an order up."""
  return {}


async def test_catalog_lists_functions_agents_and_toolset_tools_with_origin_and_approval():
  spec = {"openapi": "3.0.0", "servers": [{"url": "https://shop.example.com/v1"}],
          "paths": {"/orders/{id}": {"get": {"operationId": "getOrder", "parameters": [
              {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}]}}}}
  helper = Agent(name="helper", model=ScriptedModel([]), description="Answers questions.")
  agent = Agent(name="support", model=ScriptedModel([]), tools=[
      lookup, FunctionTool(refund, require_confirmation=lambda amount: amount > 100), AgentTool(helper),
      OpenAPIToolset(spec_dict=spec, tool_name_prefix="shop")])
  infos = await agent_tools(agent)
  assert [(i.name, i.kind, i.needs_approval) for i in infos] == [
      ("lookup", "function", False), ("refund", "function", "depends"), ("helper", "agent", False),
      ("shop_get_order", "openapi", False)]
  assert infos[0].origin == f"function {__name__}.lookup"
  assert infos[2].origin == "agent 'helper'"
  assert infos[3].origin == "OpenAPI GET /orders/{id} at https://shop.example.com/v1"
  assert infos[3].toolset == "OpenAPIToolset(1 operations)"
  assert infos[3].declaration == {"name": "shop_get_order", "description": "GET /orders/{id}",
                                  "parameters_json_schema": {"type": "object", "properties": {"id": {"type": "string"}},
                                                             "required": ["id"]}}
