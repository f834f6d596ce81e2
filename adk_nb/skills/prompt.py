"""The skill catalog as the model reads it: `<available_skills>` XML (google-adk's format)."""

from __future__ import annotations

import html
from typing import Any, Sequence, Union

from . import models

__all__ = ["format_skills_as_xml"]


def format_skills_as_xml(skills: Sequence[Union[models.Frontmatter, models.Skill]]) -> str:
  """Each skill's name and description (HTML-escaped) inside `<available_skills>`, one tag per line."""
  lines = ["<available_skills>"]
  for skill in skills:
    lines += ["<skill>", "<name>", html.escape(skill.name), "</name>", "<description>",
              html.escape(skill.description), "</description>", "</skill>"]
  lines.append("</available_skills>")
  return "\n".join(lines)


def __getattr__(name: str) -> Any:
  if name == "DEFAULT_SKILL_SYSTEM_INSTRUCTION":
    import warnings

    from ..tools import skill_toolset
    warnings.warn("Importing DEFAULT_SKILL_SYSTEM_INSTRUCTION from adk_nb.skills.prompt is deprecated (as in "
                  "google-adk); import it from adk_nb.tools.skill_toolset.", DeprecationWarning, stacklevel=2)
    return skill_toolset.DEFAULT_SKILL_SYSTEM_INSTRUCTION
  raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
