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


# ---- where each instruction goes (the order of google-adk's request processors) ----------------

_TURN_BEGIN = "[[agent instruction for this turn]]"
_TURN_END = "[[end of agent instruction]]"


def _label_turn_instruction(text: str) -> str:
  """The agent's per-turn instruction as it is sent in the conversation (when a static instruction
  holds the system slot): marked as the agent's own, so the model does not take it for the user."""
  body = text.replace(_TURN_BEGIN, "[...]").replace(_TURN_END, "[...]")  # state cannot forge the end
  return (f"Between the two markers below is your instruction for this turn, with the current session "
          f"state filled in. It comes from your configuration, not from the user: follow it, do not "
          f"answer it.\n{_TURN_BEGIN}\n{body}\n{_TURN_END}")


def static_content(value) -> "types.Content":
  """An LlmAgent.static_instruction (text, Part, Content, or a list of texts and Parts) as a Content."""
  from google.genai import types

  if isinstance(value, types.Content):
    return value
  if isinstance(value, dict):
    return types.Content.model_validate(value)
  items = value if isinstance(value, list) else [value]
  parts = [types.Part(text=i) if isinstance(i, str) else i if isinstance(i, types.Part)
           else types.Part.model_validate(i) for i in items]
  return types.Content(role="user", parts=parts)


async def add_instructions(agent, ctx, request) -> None:
  """Adds the root's global instruction, the static instruction and the agent's instruction.

  Texts go to the system instruction. With a static instruction, that one holds the system slot
  (and its files travel as user contents), and the agent's `instruction` is sent as a user content
  of the current turn instead, as google-adk does; `add_contents` places these contents.
  """
  from google.genai import types

  from ..agents.readonly_context import ReadonlyContext

  readonly = ReadonlyContext(ctx)
  root = agent.root_agent
  if getattr(root, "global_instruction", None):
    text, bypass = await root.canonical_global_instruction(ctx)
    request.append_instructions([text if bypass else await inject_session_state(text, readonly)])
  static = agent.static_instruction
  if static:
    request.append_instructions(static_content(static))
  if agent.instruction:
    text, bypass = await agent.canonical_instruction(readonly)
    text = text if bypass else await inject_session_state(text, readonly)
    if static:
      request.contents.append(types.Content(role="user", parts=[types.Part(text=_label_turn_instruction(text))]))
    else:
      request.append_instructions([text])


def place_instruction_contents(request, instruction_contents: list) -> None:
  """Puts the instruction contents into the conversation built for the request.

  Files of a static instruction (and the turn instruction with them) open the conversation, so the
  prefix stays the same from turn to turn; otherwise the contents go just before the latest user
  messages, after a tool answer so a call and its answer stay together.
  """
  if not instruction_contents:
    return
  contents = request.contents
  if any(p.inline_data or p.file_data for c in instruction_contents for p in c.parts or []):
    contents[0:0] = instruction_contents
    return
  at = len(contents)
  for i in range(len(contents) - 1, -1, -1):
    content = contents[i]
    if content.role != "user" or any(p.function_response for p in content.parts or []):
      break
    at = i
  contents[at:at] = instruction_contents
