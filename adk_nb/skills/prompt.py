"""The skill catalog as the model reads it: `<available_skills>` XML (google-adk's format)."""

from __future__ import annotations

import html
from typing import Sequence, Union

from ..utils.lazy import lazy_exports
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


# google-adk still answers this old spelling (with a DeprecationWarning); its home is tools.skill_toolset.
__getattr__ = lazy_exports(__name__, {"DEFAULT_SKILL_SYSTEM_INSTRUCTION": "adk_nb.tools.skill_toolset"})
