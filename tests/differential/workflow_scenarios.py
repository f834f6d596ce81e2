"""Graph Workflow scenarios run on google-adk or adk_nb; prints a normalised trace as JSON.

  python tests/differential/workflow_scenarios.py --framework adk_nb

Used by tests/workflow/test_differential_workflow.py, which compares the two frameworks' traces.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import logging
import os
import re
import sys
import traceback
import warnings
from typing import Any

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Fw:
  def __init__(self, name: str):
    prefix = "adk_nb" if name == "adk_nb" else "google.adk"
    if name == "adk_nb" and REPO_ROOT not in sys.path:
      sys.path.insert(0, REPO_ROOT)
    wf = importlib.import_module(prefix + ".workflow")
    self.Workflow, self.JoinNode, self.DEFAULT_ROUTE = wf.Workflow, wf.JoinNode, wf.DEFAULT_ROUTE
    self.node = wf.node
    self.RequestInput = importlib.import_module(prefix + ".events").RequestInput
    self.LlmAgent = importlib.import_module(prefix + ".agents").LlmAgent
    models = importlib.import_module(prefix + ".models")
    self.BaseLlm, self.LlmResponse = models.BaseLlm, models.LlmResponse
    self.InMemoryRunner = importlib.import_module(prefix + ".runners").InMemoryRunner
    self.types = importlib.import_module("google.genai.types")
    self.requests: list[list[str]] = []

  def model(self, replies: list[str]):
    fw, types, steps = self, self.types, list(replies)

    class DiffModel(self.BaseLlm):
      async def generate_content_async(self, llm_request, stream: bool = False):
        fw.requests.append([_content_line(c, p) for c in llm_request.contents for p in c.parts or []
                            if p.text or p.function_call or p.function_response])
        step = steps.pop(0)
        part = (types.Part(function_call=types.FunctionCall(name=step[0], args=step[1])) if isinstance(step, tuple)
                else types.Part(text=step))
        yield fw.LlmResponse(content=types.Content(role="model", parts=[part]))

    return DiffModel(model="diff-scripted")


def _content_line(content, part) -> str:
  if part.function_call:
    return f"{content.role}: call {part.function_call.name} {json.dumps(part.function_call.args, sort_keys=True)}"
  if part.function_response:
    return f"{content.role}: answer {part.function_response.name} {json.dumps(part.function_response.response, sort_keys=True)}"
  return f"{content.role}: {part.text}"


def _value(value: Any) -> Any:
  if hasattr(value, "model_dump"):
    return value.model_dump(mode="json", exclude_none=True)
  return json.loads(json.dumps(value, default=str))


def _event(event) -> dict:
  out: dict[str, Any] = {"author": event.author}
  info = getattr(event, "node_info", None)
  if info is not None and info.path:
    out["path"] = re.sub(r"@adk-[0-9a-f-]+", "@<call id>", info.path)
  if event.output is not None:
    out["output"] = _value(event.output)
  if event.actions.route is not None:
    out["route"] = _value(event.actions.route)
  if event.actions.state_delta:
    out["state_delta"] = _value(dict(event.actions.state_delta))
  if event.actions.agent_state is not None:
    out["checkpoint"] = True
  parts = event.content.parts if event.content and event.content.parts else []
  calls = [p.function_call.name for p in parts if p.function_call is not None]
  if calls:
    out["calls"] = calls
  text = "".join(p.text for p in parts if p.text)
  if text:
    out["text"] = text
  if event.long_running_tool_ids:
    out["long_running"] = len(event.long_running_tool_ids)
  if event.error_code:
    out["error"] = event.error_code
  if event.branch:
    out["branch"] = re.sub(r"@adk-[0-9a-f-]+", "@<call id>", event.branch)  # call ids are random
  return out


def _fn(name, body):
  body.__name__ = name
  return body


def chain(fw):
  def shout(node_input: str):
    return node_input.upper()

  def exclaim(node_input: str):
    return node_input + "!"

  return fw.Workflow(name="wf", edges=[("START", shout, exclaim)]), ["hello"]


def routes(fw):
  def classify(ctx, node_input: str):
    ctx.route = "long" if len(node_input) > 5 else "short"
    return node_input

  long = _fn("long", lambda node_input: "long path")
  other = _fn("other", lambda node_input: "default path")
  wf = fw.Workflow(name="wf", edges=[("START", classify, {"long": long, fw.DEFAULT_ROUTE: other})])
  return wf, ["a long message", "hi"]


def fan_out_join(fw):
  split = _fn("split", lambda node_input: 2)
  a = _fn("a", lambda node_input: node_input + 1)
  b = _fn("b", lambda node_input: node_input * 10)
  merge = _fn("merge", lambda node_input: sorted(node_input.items()))
  wf = fw.Workflow(name="wf", edges=[("START", split, (a, b), fw.JoinNode(name="join"), merge)])
  return wf, ["go"]


def loop(fw):
  def step(node_input):
    return node_input + 1 if isinstance(node_input, int) else 1

  def check(ctx, node_input):
    ctx.route = "again" if node_input < 3 else "done"
    return node_input

  done = _fn("done", lambda node_input: f"counted to {node_input}")
  return fw.Workflow(name="wf", edges=[("START", step, check), (check, {"again": step, "done": done})]), ["go"]


def state(fw):
  def remember(ctx, node_input: str):
    ctx.state["word"] = node_input
    return None

  def use(word: str):
    return f"remembered {word}"

  return fw.Workflow(name="wf", edges=[("START", remember, use)]), ["otter"]


def agent_node(fw):
  prepare = _fn("prepare", lambda node_input: "Text: " + "".join(p.text for p in node_input.parts))
  agent = fw.LlmAgent(name="summarize", model=fw.model(["A summary."]), instruction="Summarize.")

  def wrap(node_input: str):
    return f"<{node_input}>"

  return fw.Workflow(name="wf", edges=[("START", prepare, agent, wrap)]), ["an article"]


def nested(fw):
  inc = _fn("inc", lambda node_input: node_input + 1)
  seed = _fn("seed", lambda node_input: 1)
  inner = fw.Workflow(name="inner", edges=[("START", inc)])
  return fw.Workflow(name="outer", edges=[("START", seed, inner, _fn("last", lambda node_input: node_input * 100))]), ["go"]


def human_input(fw):
  draft = _fn("draft", lambda node_input: "draft")

  async def approve(node_input):
    yield fw.RequestInput(interrupt_id="approve-1", message="Publish?", payload={"text": node_input})

  def publish(node_input: dict):
    return f"published {node_input['ok']}"

  return fw.Workflow(name="wf", edges=[("START", draft, approve, publish)]), ["post", {"answer": "approve-1"}]


def dynamic_pause(fw):
  double = _fn("double", lambda node_input: node_input * 2)

  async def ask(node_input):
    yield fw.RequestInput(interrupt_id="q1", message=f"Use {node_input}?")

  async def orch(ctx, node_input):
    a = await ctx.run_node(double, node_input=3)
    b = await ctx.run_node(ask, node_input=a)
    c = await ctx.run_node(double, node_input=10)
    return [a, b, c]

  orch = fw.node(orch, rerun_on_resume=True)  # google-adk requires it for ctx.run_node
  after = _fn("after", lambda node_input: f"after {node_input}")
  return fw.Workflow(name="wf", edges=[("START", orch, after)]), ["go", {"answer": "q1"}]


def node_confirmation(fw):
  def refund(node_input: str):
    return f"refunded for {node_input}"

  refund = fw.node(refund, require_confirmation=True)
  after = _fn("after", lambda node_input: f"after {node_input}")
  return fw.Workflow(name="wf", edges=[("START", refund, after)]), [
      "order 7", {"answer": "wf_tool_confirmation:wf@1/refund@1", "response": {"confirmed": True}}]


def single_turn_agent(fw):
  helper = fw.LlmAgent(name="helper", description="Summarizes.", mode="single_turn",
                       model=fw.model(["short summary"]))
  coord = fw.LlmAgent(name="coord", model=fw.model([("helper", {"request": "summarize X"}), "Here: short summary"]),
                      sub_agents=[helper])
  return coord, ["summarize please"]


def task_agent(fw):
  booker = fw.LlmAgent(name="booker", description="Books flights.", mode="task",
                       model=fw.model(["Where to?", ("finish_task", {"result": "booked Paris"})]))
  coord = fw.LlmAgent(name="coord", model=fw.model([("booker", {"request": "book a flight"}), "All set."]),
                      sub_agents=[booker])
  return coord, ["I need a flight", "Paris"]


def failing_nested_node(fw):
  seed = _fn("seed", lambda node_input: 1)

  def boom(node_input):
    raise ValueError("kaboom")

  inner = fw.Workflow(name="inner", edges=[("START", boom)])
  return fw.Workflow(name="wf", edges=[("START", seed, inner)]), ["go"]


def failing_agent_node(fw):
  def lookup(city: str) -> str:
    raise ValueError(f"no such city: {city}")

  helper = fw.LlmAgent(name="helper", model=fw.model([("lookup", {"city": "Atlantis"})]), tools=[lookup])
  return fw.Workflow(name="wf", edges=[("START", helper)]), ["go"]


SCENARIOS = {f.__name__: f for f in (chain, routes, fan_out_join, loop, state, agent_node, nested, human_input,
                                      dynamic_pause, node_confirmation, single_turn_agent, task_agent,
                                      failing_nested_node, failing_agent_node)}


async def run_scenario(fw: Fw, name: str) -> dict:
  fw.requests = []
  workflow, turns = SCENARIOS[name](fw)
  runner = fw.InMemoryRunner(agent=workflow, app_name="diff")
  session = await runner.session_service.create_session(app_name="diff", user_id="u")
  out = []
  for turn in turns:
    if isinstance(turn, dict):
      t = fw.types
      message = t.Content(role="user", parts=[t.Part(function_response=t.FunctionResponse(
          id=turn["answer"], name="adk_request_input", response=turn.get("response", {"ok": True})))])
    else:
      message = fw.types.Content(role="user", parts=[fw.types.Part(text=turn)])
    events = []
    try:
      async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message):
        events.append(_event(event))
    except Exception as exc:  # what leaves run_async is part of the trace
      events.append({"raised": f"{type(exc).__name__}: {exc}"})
    out.append(events)
  stored = await runner.session_service.get_session(app_name="diff", user_id="u", session_id=session.id)
  return {"turns": out, "requests": fw.requests, "state": _value(dict(stored.state)),
          "invocations": len({e.invocation_id for e in stored.events})}


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--framework", choices=["adk_nb", "google-adk"], required=True)
  args = parser.parse_args(argv)
  logging.disable(logging.WARNING)
  warnings.simplefilter("ignore")
  fw = Fw(args.framework)
  traces = {}
  for name in SCENARIOS:
    try:
      traces[name] = asyncio.run(run_scenario(fw, name))
    except Exception as exc:
      traces[name] = {"crashed": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
  json.dump(traces, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
  main()
