"""`BaseExampleProvider`: picks the few-shot examples for a user's message."""

from __future__ import annotations

import abc

from .example import Example


class BaseExampleProvider(abc.ABC):
  """Chooses examples for a query (e.g. the most similar ones from a store)."""

  @abc.abstractmethod
  def get_examples(self, query: str) -> list[Example]:
    """The examples to show the model for the user's message `query`."""


__all__ = ["BaseExampleProvider"]
