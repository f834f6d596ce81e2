"""McpToolset against real MCP servers (tests/tools/mcp_server.py): stdio, streamable HTTP and SSE."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest

mcp = pytest.importorskip("mcp")

from mcp import StdioServerParameters  # noqa: E402

from adk_nb import Agent, InMemoryRunner  # noqa: E402
from adk_nb.pending import answer_message, confirmation_response, pending_items  # noqa: E402
from adk_nb.testing import ScriptedModel, call, run_turn  # noqa: E402
from adk_nb.tools.catalog import agent_tools  # noqa: E402
from adk_nb.tools.mcp_tool import (  # noqa: E402
    McpConnectionError,
    McpTool,
    McpToolset,
    SseConnectionParams,
    StdioConnectionParams,
    StreamableHTTPConnectionParams,
)

from .conftest import SERVER, child_pids, pid_alive, wait_until  # noqa: E402


def stdio(errlog, *, env=None, timeout=5.0, command=sys.executable):
  return StdioConnectionParams(
      server_params=StdioServerParameters(command=command, args=[str(SERVER)], env=env), timeout=timeout)


def toolset(errlog, **kwargs):
  params = kwargs.pop("connection_params", None) or stdio(errlog)
  return McpToolset(connection_params=params, errlog=errlog, **kwargs)


def answers(events):
  return [(r.name, r.response) for e in events for r in e.get_function_responses()]


def declarations(request):
  return {d.name: d for t in request.config.tools or [] for d in t.function_declarations or []}


def text_of(response):
  return "".join(block.get("text", "") for block in response["content"])


async def test_an_adk_program_runs_unchanged_after_the_import_swap(errlog):
  """The program as written for google-adk (MCP quickstart style); only `google.adk` is replaced."""
  adk_program = textwrap.dedent(f"""
      import sys
      from google.adk.agents import LlmAgent
      from google.adk.runners import InMemoryRunner
      from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams
      from google.adk.tools.mcp_tool.mcp_toolset import McpToolset as DeepMcpToolset
      from google.genai import types
      from mcp import StdioServerParameters

      toolset = McpToolset(
          connection_params=StdioConnectionParams(
              server_params=StdioServerParameters(command=sys.executable, args=[{str(SERVER)!r}]),
              timeout=5,
          ),
          tool_filter=["add"],
          errlog=errlog,
      )
      assert isinstance(toolset, DeepMcpToolset)
      agent = LlmAgent(name="calculator", model=model, instruction="Use the tools.", tools=[toolset])

      async def main():
          runner = InMemoryRunner(agent=agent, app_name="calc")
          session = await runner.session_service.create_session(app_name="calc", user_id="u")
          message = types.Content(role="user", parts=[types.Part(text="2 + 40?")])
          final = None
          async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message):
              if event.is_final_response():
                  final = event.content.parts[0].text
          await runner.close()
          return final
  """)
  model = ScriptedModel([call("add", a=2, b=40), "42"])
  scope = {"model": model, "errlog": errlog}
  exec(compile(adk_program.replace("google.adk", "adk_nb"), "adk_program", "exec"), scope)
  before = child_pids()
  assert await scope["main"]() == "42"
  assert model.requests[1].contents[-1].parts[0].function_response.response["structuredContent"] == {"result": 42}
  assert child_pids() <= before  # closed by runner.close(): the server process is gone


async def test_declarations_inline_nested_objects_arrays_enums_and_refs(errlog):
  tools = toolset(errlog, tool_filter=["place_order", "add"], tool_name_prefix="shop")
  model = ScriptedModel([call("shop_place_order", order={"items": [{"sku": "A", "qty": 2}, {"sku": "B"}],
                                                          "priority": "high"}, customer="Ada"), "ok"])
  agent = Agent(name="a", model=model, tools=[tools])
  runner = InMemoryRunner(agent, app_name="app")
  try:
    events = await run_turn(runner, "order")
    catalog = await agent_tools(agent)
  finally:
    await runner.close()
  assert [(i.name, i.kind, i.needs_approval) for i in catalog] == [("shop_add", "mcp", False),
                                                                   ("shop_place_order", "mcp", False)]
  assert catalog[0].origin.startswith("MCP stdio server `") and catalog[0].origin.endswith("mcp_server.py`")
  decls = declarations(model.requests[0])
  assert sorted(decls) == ["shop_add", "shop_place_order"]
  schema = decls["shop_place_order"].parameters_json_schema
  assert "$ref" not in json.dumps(schema) and "$defs" not in schema
  order = schema["properties"]["order"]
  assert order["type"] == "object" and order["required"] == ["items"]
  assert order["properties"]["priority"]["enum"] == ["low", "high"]
  item = order["properties"]["items"]["items"]
  assert item["properties"]["sku"] == {"type": "string", "description": "Stock keeping unit"}
  assert schema["required"] == ["order", "customer"]
  [(name, response)] = answers(events)
  assert name == "shop_place_order" and text_of(response) == "Ada: 3 units, high priority"


async def test_results_text_structured_image_resource_and_errors_reach_the_model(errlog):
  tools = toolset(errlog)
  model = ScriptedModel([
      [call("add", a=1, b=2), call("snapshot"), call("readme_resource"), call("fail", reason="no stock")],
      "done"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[tools]), app_name="app")
  try:
    events = await run_turn(runner, "go")
  finally:
    await runner.close()
  got = dict(answers(events))
  assert got["add"] == {"content": [{"type": "text", "text": "3"}], "structuredContent": {"result": 3}, "isError": False}
  [image] = got["snapshot"]["content"]
  assert image["type"] == "image" and image["mimeType"] == "image/png" and image["data"].startswith("iVBOR")
  [resource] = got["readme_resource"]["content"]
  assert resource["resource"] == {"uri": "notes://readme", "mimeType": "text/markdown", "text": "# Notes\nhello"}
  assert got["fail"]["isError"] is True and "refused: no stock" in text_of(got["fail"])
  # The model's next request carries all four answers.
  sent = model.requests[1].contents[-1].parts
  assert sorted(p.function_response.name for p in sent) == ["add", "fail", "readme_resource", "snapshot"]


async def test_long_results_are_cut_with_a_marker_at_the_configured_limit(errlog):
  tools = toolset(errlog, max_result_chars=50)
  model = ScriptedModel([[call("big", size=500), call("snapshot")], "done"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[tools]), app_name="app")
  try:
    got = dict(answers(await run_turn(runner, "go")))
  finally:
    await runner.close()
  text = text_of(got["big"])
  assert text.startswith("x" * 50) and "x" * 51 not in text
  assert "[truncated: 450 of 500 characters left out; raise max_result_chars" in text
  assert got["big"]["structuredContent"]["truncated"].startswith("structuredContent of ")
  # The budget is spent: the image's data is left out whole rather than cut in half.
  assert got["snapshot"]["content"][0]["data"].startswith("...[truncated: ")
  with pytest.raises(ValueError, match="max_result_chars must be positive"):
    toolset(errlog, max_result_chars=0)
  with pytest.raises(ValueError, match="tool_list_cache_ttl_seconds must be positive"):
    toolset(errlog, tool_list_cache_ttl_seconds=0)


async def test_require_confirmation_pauses_through_the_same_path_as_function_tools(errlog):
  tools = toolset(errlog, tool_filter=["add"], require_confirmation=lambda a, b: a + b > 10)
  model = ScriptedModel([call("add", a=1, b=2), call("add", a=20, b=30), "50 it is"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[tools]), app_name="app")
  try:
    first = await run_turn(runner, "go")
    assert answers(first)[0][1]["structuredContent"] == {"result": 3}  # small sum: no approval needed
    assert answers(first)[-1] == ("add", {"error": "This tool call requires confirmation, please approve or reject."})
    session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
    [item] = pending_items(session.events)
    assert (item.kind, item.tool, item.args) == ("confirmation", "add", {"a": 20, "b": 30})
    resumed = await run_turn(runner, answer_message([confirmation_response(item, True)]))
  finally:
    await runner.close()
  results = [r for name, r in answers(resumed) if name == "add"]
  assert results[0]["structuredContent"] == {"result": 50}
  assert resumed[-1].text == "50 it is"


async def test_rejected_mcp_call_never_reaches_the_server(errlog):
  tools = toolset(errlog, tool_filter=["crash"], require_confirmation=True)
  model = ScriptedModel([call("crash"), "not done"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[tools]), app_name="app")
  try:
    await run_turn(runner, "go")
    session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
    [item] = pending_items(session.events)
    resumed = await run_turn(runner, answer_message([confirmation_response(item, False)]))
    assert ("crash", {"error": "This tool call is rejected."}) in answers(resumed)
    # The server is still the one that listed the tools: crash() never ran.
    whoami = [t for t in await tools.get_tools() if t.name == "crash"]
    assert whoami and all(conn.alive for conn in tools._mcp_session_manager._connections.values())
  finally:
    await runner.close()


async def test_one_session_reused_across_turns_reopened_after_the_server_dies(errlog):
  tools = toolset(errlog, tool_filter=["whoami", "crash"])
  model = ScriptedModel([call("whoami"), "1", call("whoami"), "2", call("crash"), "3", call("whoami"), "4"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[tools]), app_name="app")
  before = child_pids()
  try:
    pids = []
    for turn in range(4):
      got = answers(await run_turn(runner, f"turn {turn}"))
      if got[0][0] == "whoami":
        pids.append(json.loads(text_of(got[0][1]))["pid"])
      else:
        assert "closed the connection during the call to `crash`" in got[0][1]["error"]
        assert "may have run; the next call starts the server again" in got[0][1]["error"]
    assert pids[0] == pids[1]  # the same server process served both turns
    assert pids[2] != pids[0] and not pid_alive(pids[0])  # a new one after the crash
    assert len(child_pids() - before) == 1
  finally:
    await runner.close()
  assert child_pids() <= before and not pid_alive(pids[2])


async def test_slow_tool_times_out_as_an_answer_and_an_interrupted_call_leaves_a_usable_session(errlog):
  tools = toolset(errlog, connection_params=stdio(errlog, timeout=1.0))
  before = child_pids()
  try:
    by_name = {t.name: t for t in await tools.get_tools()}
    context = SimpleNamespace(tool_confirmation=None, _invocation_context=None)
    slow = await by_name["slow"].run_async(args={"seconds": 30}, tool_context=context)
    assert "calling `slow` failed" in slow["error"] and "stdio server" in slow["error"]
    # An interrupted cell: the task running the call is cancelled mid-call.
    task = asyncio.ensure_future(by_name["slow"].run_async(args={"seconds": 0.9}, tool_context=context))
    await asyncio.sleep(0)  # the interruption may land before or after the request is sent: both must be safe
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
      await task
    added = await by_name["add"].run_async(args={"a": 1, "b": 1}, tool_context=context)
    assert added["structuredContent"] == {"result": 2}
    assert len(child_pids() - before) == 1
  finally:
    await tools.close()
  assert child_pids() <= before


async def test_a_call_to_a_tool_the_server_no_longer_has_answers_with_the_servers_error(errlog):
  tools = toolset(errlog, tool_list_cache_ttl_seconds=600)
  try:
    listed = await tools.get_tools()
    assert await tools.get_tools() == listed  # the cached listing: the same tools, no second round trip
    [add] = [t for t in listed if t.name == "add"]
    gone = McpTool(mcp_tool=add.raw_mcp_tool.model_copy(update={"name": "retired"}),
                   mcp_session_manager=tools._mcp_session_manager)
    result = await gone.run_async(args={}, tool_context=SimpleNamespace(tool_confirmation=None, _invocation_context=None))
  finally:
    await tools.close()
  assert result["isError"] is True and "Unknown tool: retired" in text_of(result)


def test_closing_the_event_loop_stops_the_server_without_close(errlog):
  """A script that never calls close(): asyncio.run's end still stops the server."""
  before = child_pids()

  async def use():
    tools = toolset(errlog, tool_filter=["add"])
    return [t.name for t in await tools.get_tools()], child_pids() - before

  names, started = asyncio.run(use())
  assert names == ["add"] and len(started) == 1
  assert child_pids() <= before


