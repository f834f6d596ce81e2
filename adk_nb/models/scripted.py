"""ScriptedModel: an offline model that answers from a script. For tests, tutorials and demos."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncGenerator, Callable, Iterable, Optional, Union

from google.genai import types

from .base_llm import BaseLlm
from .llm_request import LlmRequest
from .llm_response import LlmResponse
from ..errors.adk_nb_error import AdkNbError
from ..utils.trusted import trusted

Reply = Union[str, types.FunctionCall, types.Part, types.Content, LlmResponse, BaseException, list]
"""What a script step may be: text, a function call, a list of those (one answer with
several parts, e.g. parallel calls), a Content, a full LlmResponse, or an exception to raise."""


class ScriptExhausted(AdkNbError, AssertionError):
  """The model was called more times than its script has answers."""


def call(name: str, args: Optional[dict[str, Any]] = None, /, **kwargs: Any) -> types.FunctionCall:
  """A function call for a script: `call("get_weather", city="Paris")`."""
  return types.FunctionCall(name=name, args={**(args or {}), **kwargs})


def to_llm_response(reply: Reply) -> LlmResponse:
  """Normalises a script step into an LlmResponse."""
  if isinstance(reply, LlmResponse):
    return reply
  if isinstance(reply, types.Content):
    return LlmResponse(content=reply)
  items = reply if isinstance(reply, list) else [reply]
  parts = []
  for item in items:  # parts of text or a validated call need no validation of their own
    if isinstance(item, str):
      parts.append(trusted(types.Part, text=item))
    elif isinstance(item, types.FunctionCall):
      parts.append(trusted(types.Part, function_call=item))
    elif isinstance(item, types.Part):
      parts.append(item)
    elif isinstance(item, dict):
      parts.append(types.Part(text=json.dumps(item)))
    else:
      raise TypeError(
          f"A ScriptedModel step cannot be {type(item).__name__}; use text, call(name, **args), "
          "a types.Part, a types.Content, an LlmResponse or an exception."
      )
  return trusted(LlmResponse, content=trusted(types.Content, role="model", parts=parts))


class ScriptedModel(BaseLlm):
  """A model that answers from a script, offline, and records what it was sent.

  `ScriptedModel(["Hi!"])` answers once with text; `ScriptedModel([call("add", a=1, b=2),
  "3"])` calls a tool then answers; `ScriptedModel(lambda request: ...)` answers with a
  function of the request. Nothing it says comes from a real model.

  Args:
    script: a list of steps (see `Reply`) answered in order, or a function of the
      LlmRequest returning a step.
    latency: seconds to wait (asyncio.sleep) before each answer.
    chunk_size: when the caller streams, text answers arrive as partial chunks of this
      many characters, followed by one aggregated final answer.
    record: keep every request in `requests` (turn off for long benchmarks).
  """

  model: str = "scripted"
  latency: float = 0.0
  chunk_size: int = 8
  record: bool = True

  def __init__(self, script: Union[Iterable[Reply], Callable[[LlmRequest], Reply], None] = None, **kwargs: Any):
    super().__init__(**kwargs)
    # Plain instance attributes (not pydantic PrivateAttrs, whose reads are slow).
    is_fn = callable(script) and not isinstance(script, (list, tuple))
    object.__setattr__(self, "_fn", script if is_fn else None)
    object.__setattr__(self, "_script", None if is_fn else list(script or []))
    object.__setattr__(self, "_next", 0)
    object.__setattr__(self, "_requests", [])

  @property
  def requests(self) -> list[LlmRequest]:
    """Every request received, oldest first."""
    return self._requests

  @property
  def remaining(self) -> int:
    """Script steps not yet answered (0 for a function script)."""
    return 0 if self._script is None else len(self._script) - self._next

  def assert_complete(self) -> None:
    """Fails when some scripted answers were never asked for."""
    if self.remaining:
      raise AssertionError(
          f"ScriptedModel has {self.remaining} unused step(s); next: {self._script[self._next]!r}"
      )

  def _next_reply(self, request: LlmRequest) -> Reply:
    if self._fn is not None:
      return self._fn(request)
    if self._next >= len(self._script):
      last = request.contents[-1] if request.contents else None
      raise ScriptExhausted(
          f"ScriptedModel was called {self._next + 1} times but its script has "
          f"{len(self._script)} step(s). Last content sent: {last!r}. Add a step to the script."
      )
    reply = self._script[self._next]
    object.__setattr__(self, "_next", self._next + 1)
    return reply

  async def generate_content_async(
      self, llm_request: LlmRequest, stream: bool = False
  ) -> AsyncGenerator[LlmResponse, None]:
    if self.record:
      self._requests.append(llm_request)
    reply = self._next_reply(llm_request)
    if self.latency:
      await asyncio.sleep(self.latency)
    if isinstance(reply, BaseException):
      raise reply
    response = to_llm_response(reply)
    content = response.content
    text_only = (
        content is not None and content.parts and all(p.text is not None for p in content.parts)
    )
    if stream and text_only:
      text = "".join(p.text for p in content.parts)
      size = max(1, self.chunk_size)
      for i in range(0, len(text), size):
        # Built unvalidated: the values are ours and of the right types (a chunk is ~3x cheaper).
        chunk = trusted(types.Content, role="model", parts=[trusted(types.Part, text=text[i:i + size])])
        yield trusted(LlmResponse, content=chunk, partial=True)
        await asyncio.sleep(0)
    yield response
