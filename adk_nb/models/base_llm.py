"""The interface every model adapter implements."""

from __future__ import annotations

from typing import TYPE_CHECKING, AsyncGenerator

from pydantic import BaseModel, ConfigDict

from .llm_request import LlmRequest
from .llm_response import LlmResponse

if TYPE_CHECKING:
  pass


class BaseLlm(BaseModel):
  """A model adapter: turns an LlmRequest into one or more LlmResponses."""

  model_config = ConfigDict(arbitrary_types_allowed=True)

  model: str
  """The model name, for example 'gemini-2.5-flash'."""

  @property
  def pairs_calls_by_id(self) -> bool:
    """True when the provider matches tool results to calls by id (OpenAI-style), so the call
    ids adk_nb made up must reach it; otherwise the flow leaves them out, as google-adk does."""
    return False

  @classmethod
  def supported_models(cls) -> list[str]:
    """Regular expressions of model names this class serves (used by LLMRegistry)."""
    return []

  async def generate_content_async(
      self, llm_request: LlmRequest, stream: bool = False
  ) -> AsyncGenerator[LlmResponse, None]:
    """Yields one response, or with `stream=True` partial chunks then one aggregated response."""
    raise NotImplementedError(f"{type(self).__name__} does not implement generate_content_async")
    yield  # pragma: no cover

  def connect(self, llm_request: LlmRequest):
    raise NotImplementedError(f"Live (bidirectional) connections are not supported by {type(self).__name__}.")