@pytest.mark.parametrize("end", ["kill", "exit"])
def test_a_killed_kernel_or_an_exit_without_close_leaves_no_server_process(tmp_path, end):
  """The process holding the session dies by SIGKILL (a kernel restart), or exits with its loop
  still open and the toolset never closed (atexit closes it); either way the server is gone."""
  script = tmp_path / "holder.py"
  script.write_text(textwrap.dedent(f"""
      import asyncio, json, sys
      from mcp import StdioServerParameters
      from adk_nb.tools.mcp_tool import McpToolset, StdioConnectionParams

      async def main():
          tools = McpToolset(connection_params=StdioConnectionParams(
              server_params=StdioServerParameters(command=sys.executable, args=[{str(SERVER)!r}])))
          [whoami] = [t for t in await tools.get_tools() if t.name == "whoami"]
          result = await whoami.run_async(args={{}}, tool_context=type("C", (), {{"tool_confirmation": None,
                                                                                  "_invocation_context": None}})())
          print(json.loads(result["content"][0]["text"])["pid"], flush=True)
          if sys.argv[1] == "kill":
              await asyncio.Event().wait()

      loop = asyncio.new_event_loop()  # like a kernel's loop: never closed by the script
      loop.run_until_complete(main())
      sys.stdin.readline()  # exit when the test says so
  """))
  holder = subprocess.Popen([sys.executable, str(script), end], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=os.getcwd(),
                            env={**os.environ, "PYTHONPATH": os.getcwd()}, text=True)
  try:
    server_pid = int(holder.stdout.readline())
    assert pid_alive(server_pid)
    if end == "exit":
      holder.stdin.write("\n")
      holder.stdin.flush()
      assert holder.wait(timeout=60) == 0
  finally:
    holder.kill()
    holder.wait()
  wait_until(lambda: not pid_alive(server_pid), 30, f"MCP server {server_pid} to exit after its client was killed")


