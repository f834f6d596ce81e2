"""SkillRegistry: where a SkillToolset finds skills it was not given (google-adk's interface)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Optional

from .models import Frontmatter, Skill

__all__ = ["SkillRegistry"]


class SkillRegistry(ABC):
  """A source of skills looked up by name or searched; the toolset then offers `search_skills`."""

  @abstractmethod
  async def get_skill(self, *, name: str) -> Skill:
    """The skill called `name`; raises when there is none."""

  @abstractmethod
  async def search_skills(self, *, query: str) -> list[Frontmatter]:
    """Front matter of the skills that match `query`."""

  def search_tool_description(self) -> Optional[str]:
    """The `search_skills` tool's description for this registry (None: the default one)."""
    return None
