"""Per-run settings: streaming and limits."""

from __future__ import annotations

import logging
import sys
from enum import Enum
from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, field_validator

logger = logging.getLogger(__name__)


class StreamingMode(Enum):
  """How model answers are delivered: whole, or as partial chunks (SSE)."""

  NONE = None
  SSE = "sse"
  BIDI = "bidi"


class ToolThreadPoolConfig(BaseModel):
  """The worker threads that run synchronous tool functions (per event loop).

  adk_nb runs a sync tool function on these threads unless it is declared
  `FunctionTool(func, run_on_loop=True)` (google-adk only when
  `RunConfig.tool_thread_pool_config` is set): see `adk_nb.tools._threads`.
  """

  model_config = ConfigDict(extra="forbid")

  max_workers: int = Field(default=4, ge=1)
  """Sync tool calls that run at once; more wait for a free thread."""


class RunConfig(BaseModel):
  """Settings for one run: streaming mode and the cap on model calls."""

  model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

  streaming_mode: StreamingMode = StreamingMode.NONE
  """SSE streams text as partial events, then one final event."""
  max_llm_calls: int = 500
  """Model calls allowed in one invocation; 0 or less means no limit."""
  max_transfers: int = 20
  """Agent transfers allowed in one invocation (guards against ping-pong); beyond ADK."""
  save_input_blobs_as_artifacts: bool = False
  """Store inline data in the user message as artifacts."""
  support_cfc: bool = False
  speech_config: Optional[Any] = None
  response_modalities: Optional[list[str]] = None
  custom_metadata: Optional[dict[str, Any]] = None
  """Free-form JSON attached to the run."""
  output_audio_transcription: Optional[types.AudioTranscriptionConfig] = Field(
      default_factory=types.AudioTranscriptionConfig)
  """Live runs only (absent in adk_nb): transcribe the model's speech. Kept for google-adk compatibility."""
  input_audio_transcription: Optional[types.AudioTranscriptionConfig] = Field(
      default_factory=types.AudioTranscriptionConfig)
  """Live runs only (absent in adk_nb): transcribe the user's speech. Kept for google-adk compatibility."""
  tool_thread_pool_config: Optional[ToolThreadPoolConfig] = None
  """Threads for sync tool functions; None uses 4 (they run on threads either way, unlike google-adk)."""

  @field_validator("max_llm_calls")
  @classmethod
  def validate_max_llm_calls(cls, value: int) -> int:
    """Refuses sys.maxsize (use 0 for no limit) and warns when the run will have no limit."""
    if value == sys.maxsize:
      raise ValueError(f"max_llm_calls should be less than {sys.maxsize}; use 0 (or less) for no limit.")
    if value <= 0:
      logger.warning(f"RunConfig(max_llm_calls={value}): no limit on model calls; a looping agent will run "
                     "until stopped.")
    return value
