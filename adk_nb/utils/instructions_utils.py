"""google-adk's `utils.instructions_utils`: fill `{key}` placeholders of a text from session state.

The same substitution an agent's instruction gets (`{key}`, `{key?}` for optional, `{app:key}`,
`{artifact.name}`); tools that carry their own instructions (a skill's SKILL.md body under
`adk_inject_state`) use it.
"""

from __future__ import annotations

from typing import Awaitable, Callable, Union

from ..agents.readonly_context import ReadonlyContext

__all__ = ["InstructionProvider", "ReadonlyContext", "inject_session_state"]

InstructionProvider = Callable[[ReadonlyContext], Union[str, Awaitable[str]]]
"""An instruction computed per model call from the context (what `LlmAgent(instruction=...)` also takes)."""


async def inject_session_state(template: str, readonly_context: "ReadonlyContext") -> str:
  """`template` with each `{key}` replaced by its state value; a missing required key is a KeyError naming it."""
  from ..flows import inject_session_state as inject  # the flows layer owns the rules; imported when used

  return await inject(template, readonly_context)
