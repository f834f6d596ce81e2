"""Detail on demand: what a step's "details" panel shows (request as sent, raw response, event JSON, traceback).

Built only when a person asks for one step, so the live view never carries these payloads;
long texts are cut to `limit` characters unless the whole is asked for.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Optional

from ..events.event import Event
from .step import Step

DETAIL_LIMIT = 20_000
"""Characters of each section sent by default; the rest on request ("show all")."""


def _json(value: Any) -> str:
  return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def request_sections(request: Any) -> list[tuple[str, str]]:
  """The LlmRequest as sent, in the parts people look for: system instruction, contents, tools, config."""
  config = getattr(request, "config", None)
  sections: list[tuple[str, str]] = []
  sections.append(("system instruction", getattr(request, "system_instruction_text", "") or "(none)"))
  contents = [c.model_dump(mode="json", exclude_none=True) for c in getattr(request, "contents", None) or []]
  sections.append((f"contents ({len(contents)})", _json(contents)))
  tools = []
  for tool in (getattr(config, "tools", None) or []):
    for declaration in getattr(tool, "function_declarations", None) or []:
      tools.append(declaration.model_dump(mode="json", exclude_none=True))
  sections.append((f"tool declarations ({len(tools)})", _json(tools) if tools else "(none)"))
  if config is not None:
    rest = config.model_dump(mode="json", exclude_none=True, exclude={"tools", "system_instruction"})
    sections.append(("config", _json(rest) if rest else "(defaults)"))
  return sections


def step_details(step: Step, events: Iterable[Event], *, limit: Optional[int] = DETAIL_LIMIT) -> dict[str, Any]:
  """{'id', 'title', 'sections': [{'title', 'text', 'cut'}]} for one step; `limit=None` sends everything."""
  sections: list[tuple[str, str]] = []
  if step.traceback:
    sections.append(("traceback", step.traceback))
  if step.kind == "model_call" and step.request is not None:
    sections += [(f"request: {title}", text) for title, text in request_sections(step.request)]
  elif step.kind == "model_call":
    sections.append(("request", "Not kept: only model calls made while this view was live keep their request."))
  if step.sources or step.queries:
    lines = [f"{title} <{uri}>" for title, uri in step.sources or []]
    lines += [f"searched: {query}" for query in step.queries or []]
    sections.append(("grounding (sources, searches)", "\n".join(lines)))
  event = next((e for e in events if e.id == step.event_id), None) if step.event_id else None
  if event is not None:
    title = "raw response (event)" if step.kind == "model_call" else "event"
    sections.append((title, _json(event.model_dump(mode="json", exclude_none=True, by_alias=True))))
  if step.kind == "tool_call" and step.result is not None:
    sections.append(("result", _json(step.result)))
  if not sections:
    sections.append(("step", _json({"kind": step.kind, "title": step.title, "status": step.status,
                                    "t0": step.t0, "t1": step.t1, "branch": step.branch})))
  out = []
  for title, text in sections:
    cut = limit is not None and len(text) > limit
    out.append({"title": title, "text": text[:limit] if cut else text, "cut": len(text) if cut else 0})
  return {"id": step.id, "title": step.title, "sections": out}
