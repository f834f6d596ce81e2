"""adk_nb behaves like google-adk on the same scripted scenarios (differential test).

tests/differential/scenarios.py runs every scenario once on google-adk (its own interpreter:
$ADK_NB_DIFF_ADK_PYTHON, else bench/.venv-adk) and once on adk_nb,
each in a subprocess, and prints a normalised trace: the events each turn yielded, what every
model call was sent, the stored events and the final state. This file compares the two traces.

Known, deliberate differences are normalised below, each with a comment saying why; the prose
adk_nb words itself is one table, OWN_WORDING. Where adk_nb is simply different from ADK without a
documented reason, the test expects ADK's behaviour and is marked xfail(strict=True) with the reason
(GAPS), so fixing adk_nb turns it into a failure to clean up.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from adk_nb.tools.tool_confirmation import NEEDS_CONFIRMATION_RESPONSE, REJECTED_RESPONSE
from tests.support import adk_python as control_python

REPO_ROOT = Path(__file__).resolve().parent.parent
SCENARIOS_PY = REPO_ROOT / "tests" / "differential" / "scenarios.py"
SCENARIOS = ["single_text", "tool_round_trip", "parallel_calls", "sequential_output_key", "loop_exit",
             "transfer_sticky", "agent_tool", "confirmation", "tool_error", "tool_error_handled", "unknown_tool",
             "model_error", "missing_state_var", "output_schema_mismatch", "plan_react", "code_execution",
             "ready_made_tools", "task_delegation", "root_task"]


@pytest.fixture(scope="module")
def traces() -> dict[str, dict]:
  """Both frameworks' traces, {'google-adk': {...}, 'adk_nb': {...}}, run side by side."""
  adk_python = control_python()
  if adk_python is None:
    pytest.skip("google-adk is not importable from $ADK_NB_DIFF_ADK_PYTHON or bench/.venv-adk; "
                "run `python bench/run.py` once to create bench/.venv-adk")
  env = {**os.environ, "PYTHONWARNINGS": "ignore"}
  procs = {
      name: subprocess.Popen([python, str(SCENARIOS_PY), "--framework", name], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT, env=env)
      for name, python in (("google-adk", adk_python), ("adk_nb", sys.executable))
  }
  out = {}
  for name, proc in procs.items():
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, f"{name} scenarios failed:\n{stderr[-4000:]}"
    out[name] = json.loads(stdout)
  return out


def _pair(traces: dict, scenario: str) -> tuple[dict, dict]:
  adk, ours = traces["google-adk"][scenario], traces["adk_nb"][scenario]
  assert "crashed" not in adk, f"google-adk crashed in {scenario}: {adk.get('traceback')}"
  if "skipped" in ours:
    pytest.skip(ours["skipped"])
  assert "crashed" not in ours, f"adk_nb crashed in {scenario}:\n{ours['traceback']}"
  return adk, ours


# ---- normalisation of deliberate differences ----------------------------------------------------

# Prose the model or an API client reads is worded by each framework: adk_nb writes its own rather
# than copy google-adk's (the project's rule). These are the places, by tool name and field; all
# else there must still match: tool and argument names, schemas, the user's own docstring in front
# of an appended note. google-adk's interface strings that adk_nb keeps as they are (the paused and
# rejected confirmation answers, 'Task completed.') are not listed: they must match.
OWN_WORDING = {
    "exit_loop": ["description"],
    "transfer_to_agent": ["description", "agent_name"],  # google-adk describes agent_name in the description
    "load_artifacts": ["description"],
    "load_mcp_resource": ["description"],
    "finish_task": ["description", "parameters"],  # google-adk describes the parameters with an internal docstring
}
APPENDED_NOTES = (
    "\n\nNOTE: ",  # LongRunningFunctionTool's note after the function's docstring
    "\nIMPORTANT: ",  # a task sub-agent's delegation note after its description (and its `request` described)
)
OWN = "<worded by each framework>"
INTERFACE_ERRORS = {NEEDS_CONFIRMATION_RESPONSE["error"], REJECTED_RESPONSE["error"]}


