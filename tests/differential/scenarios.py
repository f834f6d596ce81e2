"""Runs the differential scenarios on google-adk or adk_nb and prints one normalised JSON trace.

The same code drives both frameworks (imports go through the package prefix given on the
command line) with a scripted model written here against the `BaseLlm` API both share.
tests/test_differential.py runs it once per framework, each in its own interpreter, and
compares the traces.

  python tests/differential/scenarios.py --framework adk_nb [--scenario NAME ...]

A trace holds, per scenario: the events each turn yielded (author, function calls, function
responses, text, transfer/escalate/skip_summarization actions, long-running calls), what each model call was sent
(system instruction, contents, tool names, and each tool's description and parameter schema), the stored events and the final session state. Ids, timestamps and invocation ids are left out: they are random on both sides.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import logging
import os
import sys
import traceback
import warnings
from typing import Any, Callable

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FRAMEWORKS = {"google-adk": "google.adk", "adk_nb": "adk_nb"}


class Skip(Exception):
  """The framework lacks what a scenario needs (e.g. adk_nb before AgentTool landed)."""


class Framework:
  """The classes the scenarios need, imported from `google.adk` or `adk_nb`."""

  def __init__(self, name: str):
    prefix = FRAMEWORKS[name]
    if name == "adk_nb" and REPO_ROOT not in sys.path:
      sys.path.insert(0, REPO_ROOT)
    self.name = name
    self.prefix = prefix
    agents = importlib.import_module(prefix + ".agents")
    tools = importlib.import_module(prefix + ".tools")
    models = importlib.import_module(prefix + ".models")
    self.agents, self.tools = agents, tools
    self.LlmAgent = agents.LlmAgent
    self.SequentialAgent = agents.SequentialAgent
    self.LoopAgent = agents.LoopAgent
    self.InMemoryRunner = importlib.import_module(prefix + ".runners").InMemoryRunner
    self.FunctionTool = tools.FunctionTool
    self.exit_loop = tools.exit_loop
    self.BaseLlm = models.BaseLlm
    self.LlmResponse = models.LlmResponse
    self.types = importlib.import_module("google.genai.types")
    self.requests: list[dict] = []

  def agent_tool(self):
    try:
      return importlib.import_module(self.prefix + ".tools.agent_tool").AgentTool
    except ImportError as exc:
      raise Skip(f"{self.prefix}.tools.agent_tool.AgentTool cannot be imported: {exc}") from exc

  def model(self, label: str, script: list):
    """A scripted model: each step is text, ("call", name, args), a list of those, or a function
    of the LlmRequest returning one. Every request is recorded (normalised) under `label`."""
    fw = self
    types = self.types
    steps = list(script)

    def to_part(step):
      if isinstance(step, str):
        return types.Part(text=step)
      _, name, args = step
      return types.Part(function_call=types.FunctionCall(name=name, args=args))

    class DiffModel(self.BaseLlm):
      async def generate_content_async(self, llm_request, stream: bool = False):
        fw.requests.append({"model": label, **_request(llm_request)})
        if not steps:
          raise AssertionError(f"model {label!r} was called more often than scripted")
        step = steps.pop(0)
        if callable(step):
          step = step(llm_request)
        parts = [to_part(s) for s in step] if isinstance(step, list) else [to_part(step)]
        yield fw.LlmResponse(content=types.Content(role="model", parts=parts))

    return DiffModel(model="diff-scripted")

  def user(self, text: str):
    return self.types.Content(role="user", parts=[self.types.Part(text=text)])


# ---- normalisation -------------------------------------------------------------------------------


def _clean(value: Any) -> Any:
  """JSON-able, with `id` keys and None values dropped (both are noise across frameworks)."""
  if hasattr(value, "model_dump"):
    value = value.model_dump(mode="json", exclude_none=True)
  if isinstance(value, dict):
    return {k: _clean(v) for k, v in sorted(value.items()) if k != "id" and v is not None}
  if isinstance(value, (list, tuple)):
    return [_clean(v) for v in value]
  return value


def _part(part) -> dict:
  if part.function_call is not None:
    return {"call": part.function_call.name, "args": _clean(part.function_call.args or {})}
  if part.function_response is not None:
    return {"response": part.function_response.name, "value": _clean(part.function_response.response or {})}
  if part.text is not None:
    return {"text": part.text}
  return {"other": sorted(k for k, v in part.model_dump(exclude_none=True).items())}


def _request(llm_request) -> dict:
  si = llm_request.config.system_instruction if llm_request.config else None
  if si is not None and not isinstance(si, str):
    si = "".join(p.text or "" for p in getattr(si, "parts", None) or [])
  return {
      "system_instruction": si or "",
      "contents": [{"role": c.role, "parts": [_part(p) for p in c.parts or []]} for c in llm_request.contents],
      "tools": sorted(llm_request.tools_dict),
      "declarations": _declarations(llm_request),
  }


def _declarations(llm_request) -> dict:
  """{tool name: {description, parameters}} as the model receives them."""
  tools = (llm_request.config.tools if llm_request.config else None) or []
  return {d.name: {"description": d.description or "", "parameters": _parameters(d)}
          for tool in tools for d in getattr(tool, "function_declarations", None) or []}


def _parameters(declaration) -> Any:
  schema = _schema(declaration.parameters_json_schema or declaration.parameters)
  if schema is None or (schema["type"] == "object" and not schema.get("properties")):
    return None  # no parameters: google-adk leaves the schema out, adk_nb may send an empty object
  return schema


def _schema(schema) -> Any:
  """A schema's structure, whichever form (`types.Schema` or JSON schema) a framework built it in:
  types (lower case), descriptions, enums, properties and the required list, items, anyOf, $ref."""
  if hasattr(schema, "model_dump"):
    schema = schema.model_dump(mode="json", exclude_none=True)
  if not schema:
    return None
  out: dict[str, Any] = {"type": str(schema["type"]).lower() if schema.get("type") else None}
  for key in ("description", "$ref", "nullable"):
    if schema.get(key) is not None:
      out[key] = schema[key]
  if schema.get("enum"):
    out["enum"] = sorted(schema["enum"])
  if "properties" in schema:
    out["properties"] = {k: _schema(v) for k, v in sorted((schema.get("properties") or {}).items())}
    out["required"] = sorted(schema.get("required") or [])
  for key in ("items", "additionalProperties"):
    if isinstance(schema.get(key), dict):
      out[key] = _schema(schema[key])
  for key in ("anyOf", "any_of"):
    if schema.get(key):
      out["anyOf"] = [_schema(s) for s in schema[key]]
  return out


def _event(event) -> dict:
  out: dict[str, Any] = {"author": event.author}
  parts = event.content.parts if event.content and event.content.parts else []
  calls = [_part(p) for p in parts if p.function_call is not None]
  responses = [_part(p) for p in parts if p.function_response is not None]
  text = "".join(p.text for p in parts if p.text is not None and not getattr(p, "thought", False))
  thoughts = [p.text for p in parts if p.text is not None and getattr(p, "thought", False)]
  code = [p.executable_code.code for p in parts if getattr(p, "executable_code", None) is not None]
  results = [(p.code_execution_result.outcome.name, p.code_execution_result.output) for p in parts
             if getattr(p, "code_execution_result", None) is not None]
  if thoughts:
    out["thoughts"] = thoughts
  if code:
    out["code"] = code
  if results:
    out["code_results"] = [list(r) for r in results]
  if calls:
    out["calls"] = calls
  if responses:
    out["responses"] = responses
  if text:
    out["text"] = text
  if event.long_running_tool_ids:
    out["long_running"] = len(event.long_running_tool_ids)
  actions = event.actions
  if actions.transfer_to_agent:
    out["transfer_to_agent"] = actions.transfer_to_agent
  if actions.escalate:
    out["escalate"] = True
  if actions.skip_summarization:
    out["skip_summarization"] = True
  if actions.state_delta:
    out["state_delta"] = _clean(dict(actions.state_delta))
  if event.error_code or event.error_message:
    out["error"] = event.error_code or "error"
  if event.custom_metadata:
    out["custom_metadata_keys"] = sorted(event.custom_metadata)
  out["final"] = event.is_final_response()
  return out


# ---- scenarios -----------------------------------------------------------------------------------


def get_weather(city: str) -> dict:
  """Returns the weather in a city."""
  return {"city": city, "forecast": "sunny" if city == "Paris" else "rain"}


def delete_file(path: str) -> dict:
  """Deletes a file."""
  return {"deleted": path}


def single_text(fw: Framework):
  agent = fw.LlmAgent(name="assistant", model=fw.model("assistant", ["Hello there!"]),
                      instruction="Be brief.")
  return agent, ["hi"]


def tool_round_trip(fw: Framework):
  ToolContext = fw.tools.ToolContext

  def add(a: int, b: int, tool_context: ToolContext) -> dict:
    """Adds two numbers."""
    # One write per state scope: session, user:, and temp: (never stored).
    tool_context.state["last_sum"] = a + b
    tool_context.state["user:additions"] = tool_context.state.get("user:additions", 0) + 1
    tool_context.state["temp:scratch"] = "gone after the invocation"
    return {"sum": a + b}

  agent = fw.LlmAgent(name="calculator", instruction="Use the tool.", tools=[add],
                      model=fw.model("calculator", [("call", "add", {"a": 2, "b": 3}), "2 + 3 = 5"]))
  return agent, ["What is 2 + 3?"]


def parallel_calls(fw: Framework):
  agent = fw.LlmAgent(
      name="forecaster", instruction="Use the tool for each city.", tools=[fw.FunctionTool(get_weather)],
      model=fw.model("forecaster", [
          [("call", "get_weather", {"city": "Paris"}), ("call", "get_weather", {"city": "Tokyo"})],
          "Paris is sunny, Tokyo rainy.",
      ]))
  return agent, ["Weather in Paris and Tokyo?"]


def _echo_between_markers(name: str) -> Callable:
  # Answers with what the instruction holds between << and >>, so templating shows in the output.
  def answer(llm_request):
    si = _request(llm_request)["system_instruction"]
    inside = si.split("<<", 1)[1].split(">>", 1)[0] if "<<" in si else "(nothing)"
    return f"{name} read [{inside}]"
  return answer


def sequential_output_key(fw: Framework):
  children = [
      fw.LlmAgent(name="drafter", instruction="Write a draft about the topic.", output_key="draft",
                  model=fw.model("drafter", ["A draft about otters."])),
      fw.LlmAgent(name="reviewer", instruction="Review this draft: <<{draft}>>", output_key="review",
                  model=fw.model("reviewer", [_echo_between_markers("reviewer")])),
      fw.LlmAgent(name="editor", instruction="Apply <<{review}>> to <<{draft}>>; note <<{missing?}>>",
                  output_key="final", model=fw.model("editor", [_echo_between_markers("editor")])),
  ]
  return fw.SequentialAgent(name="pipeline", sub_agents=children), ["Otters"]


def loop_exit(fw: Framework):
  writer = fw.LlmAgent(name="writer", instruction="Improve the text.", output_key="text",
                       model=fw.model("writer", ["version 1", "version 2"]))
  critic = fw.LlmAgent(name="critic", instruction="Judge <<{text}>>; call exit_loop when good.",
                       tools=[fw.exit_loop],
                       model=fw.model("critic", ["Not yet good.", ("call", "exit_loop", {})]))
  loop = fw.LoopAgent(name="refine", sub_agents=[writer, critic], max_iterations=5)
  return loop, ["Write something."]


def transfer_sticky(fw: Framework):
  child = fw.LlmAgent(name="child", description="Answers billing questions.", instruction="Answer billing.",
                      model=fw.model("child", ["Child here: your bill is 10.", "Child again: paid."]))
  root = fw.LlmAgent(name="root", instruction="Route the user.", sub_agents=[child],
                     model=fw.model("root", [("call", "transfer_to_agent", {"agent_name": "child"})]))
  return root, ["I have a billing question.", "Is it paid?"]


def agent_tool(fw: Framework):
  AgentTool = fw.agent_tool()
  helper = fw.LlmAgent(name="helper", description="Computes answers.", instruction="Answer the request.",
                       output_key="helper_answer", model=fw.model("helper", ["42"]))
  root = fw.LlmAgent(name="root", instruction="Ask the helper.", tools=[AgentTool(agent=helper)],
                     model=fw.model("root", [("call", "helper", {"request": "the answer"}),
                                             "The helper says 42."]))
  return root, ["What is the answer?"]


def confirmation(fw: Framework):
  agent = fw.LlmAgent(name="janitor", instruction="Delete what the user asks.",
                      tools=[fw.FunctionTool(delete_file, require_confirmation=True)],
                      model=fw.model("janitor", [("call", "delete_file", {"path": "a.txt"}), "Deleted a.txt."]))
  # The second turn answers the pending adk_request_confirmation call (its id is filled in).
  return agent, ["Delete a.txt", {"confirm": True}]


def ready_made_tools(fw: Framework):
  # The declarations of ready-made tools (load_artifacts, the note a LongRunningFunctionTool adds)
  # and a long-running call answered at once.
  def start_export(table: str) -> dict:
    """Starts exporting a table."""
    return {"status": "pending", "table": table}

  agent = fw.LlmAgent(name="exporter", instruction="Export what the user asks.",
                      tools=[fw.tools.load_artifacts, fw.tools.LongRunningFunctionTool(start_export)],
                      model=fw.model("exporter", [("call", "start_export", {"table": "orders"}), "Export started."]))
  return agent, ["Export orders"]


def task_delegation(fw: Framework):
  # A task-mode sub-agent called like a tool, ending its task with finish_task.
  # output_key: the finished task's result is saved in state.
  booker = fw.LlmAgent(name="booker", description="Books flights.", mode="task", output_key="booking",
                       instruction="Book the flight.",
                       model=fw.model("booker", [("call", "finish_task", {"result": "booked Paris"})]))
  coord = fw.LlmAgent(name="coord", instruction="Delegate bookings.", sub_agents=[booker],
                      model=fw.model("coord", [("call", "booker", {"request": "book Paris"}), "Booked."]))
  return coord, ["Book me a flight to Paris"]


def root_task(fw: Framework):
  # A root task-mode agent: its finish_task result is saved under output_key.
  agent = fw.LlmAgent(name="booker", description="Books flights.", mode="task", output_key="booking",
                      instruction="Book the flight.",
                      model=fw.model("booker", [("call", "finish_task", {"result": "booked Paris"})]))
  return agent, ["Book me a flight to Paris"]


def _raise(error: Exception):
  def step(llm_request):
    raise error
  return step


def tool_error(fw: Framework):
  def lookup(key: str) -> dict:
    """Looks a key up."""
    raise KeyError(key)

  agent = fw.LlmAgent(name="clerk", instruction="Look it up.", tools=[lookup],
                      model=fw.model("clerk", [("call", "lookup", {"key": "k1"}), "never reached"]))
  return agent, ["Look up k1"]


def tool_error_handled(fw: Framework):
  def lookup(key: str) -> dict:
    """Looks a key up."""
    raise KeyError(key)

  def fallback(tool, args, tool_context, error):
    return {"fallback": type(error).__name__}

  agent = fw.LlmAgent(name="clerk", instruction="Look it up.", tools=[lookup], on_tool_error_callback=fallback,
                      model=fw.model("clerk", [("call", "lookup", {"key": "k1"}), "Not found."]))
  return agent, ["Look up k1"]


def unknown_tool(fw: Framework):
  agent = fw.LlmAgent(name="clerk", instruction="Look it up.", tools=[get_weather],
                      model=fw.model("clerk", [("call", "lookup", {"key": "k1"}), "Sorry."]))
  return agent, ["Look up k1"]


def model_error(fw: Framework):
  agent = fw.LlmAgent(name="talker", instruction="Talk.",
                      model=fw.model("talker", [_raise(ConnectionError("provider down"))]))
  return agent, ["hi"]


def missing_state_var(fw: Framework):
  agent = fw.LlmAgent(name="templated", instruction="Use <<{absent}>>.",
                      model=fw.model("templated", ["never reached"]))
  return agent, ["hi"]


def output_schema_mismatch(fw: Framework):
  from pydantic import BaseModel

  class Verdict(BaseModel):
    ok: bool

  agent = fw.LlmAgent(name="judge", instruction="Judge.", output_schema=Verdict, output_key="verdict",
                      model=fw.model("judge", ["not json"]))
  return agent, ["judge this"]


def plan_react(fw: Framework):
  planners = importlib.import_module(fw.prefix + ".planners")
  agent = fw.LlmAgent(
      name="planner", instruction="Answer about <<{topic}>>.", tools=[fw.FunctionTool(get_weather)],
      planner=planners.PlanReActPlanner(),
      model=fw.model("planner", [
          ["/*PLANNING*/1. Look up Paris.", ("call", "get_weather", {"city": "Paris"}), "dropped after the call"],
          "/*REASONING*/It is sunny./*FINAL_ANSWER*/Sunny in Paris.",
      ]))
  return agent, ["Weather in Paris?"]


def code_execution(fw: Framework):
  executors = importlib.import_module(fw.prefix + ".code_executors")
  boom = "Trying.\n```python\nprint(1 / 0)\n```"
  agent = fw.LlmAgent(
      name="coder", instruction="Compute.", code_executor=executors.UnsafeLocalCodeExecutor(timeout_seconds=60),
      model=fw.model("coder", ["Let me compute.\n```python\nprint(6 * 7)\n```", "It is 42.", boom, boom, boom]))
  return agent, ["6 x 7?", "Divide by zero."]


SCENARIOS = {
    "single_text": single_text,
    "tool_round_trip": tool_round_trip,
    "parallel_calls": parallel_calls,
    "sequential_output_key": sequential_output_key,
    "loop_exit": loop_exit,
    "transfer_sticky": transfer_sticky,
    "agent_tool": agent_tool,
    "confirmation": confirmation,
    "ready_made_tools": ready_made_tools,
    "task_delegation": task_delegation,
    "root_task": root_task,
    "tool_error": tool_error,
    "tool_error_handled": tool_error_handled,
    "unknown_tool": unknown_tool,
    "model_error": model_error,
    "missing_state_var": missing_state_var,
    "output_schema_mismatch": output_schema_mismatch,
    "plan_react": plan_react,
    "code_execution": code_execution,
}


async def run_scenario(fw: Framework, name: str) -> dict:
  """Runs one scenario and returns its normalised trace."""
  fw.requests = []
  agent, turns = SCENARIOS[name](fw)
  runner = fw.InMemoryRunner(agent=agent, app_name="diff")
  session = await runner.session_service.create_session(app_name="diff", user_id="u", state={"topic": "otters"})
  pending_id = None
  out_turns = []
  for turn in turns:
    if isinstance(turn, dict):
      if pending_id is None:
        raise AssertionError("no pending adk_request_confirmation call to answer")
      message = fw.types.Content(role="user", parts=[fw.types.Part(function_response=fw.types.FunctionResponse(
          name="adk_request_confirmation", id=pending_id, response={"confirmed": turn["confirm"]}))])
    else:
      message = fw.user(turn)
    events = []
    raised = None
    try:
      async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message):
        events.append(event)
        for call in event.get_function_calls():
          if call.name == "adk_request_confirmation":
            pending_id = call.id
    except Exception as exc:  # errors raise out of run_async (after an error event), as in ADK
      raised = type(exc).__name__
    out_turns.append({"user_message_yielded": any(e.author == "user" for e in events),
                      "events": [_event(e) for e in events], "raised": raised})
  stored = await runner.session_service.get_session(app_name="diff", user_id="u", session_id=session.id)
  return {
      "turns": out_turns,
      "requests": fw.requests,
      "stored": [_event(e) for e in stored.events],
      "state": _clean(dict(stored.state)),
  }


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--framework", choices=sorted(FRAMEWORKS), required=True)
  parser.add_argument("--scenario", action="append", choices=sorted(SCENARIOS))
  args = parser.parse_args(argv)
  logging.disable(logging.WARNING)
  warnings.simplefilter("ignore")
  fw = Framework(args.framework)
  traces = {}
  for name in args.scenario or SCENARIOS:
    try:
      traces[name] = asyncio.run(run_scenario(fw, name))
    except Skip as exc:
      traces[name] = {"skipped": str(exc)}
    except Exception as exc:  # reported, compared, never hides the other scenarios
      traces[name] = {"crashed": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
  json.dump(traces, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
  main()
