"""A real MCP server for the McpToolset tests, written with the mcp SDK's server API.

Run as `python mcp_server.py stdio` (the stdio transport) or
`python mcp_server.py http PORT` (streamable HTTP on 127.0.0.1:PORT/mcp, SSE on /sse).
"""

from __future__ import annotations

import asyncio
import base64
import os
import sys
from enum import Enum
from typing import Optional

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import EmbeddedResource, TextResourceContents
from pydantic import BaseModel, Field

server = MCPServer("test-server")

# A 1x1 transparent PNG.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


class Priority(str, Enum):
  LOW = "low"
  HIGH = "high"


class Item(BaseModel):
  sku: str = Field(description="Stock keeping unit")
  qty: int = 1


class Order(BaseModel):
  items: list[Item]
  priority: Priority = Priority.LOW
  note: Optional[str] = None


@server.tool()
def add(a: int, b: int) -> int:
  """Adds two integers."""
  return a + b


@server.tool()
def place_order(order: Order, customer: str) -> str:
  """Places an order (nested objects, arrays, enums and $refs in its schema)."""
  total = sum(item.qty for item in order.items)
  return f"{customer}: {total} units, {order.priority.value} priority"


@server.tool()
def snapshot() -> Image:
  """Returns a tiny PNG image."""
  return Image(data=PIXEL, format="png")


@server.tool()
def readme_resource() -> EmbeddedResource:
  """Returns an embedded text resource."""
  return EmbeddedResource(type="resource", resource=TextResourceContents(
      uri="notes://readme", mime_type="text/markdown", text="# Notes\nhello"))


@server.tool()
def fail(reason: str) -> str:
  """Always fails with the given reason."""
  raise ToolError(f"refused: {reason}")


@server.tool()
async def slow(seconds: float) -> str:
  """Sleeps, then answers."""
  await asyncio.sleep(seconds)
  return "woke up"


@server.tool()
def crash() -> str:
  """Kills the server process mid-call."""
  os._exit(3)


@server.tool()
def whoami(ctx: Context) -> dict:
  """The server's process id and the request's x-user header (HTTP only)."""
  headers = ctx.headers or {}
  return {"pid": os.getpid(), "user": headers.get("x-user")}


@server.tool()
def big(size: int) -> str:
  """Returns `size` characters."""
  return "x" * size


@server.prompt()
def support_persona(customer: str, tier: str = "standard") -> str:
  """The instruction a support agent is given (read by McpInstructionProvider's test)."""
  return f"You help {customer}, a {tier} customer. Be brief."


@server.resource("notes://readme", name="readme", mime_type="text/markdown")
def readme() -> str:
  """The project notes."""
  return "# Notes\nhello"


@server.resource("data://config", name="config", mime_type="application/json")
def config() -> str:
  return '{"debug": true}'


if __name__ == "__main__":
  if len(sys.argv) > 1 and sys.argv[1] == "http":
    server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
  elif len(sys.argv) > 1 and sys.argv[1] == "sse":
    server.run("sse", host="127.0.0.1", port=int(sys.argv[2]))
  else:
    if os.environ.get("MCP_TEST_EXIT_AT_START"):
      sys.exit("configuration missing")
    server.run()