def _own_wording(trace: dict) -> dict:
  """A request or event with the texts of OWN_WORDING and APPENDED_NOTES, and the default hint of a
  confirmation request, replaced by OWN. A schema's description that only one side may give (one
  listed above) is dropped on both."""
  trace = json.loads(json.dumps(trace))
  for name, declaration in (trace.get("declarations") or {}).items():
    params = declaration["parameters"] or {}
    fields = OWN_WORDING.get(name, [])
    if "description" in fields:
      declaration["description"] = OWN
    for note in APPENDED_NOTES:
      head, found, _ = declaration["description"].partition(note)
      if found:
        declaration["description"] = head + note.strip() + " " + OWN
        if note == "\nIMPORTANT: ":
          (params.get("properties") or {}).get("request", {}).pop("description", None)
    if "parameters" in fields:
      params.pop("description", None)
    for arg in fields:
      (params.get("properties") or {}).get(arg, {}).pop("description", None)
  for call in trace.get("calls") or []:
    confirmation = call["args"].get("toolConfirmation") if call["call"] == "adk_request_confirmation" else None
    if confirmation and "hint" in confirmation:
      confirmation["hint"] = OWN
  return trace



def _events(events: list[dict]) -> list[dict]:
  out = []
  for event in events:
    # adk_nb commits a marker before an approved tool runs (its at-most-once guarantee on a
    # retried resume, adk_nb/flows/_resume.py); ADK has no such event.
    if event.get("custom_metadata_keys") == ["adk_nb_tool_started"] and set(event) <= {
        "author", "custom_metadata_keys", "final"}:
      continue
    event = dict(event)
    event.pop("custom_metadata_keys", None)
    if "state_delta" in event:
      event["state_delta"] = _without_code_records(event["state_delta"])
      if not event["state_delta"]:
        del event["state_delta"]
    if "code_results" in event:
      event["code_results"] = [[outcome, _traceback_tail(output)] for outcome, output in event["code_results"]]
    out.append(_own_wording(_normalise_responses(event)))
  return out


def _without_code_records(state: dict) -> dict:
  # adk_nb commits a code executor's error counts and run records with the result event, so every
  # store keeps them; google-adk writes them only into its in-memory copy of the session state.
  return {k: v for k, v in state.items() if k not in ("_code_executor_error_counts", "_code_execution_results")}


def _traceback_tail(output: str) -> str:
  # A failed run's traceback names the wrapper's file for the code ('<code>' / '<model code>'):
  # what must match is the error line.
  return output.strip().splitlines()[-1] if output and "Traceback" in output else output


def _normalise_error_wording(responses: list[dict]) -> list[dict]:
  # An error the model reads ({'error': '...'} for an unknown tool or bad arguments) is worded by
  # each framework; what must match is that the call was answered with an error, and nothing else.
  # The confirmation answers are interface strings both frameworks spell alike: compared as they are.
  return [{**r, "value": {"error": OWN}}
          if set(r["value"]) == {"error"} and r["response"] != "transfer_to_agent"
          and r["value"]["error"] not in INTERFACE_ERRORS else r for r in responses]


def _normalise_responses(event: dict) -> dict:
  responses = event.get("responses")
  if responses:
    event["responses"] = _normalise_error_wording(responses)
  return event


_CONTEXT_ITEM = re.compile(r"\[(\w+)\] (said|called tool `(\w+)`|`(\w+)` tool returned result)")


def _context_items(text: str) -> list[str]:
  items = []
  for author, kind, called, returned in _CONTEXT_ITEM.findall(text):
    items.append(f"{author} said" if kind == "said" else f"{author} called {called}" if called
                 else f"{author} got {returned} result")
  return items


def _content(content: dict) -> dict:
  texts = [p["text"] for p in content["parts"] if "text" in p]
  others = [p for p in content["parts"] if "text" not in p]
  if texts and texts[0].startswith("For context"):
    # Other agents' turns, re-presented as user context. The wording is each framework's own
    # (ADK 2.13 quotes them between <<<BEGIN_QUOTED_AGENT_CONTENT>>> markers, adk_nb does not);
    # what must match is whose turns are shown, of which kind, in which order.
    parts = [{"context": _context_items("\n".join(texts))}]
  else:
    parts = [{"text": t} for t in texts]
  parts += [_normalise_responses({"responses": [p]})["responses"][0] if "response" in p else p
            for p in others]
  return {"role": content["role"], "parts": parts}