async def test_missing_command_and_a_server_that_exits_at_start_are_clear_errors(errlog):
  before = child_pids()
  missing = toolset(errlog, connection_params=stdio(errlog, command="no-such-mcp-server-binary"))
  with pytest.raises(McpConnectionError, match="command 'no-such-mcp-server-binary' was not found"):
    await missing.get_tools()
  dying = toolset(errlog, connection_params=stdio(errlog, env={"MCP_TEST_EXIT_AT_START": "1"}))
  with pytest.raises(McpConnectionError, match=r"stdio server `.*mcp_server.py` exited before it finished starting"):
    await dying.get_tools()
  await missing.close()
  await dying.close()
  assert child_pids() <= before


async def test_resources_are_listable_loadable_and_offered_to_the_model(errlog):
  tools = toolset(errlog, tool_filter=["add"], use_mcp_resources=True)
  model = ScriptedModel([call("load_mcp_resource", resource_names=["readme", "nope"]), "read it"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[tools]), app_name="app")
  try:
    assert await tools.list_resources() == ["readme", "config"]
    info = await tools.get_resource_info("config")
    assert info["uri"] == "data://config" and info["mimeType"] == "application/json"
    [content] = await tools.read_resource("config")
    assert content.text == '{"debug": true}'
    with pytest.raises(ValueError, match="has no resource named 'nope'; it has: readme, config"):
      await tools.read_resource("nope")
    events = await run_turn(runner, "what do the notes say?")
  finally:
    await runner.close()
  assert '["readme", "config"]' in model.requests[0].config.system_instruction
  [(name, response)] = answers(events)
  readme, missing = response["content"]
  assert readme["resource"]["text"] == "# Notes\nhello"
  assert "no resource named 'nope'" in missing["text"]


