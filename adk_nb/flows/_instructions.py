"""Fills `{key}` placeholders in instructions from session state and artifacts."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
  from ..agents.readonly_context import ReadonlyContext

# `${HOME}` (shell) and `\{x}` (escaped) are left alone, as in google-adk.
_PLACEHOLDER = re.compile(r"(?<![$\\{]){+[^{}]*}+")
_PREFIXES = ("app:", "user:", "temp:")


def _is_state_name(name: str) -> bool:
  if ":" in name:
    prefix, _, rest = name.partition(":")
    return prefix + ":" in _PREFIXES and rest.isidentifier()
  return name.isidentifier()


async def inject_session_state(template: str, readonly_context: "ReadonlyContext") -> str:
  """Replaces `{key}` with state values, `{key?}` with '' when missing, `{artifact.name}` with text.

  Braces that do not name a state key (JSON examples, `{not a key}`) are left as written.
  A missing required key is a KeyError that says how to fix it.
  """
  if "{" not in template:
    return template
  ctx = readonly_context._invocation_context
  state = ctx.session.state
  out: list[str] = []
  last = 0
  for match in _PLACEHOLDER.finditer(template):
    out.append(template[last:match.start()])
    last = match.end()
    raw = match.group()
    name = raw.lstrip("{").rstrip("}").strip()
    optional = name.endswith("?")
    if optional:
      name = name[:-1]
    if name.startswith("artifact."):
      filename = name[len("artifact."):]
      if ctx.artifact_service is None:
        raise ValueError(
            f"The instruction uses {{{name}}} but no artifact service is configured; pass "
            "artifact_service=... to the Runner."
        )
      part = await ctx.artifact_service.load_artifact(
          app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id, filename=filename
      )
      if part is None:
        if optional:
          continue
        raise KeyError(f"Artifact {filename!r} used in the instruction was not found.")
      out.append(part.text or "")
      continue
    if not _is_state_name(name):
      out.append(raw)
      continue
    if name in state:
      value = state[name]
      out.append("" if value is None else str(value))
    elif optional:
      continue
    else:
      raise KeyError(
          f"Context variable not found: `{name}`. Set state[{name!r}] before agent "
          f"{ctx.agent.name!r} runs (e.g. via output_key or state_delta), or write {{{name}?}} "
          "in the instruction to make it optional."
      )
  out.append(template[last:])
  return "".join(out)