def _system_instruction(si: str) -> dict:
  # Wording and paragraph order are each framework's own (ADK puts the agent's instruction first
  # and its identity line after it; adk_nb the reverse; the transfer instructions are rephrased).
  # What must match: the agent's own templated instruction (scenarios put the templated parts
  # between << and >>), the identity line, and which agents are offered for transfer.
  return {
      "templated": re.findall(r"<<(.*?)>>", si),
      "identity": re.findall(r'(?:Your internal name is|You are the agent) "(\w+)"', si),  # google-adk's, adk_nb's
      "transfer_targets": re.findall(r"Agent name: (\w+)", si),
  }


def _requests(requests: list[dict]) -> list[dict]:
  return [_own_wording({"model": r["model"], "tools": r["tools"], "declarations": r["declarations"],
                        "system_instruction": _system_instruction(r["system_instruction"]),
                        "contents": [_content(c) for c in r["contents"]]}) for r in requests]


# ---- differences not yet resolved ------------------------------------------------------------------

# Found when the scenario was added; expected to fail until adk_nb matches or the difference is
# documented as deliberate and normalised above. {scenario: {comparison: what differs}}.
GAPS = {
    "task_delegation": {
        # Kept on purpose: google-adk 2.13 offers a task sub-agent transfer_to_agent (its coordinator
        # and chat peers, flows/llm_flows/extensions/_agent_transfer.py _get_transfer_targets, with no
        # transfer instruction), but a call to it transfers nowhere: the task wrapper
        # (workflow/_llm_agent_wrapper.py) stops that run, the task stays open, its agent is asked
        # again without the call in its history, and the coordinator's next request shows the task's
        # input and the user's reply. adk_nb does not offer a tool whose call does nothing.
        "requests": "google-adk offers a task sub-agent transfer_to_agent (back to its coordinator) beside "
                    "finish_task, though calling it does not transfer; adk_nb offers finish_task only",
    },
}


def _scenarios(comparison: str) -> list:
  return [pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=GAPS[s][comparison]))
          if comparison in GAPS.get(s, {}) else s for s in SCENARIOS]


# ---- the comparisons -----------------------------------------------------------------------------

@pytest.mark.parametrize("scenario", _scenarios("events"))
def test_yielded_events_match(traces, scenario):
  adk, ours = _pair(traces, scenario)
  assert [_events(t["events"]) for t in ours["turns"]] == [_events(t["events"]) for t in adk["turns"]]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_raised_exceptions_match(traces, scenario):
  # A run that fails yields its error event (error_code = the class name) and then raises.
  adk, ours = _pair(traces, scenario)
  assert [t["raised"] for t in ours["turns"]] == [t["raised"] for t in adk["turns"]]


@pytest.mark.parametrize("scenario", _scenarios("stored"))
def test_stored_events_match(traces, scenario):
  adk, ours = _pair(traces, scenario)
  assert _events(ours["stored"]) == _events(adk["stored"])


@pytest.mark.parametrize("scenario", _scenarios("requests"))
def test_model_requests_match(traces, scenario):
  adk, ours = _pair(traces, scenario)
  assert _requests(ours["requests"]) == _requests(adk["requests"])


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_final_state_matches(traces, scenario):
  adk, ours = _pair(traces, scenario)
  assert _without_code_records(ours["state"]) == adk["state"]


def test_run_async_does_not_yield_the_user_message(traces):
  # Also covered by test_yielded_events_match; this one names the contract when it breaks.
  ours = traces["adk_nb"]["single_text"]
  assert not any(turn["user_message_yielded"] for turn in traces["google-adk"]["single_text"]["turns"])
  assert not any(turn["user_message_yielded"] for turn in ours["turns"])


def test_yielded_events_carry_no_temp_keys(traces):
  # temp: writes are readable for the rest of the invocation but absent from the committed event.
  for framework in ("google-adk", "adk_nb"):
    deltas = [e.get("state_delta", {}) for t in traces[framework]["tool_round_trip"]["turns"] for e in t["events"]]
    assert {"last_sum": 5, "user:additions": 1} in deltas, framework
    assert not any(k.startswith("temp:") for d in deltas for k in d), framework
