"""What a skill is: its front matter (L1), its instructions (L2) and its resources (L3).

A skill is a folder holding `SKILL.md` (YAML front matter between two `---` lines, then markdown
instructions) and optional `references/`, `assets/` and `scripts/` folders. These models are
google-adk 2.13's `google.adk.skills.models`, field for field, with its validation rules.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

__all__ = ["Frontmatter", "Resources", "Script", "Skill"]

_KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_KEBAB_OR_SNAKE = re.compile(r"^([a-z0-9]+(-[a-z0-9]+)*|[a-z0-9]+(_[a-z0-9]+)*)$")

_MAX_NAME = 64
_MAX_DESCRIPTION = 1024
_MAX_COMPATIBILITY = 500


def _opted_in(feature: str) -> bool:
  """Whether an experimental google-adk feature that ships switched off (SNAKE_CASE_SKILL_NAME,
  SKILL_LIFECYCLE) was switched on: `override_feature_enabled(name, True)` or `ADK_ENABLE_<NAME>=1`."""
  from .. import features
  return features.is_feature_enabled(features.FeatureName(feature))


class Frontmatter(BaseModel):
  """A skill's front matter: what the model sees when it chooses a skill.

  Unknown keys are kept (google-adk allows extra fields); `allowed-tools` and `allowed_tools` are
  the same field. In `metadata`, `adk_additional_tools` (a list of tool names) are offered to the
  model once the skill is loaded, and `adk_inject_state: true` fills `{key}` placeholders of the
  instructions from session state when the skill is loaded.
  """

  model_config = ConfigDict(extra="allow", populate_by_name=True)

  name: str
  """Lowercase kebab-case, at most 64 characters; must equal the skill folder's name."""
  description: str
  """What the skill does and when to use it (1-1024 characters)."""
  license: Optional[str] = None
  """The skill's license."""
  compatibility: Optional[str] = None
  """What the skill needs to run (at most 500 characters)."""
  allowed_tools: Optional[str] = Field(default=None, alias="allowed-tools",
                                       serialization_alias="allowed-tools")
  """Space-separated tools the skill may use (experimental in the Agent Skills spec)."""
  metadata: dict[str, Any] = {}
  """Client-specific keys (`adk_additional_tools`, `adk_inject_state`, ...)."""

  @field_validator("name")
  @classmethod
  def _check_name(cls, value: str) -> str:
    value = unicodedata.normalize("NFKC", value)
    if len(value) > _MAX_NAME:
      raise ValueError(f"name must be at most {_MAX_NAME} characters")
    if _opted_in("SNAKE_CASE_SKILL_NAME"):
      if not _KEBAB_OR_SNAKE.match(value):
        raise ValueError(
            "name must be lowercase kebab-case (a-z, 0-9, hyphens) or snake_case (a-z, 0-9, underscores), "
            "with no leading, trailing, or consecutive delimiters. Mixing hyphens and underscores is not "
            f"allowed. Got {value!r}.")
    elif not _KEBAB.match(value):
      raise ValueError(
          "name must be lowercase kebab-case (a-z, 0-9, hyphens), with no leading, trailing, or consecutive "
          f"delimiters. Got {value!r}; e.g. 'weather-skill'.")
    return value

  @field_validator("description")
  @classmethod
  def _check_description(cls, value: str) -> str:
    if not value:
      raise ValueError("description must not be empty: say what the skill does and when to use it")
    if len(value) > _MAX_DESCRIPTION:
      raise ValueError(f"description must be at most {_MAX_DESCRIPTION} characters. Description length: "
                       f"{len(value)}")
    return value

  @field_validator("compatibility")
  @classmethod
  def _check_compatibility(cls, value: Optional[str]) -> Optional[str]:
    if value is not None and len(value) > _MAX_COMPATIBILITY:
      raise ValueError(f"compatibility must be at most {_MAX_COMPATIBILITY} characters")
    return value

  @field_validator("metadata")
  @classmethod
  def _check_metadata(cls, value: dict[str, Any]) -> dict[str, Any]:
    if "adk_additional_tools" in value and not isinstance(value["adk_additional_tools"], list):
      raise ValueError("adk_additional_tools must be a list of strings (tool names), e.g. [get_timezone]")
    if "adk_inject_state" in value and not isinstance(value["adk_inject_state"], bool):
      raise ValueError("adk_inject_state must be a bool (true or false)")
    return value


class Script(BaseModel):
  """The source of one script of a skill."""

  src: str
  """The script's text."""

  def __str__(self) -> str:
    return self.src


class Resources(BaseModel):
  """A skill's L3 content, keyed by path relative to its folder (`references/a.md` is `a.md`)."""

  references: dict[str, Union[str, bytes]] = {}
  """Further instructions and documentation (text, or bytes for binary files)."""
  assets: dict[str, Union[str, bytes]] = {}
  """Templates, schemas, examples, images."""
  scripts: dict[str, Script] = {}
  """Scripts the model may run through `run_skill_script`."""

  def get_reference(self, reference_id: str) -> Optional[Union[str, bytes]]:
    """The content of a reference, or None."""
    return self.references.get(reference_id)

  def get_asset(self, asset_id: str) -> Optional[Union[str, bytes]]:
    """The content of an asset, or None."""
    return self.assets.get(asset_id)

  def get_script(self, script_id: str) -> Optional[Script]:
    """A script, or None."""
    return self.scripts.get(script_id)

  def list_references(self) -> list[str]:
    """The reference paths."""
    return list(self.references)

  def list_assets(self) -> list[str]:
    """The asset paths."""
    return list(self.assets)

  def list_scripts(self) -> list[str]:
    """The script paths."""
    return list(self.scripts)


class Skill(BaseModel):
  """A whole skill: front matter, the SKILL.md body as instructions, and its resources."""

  frontmatter: Frontmatter
  """The parsed front matter."""
  instructions: str
  """The markdown body of SKILL.md, given to the model by `load_skill`."""
  resources: Resources = Resources()
  """references/, assets/ and scripts/."""

  _uri: Optional[str] = PrivateAttr(default=None)

  @property
  def name(self) -> str:
    """The skill's name (from its front matter)."""
    return self.frontmatter.name

  @property
  def description(self) -> str:
    """The skill's description (from its front matter)."""
    return self.frontmatter.description
