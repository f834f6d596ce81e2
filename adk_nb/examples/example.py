"""`Example`: one sample exchange, a user input and the turns that answer it."""

from __future__ import annotations

from google.genai import types
from pydantic import BaseModel


class Example(BaseModel):
  """One few-shot example: what the user said and how the conversation went on."""

  input: types.Content
  """The user's message."""
  output: list[types.Content]
  """The answer: model turns (text, function calls) and user turns (function responses), in order."""


__all__ = ["Example"]
