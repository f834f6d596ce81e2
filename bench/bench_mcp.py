"""Per-call framework overhead of an MCP tool over a warm stdio session, beside the SDK called directly.

  python bench/bench_mcp.py [--calls 2000]

Two servers from the same script (a one-tool MCP server written to a temporary file): one
driven directly with the SDK's ClientSession.call_tool, one through adk_nb's McpTool.run_async
(session lookup, header provider check, result conversion and truncation), and a third figure
for the whole function-call step of the flow (callbacks, tracing hooks, the response event).
Calls alternate in batches so machine load affects all sides alike; the figures are medians of
wall time and of this process's CPU time per call (the client side: the server runs elsewhere).
The CPU figures isolate the framework's own cost from the round trip's scheduling noise.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time

SERVER = '''
from mcp.server.mcpserver import MCPServer
server = MCPServer("bench")

@server.tool()
def echo(text: str) -> str:
    """Echoes the text."""
    return text

server.run()
'''


async def main(calls: int, batch: int) -> dict:
  from mcp import ClientSession, StdioServerParameters, stdio_client
  from google.genai import types

  from adk_nb import Agent, InMemoryRunner
  from adk_nb.agents.invocation_context import InvocationContext
  from adk_nb.flows import _functions
  from adk_nb.testing import ScriptedModel
  from adk_nb.tools.mcp_tool import McpToolset, StdioConnectionParams
  from adk_nb.tools.tool_context import ToolContext

  with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
    f.write(SERVER)
  params = StdioServerParameters(command=sys.executable, args=[f.name])
  toolset = McpToolset(connection_params=StdioConnectionParams(server_params=params, timeout=30))
  agent = Agent(name="bench", model=ScriptedModel([]), tools=[toolset])
  runner = InMemoryRunner(agent, app_name="bench")
  session = await runner.session_service.create_session(app_name="bench", user_id="u", session_id="s")
  ctx = InvocationContext(session_service=runner.session_service, invocation_id="e-bench", agent=agent,
                          session=session, plugin_manager=runner.plugin_manager)
  try:
    async with stdio_client(params) as (read, write):
      async with ClientSession(read, write) as direct:
        await direct.initialize()
        [tool] = await toolset.get_tools()
        tc = ToolContext(ctx, function_call_id="c1")
        args = {"text": "hello"}
        call = types.FunctionCall(id="c1", name="echo", args=args)
        for _ in range(50):  # warm both sessions
          await direct.call_tool("echo", args)
          await tool.run_async(args=args, tool_context=tc)
        runs = {
            "sdk": lambda: direct.call_tool("echo", args),
            "mcp_tool": lambda: tool.run_async(args=args, tool_context=tc),
            "flow_step": lambda: _functions.handle_function_calls(agent, ctx, [call], {"echo": tool}),
        }
        wall = {k: [] for k in runs}
        cpu = {k: [] for k in runs}
        for _ in range(calls // batch):
          for name, run in runs.items():
            t, c = time.perf_counter(), time.process_time()
            for _ in range(batch):
              await run()
            wall[name].append((time.perf_counter() - t) / batch * 1000)
            cpu[name].append((time.process_time() - c) / batch * 1000)
  finally:
    await runner.close()
    os.unlink(f.name)
  out = {}
  for kind, table in (("wall", wall), ("client_cpu", cpu)):
    for name, values in table.items():
      out[f"{kind}_{name}_ms"] = statistics.median(values)
    out[f"{kind}_mcp_tool_overhead_ms"] = out[f"{kind}_mcp_tool_ms"] - out[f"{kind}_sdk_ms"]
    out[f"{kind}_flow_step_overhead_ms"] = out[f"{kind}_flow_step_ms"] - out[f"{kind}_sdk_ms"]
  return out


if __name__ == "__main__":
  parser = argparse.ArgumentParser()
  parser.add_argument("--calls", type=int, default=2000)
  parser.add_argument("--batch", type=int, default=50)
  ns = parser.parse_args()
  result = asyncio.run(main(ns.calls, ns.batch))
  for key, value in result.items():
    print(f"{key:>32}: {value:.3f}")