async def test_streamable_http_server_with_headers_per_request(http_servers):
  seen_users = []

  def headers(ctx):
    seen_users.append(ctx.state.get("user:name"))
    return {"x-user": ctx.state.get("user:name", "anonymous")}

  tools = McpToolset(connection_params=StreamableHTTPConnectionParams(url=http_servers["http"]),
                     tool_filter=["whoami", "add"], header_provider=headers)
  model = ScriptedModel([call("whoami"), "hi ada", call("whoami"), "hi bob"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[tools]), app_name="app")
  try:
    ada = answers(await run_turn(runner, "who?", state_delta={"user:name": "ada"}))
    bob = answers(await run_turn(runner, "who?", user_id="bob", session_id="s2", state_delta={"user:name": "bob"}))
  finally:
    await runner.close()
  assert json.loads(text_of(ada[0][1]))["user"] == "ada"
  assert json.loads(text_of(bob[0][1]))["user"] == "bob"
  assert "ada" in seen_users and "bob" in seen_users


async def test_sse_server(http_servers):
  tools = McpToolset(connection_params=SseConnectionParams(url=http_servers["sse"], headers={"x-user": "sse"}))
  try:
    [add] = [t for t in await tools.get_tools() if t.name == "add"]
    result = await add.run_async(args={"a": 2, "b": 2},
                                 tool_context=SimpleNamespace(tool_confirmation=None, _invocation_context=None))
  finally:
    await tools.close()
  assert result["structuredContent"] == {"result": 4}


