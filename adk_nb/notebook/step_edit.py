""""fork here" and "edit & continue" on a step of the tree: what the editor shows and what an edit becomes.

A model step's answer reads as JSON: a string for a text answer, `{"call": name, "args": {...}}` for a
function call, or a list of those for several parts. A tool step's result reads as the JSON object the
tool returned. `replacement(...)` turns the edited text back into the Content `LiveRun.edit` continues
from; bad JSON raises ValueError naming the fix, and then nothing is sent.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

from ..inspect.text import to_json_text

if TYPE_CHECKING:
  from ..events.event import Event
  from .live_run import LiveRun

EDITABLE_KINDS = ("model_call", "tool_call")
"""The kinds of step a person can fork at or edit and continue from."""

WHAT = {"model_call": "the model's answer", "tool_call": "the tool's result"}


def actions_for(run: "LiveRun", step: Any) -> Optional[dict[str, Any]]:
  """What the details panel offers for `step`: {'what', 'value' (JSON text to edit)}, or None when it offers nothing
  (another kind of step, a run still going, or a step with nothing recorded yet to continue from)."""
  if step.kind not in EDITABLE_KINDS or run.running:
    return None
  event = event_of(run, step)
  if event is None:
    return None
  value = _tool_result(event, step.tool) if step.kind == "tool_call" else _answer(event)
  if value is None:
    return None
  return {"what": WHAT[step.kind], "value": to_json_text(value, indent=2)}


def replacement(run: "LiveRun", step: Any, text: str) -> types.Content:
  """The Content that takes the step's event's place, from the editor's text."""
  try:
    value = json.loads(text)
  except ValueError as exc:
    raise ValueError(f"{WHAT.get(step.kind, 'The edit')} is not valid JSON ({exc}); strings need quotes, e.g. "
                     "\"Booked.\". Fix it and click again: nothing was sent.") from None
  event = event_of(run, step)
  if event is None:
    raise ValueError(f"The step {step.title!r} has nothing recorded to continue from yet; nothing was sent.")
  if step.kind == "tool_call":
    return _with_tool_result(event, step.tool, value)
  return types.Content(role="model", parts=[_part(item) for item in (value if isinstance(value, list) else [value])])


def event_of(run: "LiveRun", step: Any) -> Optional["Event"]:
  """The event `run.edit(step, ...)` replaces: a model step's response, or the event answering a tool step's call."""
  events = run.events
  index = next((i for i, e in enumerate(events) if e.id == step.event_id), None)
  if index is None:
    return None
  if step.kind != "tool_call":
    return events[index]
  calls = {c.id for c in events[index].get_function_calls() if c.name == step.tool}
  return next((e for e in events[index + 1:] if any(r.id in calls for r in e.get_function_responses())), None)


def _tool_result(event: "Event", tool: str) -> Any:
  for response in event.get_function_responses():
    if response.name == tool:
      return response.response
  return None


def _with_tool_result(event: "Event", tool: str, value: Any) -> types.Content:
  """The result event's content with the first response of `tool` replaced (the others as they were)."""
  if not isinstance(value, dict):
    raise ValueError(f"The tool's result must be a JSON object, e.g. {{\"result\": {json.dumps(value)}}}; "
                     "nothing was sent.")
  parts, done = [], False
  for part in (event.content.parts if event.content else None) or []:
    response = part.function_response
    if response is not None and response.name == tool and not done:
      part = types.Part(function_response=response.model_copy(update={"response": value}))
      done = True
    parts.append(part)
  return types.Content(role=event.content.role if event.content else "user", parts=parts)


def _answer(event: "Event") -> Any:
  """A model event's answer as JSON: a string, {"call": ..., "args": ...}, or a list of those."""
  items = []
  for part in (event.content.parts if event.content else None) or []:
    if part.function_call is not None:
      items.append({"call": part.function_call.name, "args": dict(part.function_call.args or {})})
    elif part.text is not None and not part.thought:
      items.append(part.text)
  if not items:
    return None
  return items[0] if len(items) == 1 else items


def _part(item: Any) -> types.Part:
  if isinstance(item, str):
    return types.Part(text=item)
  if isinstance(item, dict) and isinstance(item.get("call"), str) and set(item) <= {"call", "args"}:
    args = item.get("args") or {}
    if not isinstance(args, dict):
      raise ValueError(f"The arguments of the call {item['call']!r} must be a JSON object; nothing was sent.")
    return types.Part(function_call=types.FunctionCall(name=item["call"], args=args))
  raise ValueError("Each part of the model's answer is a string (text) or {\"call\": name, \"args\": {...}} "
                   f"(a function call), not {json.dumps(item)[:80]}; nothing was sent.")
