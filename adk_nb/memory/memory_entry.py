"""One remembered piece of a past conversation."""

from __future__ import annotations

from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, Field


class MemoryEntry(BaseModel):
  """A memory: content from a past session, with who said it and when."""

  content: types.Content
  """What was said."""
  custom_metadata: dict[str, Any] = Field(default_factory=dict)
  """Free-form metadata kept with the memory."""
  id: Optional[str] = None
  """The memory's id (the event id for memories taken from sessions)."""
  author: Optional[str] = None
  """Who said it: 'user' or an agent name."""
  timestamp: Optional[str] = None
  """When it was said, ISO 8601; shown to the model as is."""