async def test_unreachable_http_server_is_a_clear_error():
  from .conftest import free_port

  url = f"http://127.0.0.1:{free_port()}/mcp"
  tools = McpToolset(connection_params=StreamableHTTPConnectionParams(url=url, timeout=2))
  with pytest.raises(McpConnectionError, match=f"server at {url}"):
    await tools.get_tools()
  await tools.close()


async def test_an_agent_whose_server_cannot_start_answers_without_its_tools(errlog, caplog):
  # As google-adk 2.13: the step goes on without the toolset's tools, and the failure is logged
  # at error level naming the agent and the server (its sample mcp_dynamic_header_agent answers a
  # turn this way with no server running).
  dying = toolset(errlog, connection_params=stdio(errlog, env={"MCP_TEST_EXIT_AT_START": "1"}))
  def echo(word: str) -> str:
    """Echoes a word."""
    return word

  model = ScriptedModel(["I cannot reach that service right now."])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[echo, dying]), app_name="app")
  events = await run_turn(runner, "hi")
  await dying.close()
  assert events[-1].content.parts[0].text == "I cannot reach that service right now."
  [request] = model.requests
  assert [d.name for t in request.config.tools for d in t.function_declarations] == ["echo"]
  assert "Agent 'a' runs this step without the tools of" in caplog.text
  assert "exited before it finished starting" in caplog.text


def test_bad_connection_params_name_the_accepted_kinds():
  with pytest.raises(TypeError, match="connection_params must be StdioConnectionParams"):
    McpToolset(connection_params="python server.py")
  with pytest.raises(ValueError, match="server_params must be mcp.StdioServerParameters"):
    StdioConnectionParams(server_params={"cmd": "x"})


def test_a_schema_the_model_cannot_take_names_the_server_tool_and_fix(errlog):
  tree = mcp.types.Tool(name="tree", input_schema={
      "type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
      "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}})
  tool = McpTool(mcp_tool=tree, mcp_session_manager=toolset(errlog)._mcp_session_manager)
  with pytest.raises(ValueError, match=r"stdio server .* tool 'tree' has an input schema the model cannot take: "
                                       r"\$ref '#/\$defs/Node' is recursive.*tool_filter"):
    tool._get_declaration()


def test_without_the_sdk_the_error_names_the_extra(monkeypatch):
  from adk_nb.tools.mcp_tool.mcp_session_manager import import_mcp

  monkeypatch.setitem(sys.modules, "mcp", None)
  with pytest.raises(ImportError, match=r'pip install "adk_nb\[mcp\]"'):
    import_mcp()


def test_a_stderr_without_a_file_descriptor_falls_back_to_the_process_stderr():
  """In a Jupyter kernel sys.stderr is an in-memory stream; the server's stderr must still go somewhere."""
  import io

  from adk_nb.tools.mcp_tool.mcp_session_manager import _with_fileno

  assert _with_fileno(io.StringIO()) is sys.__stderr__
  assert _with_fileno(sys.__stderr__) is sys.__stderr__


def test_the_sync_runner_gets_its_own_session_and_leaves_no_server(errlog):
  """Runner.run works on a worker thread with its own loop: the session lives and ends with that loop."""
  tools = toolset(errlog, tool_filter=["add"])
  model = ScriptedModel([call("add", a=5, b=6), "11"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[tools]), app_name="app")
  before = child_pids()
  asyncio.run(runner.session_service.create_session(app_name="app", user_id="u", session_id="s"))
  events = list(runner.run(user_id="u", session_id="s", new_message=user_text("5+6?")))
  assert events[-1].text == "11"
  assert [r.response["structuredContent"] for e in events for r in e.get_function_responses()] == [{"result": 11}]
  assert child_pids() <= before


def user_text(text):
  from google.genai import types

  return types.Content(role="user", parts=[types.Part(text=text)])
