"""Output truncation shared by the environment tools."""

from __future__ import annotations

from ._constants import MAX_OUTPUT_CHARS


def truncate(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
  """`text` cut to `limit` characters, followed by a line saying how long it was."""
  if len(text) <= limit:
    return text
  return f"{text[:limit]}\n[cut here: {limit} of {len(text)} characters shown]"
