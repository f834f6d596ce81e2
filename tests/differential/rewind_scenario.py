"""Runs one rewind scenario on google-adk or adk_nb and prints a normalised JSON trace.

  python tests/differential/rewind_scenario.py --framework adk_nb|google-adk

Three turns that each call a tool writing session and `user:` state and saving session and `user:`
artifacts; a rewind before the second turn; a fourth turn; a rewind before the first turn; a
rewind naming no invocation. The trace holds every stored event (author, text, calls, the state
and artifact deltas, the rewind target as the index of the invocation it names), what the model
was sent on each call, the final state, what each artifact loads as, and the error of the bad
rewind (its class name and module path under the package). tests/sessions/test_rewind_differential.py
compares the two traces. No state is given at create_session: there adk_nb deliberately differs
(it keeps that state; google-adk 2.13 clears it).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import logging
import os
import sys
import warnings

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PREFIX = {"google-adk": "google.adk", "adk_nb": "adk_nb"}


def trace(framework: str) -> dict:
  prefix = PREFIX[framework]
  if framework == "adk_nb" and REPO_ROOT not in sys.path:
    sys.path.insert(0, REPO_ROOT)
  agents = importlib.import_module(prefix + ".agents")
  models = importlib.import_module(prefix + ".models")
  runners = importlib.import_module(prefix + ".runners")
  ToolContext = importlib.import_module(prefix + ".tools.tool_context").ToolContext
  from google.genai import types

  requests: list[list[str]] = []
  script = []
  for word in ("one", "two", "three", "four"):
    script += [types.Part(function_call=types.FunctionCall(name="note", args={"text": word})),
               types.Part(text=f"noted {word}")]

  class Scripted(models.BaseLlm):
    async def generate_content_async(self, llm_request, stream: bool = False):
      requests.append([p.text or (p.function_call and f"call {p.function_call.name}") or
                       (p.function_response and f"answer {p.function_response.name}") or "?"
                       for c in llm_request.contents for p in c.parts or []])
      yield models.LlmResponse(content=types.Content(role="model", parts=[script.pop(0)]))

  async def note(text: str, tool_context: ToolContext) -> dict:
    """Keeps a note."""
    tool_context.state["note"] = text
    tool_context.state[f"seen_{text}"] = True
    tool_context.state["user:last"] = text
    await tool_context.save_artifact("report.txt", types.Part(text=f"report {text}"))
    await tool_context.save_artifact(f"only_{text}.txt", types.Part(text=text))
    await tool_context.save_artifact("user:profile.txt", types.Part(text=f"profile {text}"))
    return {"kept": text}

  agent = agents.LlmAgent(name="scribe", model=Scripted(model="scripted"), instruction="Keep notes.",
                          tools=[note])
  runner = runners.InMemoryRunner(agent=agent, app_name="notes")

  async def scenario() -> dict:
    svc = runner.session_service
    await svc.create_session(app_name="notes", user_id="u", session_id="s")

    async def turn(text: str) -> None:
      message = types.Content(role="user", parts=[types.Part(text=text)])
      async for _ in runner.run_async(user_id="u", session_id="s", new_message=message):
        pass

    async def invocations() -> list[str]:
      session = await svc.get_session(app_name="notes", user_id="u", session_id="s")
      seen: list[str] = []
      for e in session.events:
        if e.invocation_id not in seen:
          seen.append(e.invocation_id)
      return seen

    for word in ("one", "two", "three"):
      await turn(f"note {word}")
    await runner.rewind_async(user_id="u", session_id="s", rewind_before_invocation_id=(await invocations())[1])
    await turn("note four")
    await runner.rewind_async(user_id="u", session_id="s", rewind_before_invocation_id=(await invocations())[0])
    error = None
    try:
      await runner.rewind_async(user_id="u", session_id="s", rewind_before_invocation_id="e-unknown")
    except Exception as exc:  # noqa: BLE001 - the class is what the trace compares
      error = {"class": type(exc).__name__, "module": type(exc).__module__.removeprefix(prefix),
               "is_value_error": isinstance(exc, ValueError)}
    order = await invocations()
    session = await svc.get_session(app_name="notes", user_id="u", session_id="s")
    events = []
    for e in session.events:
      parts = e.content.parts if e.content and e.content.parts else []
      target = e.actions.rewind_before_invocation_id
      events.append({
          "author": e.author, "invocation": order.index(e.invocation_id),
          "text": [p.text for p in parts if p.text],
          "calls": [p.function_call.name for p in parts if p.function_call],
          "answers": [p.function_response.response for p in parts if p.function_response],
          "state_delta": dict(e.actions.state_delta or {}),
          "artifact_delta": dict(e.actions.artifact_delta or {}),
          "rewind_before": order.index(target) if target in order else target,
      })
    artifacts = {}
    for name in ("report.txt", "only_one.txt", "only_two.txt", "only_three.txt", "only_four.txt",
                 "user:profile.txt"):
      part = await runner.artifact_service.load_artifact(app_name="notes", user_id="u", session_id="s",
                                                         filename=name)
      artifacts[name] = None if part is None else part.text
    return {"events": events, "requests": requests, "state": dict(session.state), "artifacts": artifacts,
            "error": error}

  return asyncio.run(scenario())


def main() -> None:
  parser = argparse.ArgumentParser()
  parser.add_argument("--framework", choices=sorted(PREFIX), required=True)
  args = parser.parse_args()
  warnings.simplefilter("ignore")
  logging.disable(logging.WARNING)
  print(json.dumps(trace(args.framework), sort_keys=True))


if __name__ == "__main__":
  main()
