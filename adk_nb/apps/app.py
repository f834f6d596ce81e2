"""App: an agent tree plus the app-wide settings and plugins that go with it."""

from __future__ import annotations

import re
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..agents.base_agent import BaseAgent
from ..plugins.base_plugin import BasePlugin


class ResumabilityConfig(BaseModel):
  """Whether the app records its agents' progress as events, as google-adk's resumable apps do."""

  is_resumable: bool = False
  """True: workflow agents commit `agent_state` checkpoints and every agent an `end_of_agent`
  event, and `InvocationContext.is_resumable` is true. adk_nb resumes a paused invocation in
  place either way."""


class App(BaseModel):
  """An application: a named root agent with its plugins and settings."""

  model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

  name: str
  """The app name sessions are stored under."""
  root_agent: BaseAgent
  """The agent every turn starts from."""
  plugins: list[BasePlugin] = Field(default_factory=list)
  """Plugins applied to every run of the app."""
  resumability_config: Optional[ResumabilityConfig] = None
  context_cache_config: Optional[Any] = None
  events_compaction_config: Optional[Any] = None

  @field_validator("name")
  @classmethod
  def _valid_name(cls, value: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value or ""):
      raise ValueError(f"Invalid app name {value!r}: use a Python identifier, e.g. 'my_app'.")
    if value == "user":
      raise ValueError("The app name 'user' is reserved (it names the end user's events); pick another name.")
    return value
