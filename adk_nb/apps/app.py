"""App: an agent tree plus the app-wide settings and plugins that go with it."""

from __future__ import annotations

import re
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..agents.base_agent import BaseAgent
from ..agents.context_cache_config import ContextCacheConfig
from ..plugins.base_plugin import BasePlugin
from .base_events_summarizer import BaseEventsSummarizer


class ResumabilityConfig(BaseModel):
  """Whether the app records its agents' progress as events, as google-adk's resumable apps do."""

  is_resumable: bool = False
  """True: workflow agents commit `agent_state` checkpoints and every agent an `end_of_agent`
  event, and `InvocationContext.is_resumable` is true. adk_nb resumes a paused invocation in
  place either way."""


class EventsCompactionConfig(BaseModel):
  """When older events of a session are replaced by a summary in what the model is sent.

  Sliding window (`compaction_interval` and `overlap_size`, set together): after every
  `compaction_interval` new invocations, the summarizer writes one summary of them plus the
  `overlap_size` invocations before them (and the previous summary). Token threshold
  (`token_threshold` and `event_retention_size`, set together): after an invocation whose last
  prompt reached `token_threshold` tokens, everything but the last `event_retention_size` events is
  summarized. The session keeps every event; only requests change. See `adk_nb.apps.compaction`.
  """

  model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

  summarizer: Optional[BaseEventsSummarizer] = None
  """Writes the summaries (default: LlmEventSummarizer on the root agent's model)."""
  compaction_interval: Optional[int] = Field(default=None, gt=0)
  """How many new invocations trigger a sliding-window summary."""
  overlap_size: Optional[int] = Field(default=None, ge=0)
  """How many invocations before the new ones each summary covers again."""
  token_threshold: Optional[int] = Field(default=None, gt=0)
  """Prompt tokens (last observed, or estimated at 4 characters per token) that trigger a summary."""
  event_retention_size: Optional[int] = Field(default=None, ge=0)
  """How many recent events a token-threshold summary leaves as they are."""

  @model_validator(mode="after")
  def _one_complete_trigger(self) -> "EventsCompactionConfig":
    if (self.compaction_interval is None) != (self.overlap_size is None):
      raise ValueError("Set compaction_interval and overlap_size together, e.g. "
                       "EventsCompactionConfig(compaction_interval=5, overlap_size=1).")
    if (self.token_threshold is None) != (self.event_retention_size is None):
      raise ValueError("Set token_threshold and event_retention_size together, e.g. "
                       "EventsCompactionConfig(token_threshold=50_000, event_retention_size=10).")
    if self.compaction_interval is None and self.token_threshold is None:
      raise ValueError("EventsCompactionConfig needs a trigger: compaction_interval + overlap_size, "
                       "or token_threshold + event_retention_size.")
    return self


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
  context_cache_config: Optional[ContextCacheConfig] = None
  """Gemini context caching for every agent of the app (see ContextCacheConfig)."""
  events_compaction_config: Optional[EventsCompactionConfig] = None
  """Summarize older events in long sessions (what the model is sent stays bounded)."""

  @model_validator(mode="after")
  def _compaction_has_a_summarizer(self) -> "App":
    config = self.events_compaction_config
    if config is not None and config.summarizer is None and not hasattr(self.root_agent, "canonical_model"):
      raise ValueError(f"events_compaction_config has no summarizer and the root agent {self.root_agent.name!r} has "
                       "no model to write summaries with: pass EventsCompactionConfig(..., summarizer="
                       "LlmEventSummarizer(llm=...)).")
    return self

  @field_validator("name")
  @classmethod
  def _valid_name(cls, value: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value or ""):
      raise ValueError(f"Invalid app name {value!r}: use a Python identifier, e.g. 'my_app'.")
    if value == "user":
      raise ValueError("The app name 'user' is reserved (it names the end user's events); pick another name.")
    return value
