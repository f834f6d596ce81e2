"""Retries for model calls: rate limits and server errors, with backoff, jitter and timeouts.

Shared by the Gemini and LiteLLM adapters. Each adapter turns its client library's exceptions
into a `Failure` (status code, Retry-After) and `call_with_retries` decides what to do.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import re
import time
from dataclasses import dataclass
from typing import Any, AsyncIterator, Awaitable, Callable, Optional, TypeVar, Union

from pydantic import BaseModel, ConfigDict, Field

from ..errors import codes
from ..errors.adk_nb_error import AdkNbError

T = TypeVar("T")


class RetryOptions(BaseModel):
  """How a model adapter retries rate limits (429), server errors (5xx), timeouts and dropped connections.

  The delay before retry n (n = 1, 2, ...) is drawn uniformly from
  [0, min(max_delay, initial_delay * exp_base ** (n - 1))] ("full jitter"), unless the server
  sent Retry-After, which is honoured as long as it is at most `max_delay`.
  """

  model_config = ConfigDict(extra="forbid")

  attempts: int = Field(default=4, ge=1)
  """Total attempts, the first included; 1 turns retries off."""
  initial_delay: float = Field(default=0.5, ge=0)
  """Upper bound of the first backoff, in seconds."""
  max_delay: float = Field(default=8.0, ge=0)
  """Upper bound of any single wait, in seconds (Retry-After included)."""
  exp_base: float = Field(default=2.0, ge=1)
  """Growth factor of the backoff bound between attempts."""
  jitter: bool = True
  """Draw each delay uniformly below its bound (full jitter); False waits the whole bound."""
  timeout: Optional[float] = Field(default=None, gt=0)
  """Seconds one attempt may take before it is abandoned (streams: until the first chunk)."""
  http_status_codes: tuple[int, ...] = (408, 429, 500, 502, 503, 504)
  """Status codes worth retrying."""

  @classmethod
  def coerce(cls, value: Union["RetryOptions", Any, None]) -> "RetryOptions":
    """Accepts RetryOptions, google-genai's HttpRetryOptions (as ADK does), a dict or None."""
    if value is None:
      return cls()
    if isinstance(value, cls):
      return value
    if isinstance(value, dict):
      return cls(**value)
    # google.genai.types.HttpRetryOptions shares the field names; unset fields keep our defaults.
    fields = {k: getattr(value, k, None) for k in ("attempts", "initial_delay", "max_delay", "exp_base",
                                                     "http_status_codes")}
    if getattr(value, "jitter", None) is not None:
      fields["jitter"] = bool(value.jitter)
    if fields.get("http_status_codes") is not None:
      fields["http_status_codes"] = tuple(fields["http_status_codes"])
    return cls(**{k: v for k, v in fields.items() if v is not None})

  def backoff(self, retry: int) -> float:
    """The wait before retry number `retry` (1-based), without Retry-After."""
    bound = min(self.max_delay, self.initial_delay * self.exp_base ** (retry - 1))
    return random.uniform(0, bound) if self.jitter else bound


class ModelCallError(AdkNbError, RuntimeError):
  """A model call failed: the provider answered with an error, or did not answer in time."""

  error_code = codes.MODEL_ERROR

  def __init__(self, message: str, *, model: str = "", status_code: Optional[int] = None, attempts: int = 1):
    super().__init__(message)
    self.model = model
    """The model that was called."""
    self.status_code = status_code
    """The HTTP status of the last attempt, when there was one."""
    self.attempts = attempts
    """How many attempts were made."""


class ModelAuthError(ModelCallError):
  """The provider rejected the credentials (401/403) or none were found."""


class ModelRateLimitError(ModelCallError):
  """The provider kept answering 429 (rate limit or quota) until retries ran out."""


class ModelServerError(ModelCallError):
  """The provider kept failing with 5xx (or dropped connections) until retries ran out."""


class ModelTimeoutError(ModelCallError, TimeoutError):
  """No attempt finished within RetryOptions.timeout."""


@dataclass
class Failure:
  """What an adapter learned from one failed attempt."""

  status_code: Optional[int]
  """HTTP status, or None for a connection error."""
  message: str
  """The provider's own words."""
  retry_after: Optional[float] = None
  """Seconds the server asked us to wait, when it said so."""
  transient: bool = False
  """A failure without a status that is still worth retrying (dropped connection)."""


def parse_retry_after(value: Optional[str]) -> Optional[float]:
  """Seconds from a Retry-After header (delta-seconds or an HTTP date), or None."""
  if value is None:
    return None
  value = str(value).strip()
  try:
    return max(0.0, float(value))
  except ValueError:
    pass
  try:
    when = email.utils.parsedate_to_datetime(value)
  except (TypeError, ValueError):
    return None
  return max(0.0, when.timestamp() - time.time())


def parse_duration(value: Any) -> Optional[float]:
  """Seconds from a protobuf Duration string such as '30s' or '1.5s' (Gemini's RetryInfo)."""
  if not isinstance(value, str):
    return None
  m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)s\s*", value)
  return float(m.group(1)) if m else None


# Patched by tests to record waits instead of sleeping.
_sleep: Callable[[float], Awaitable[None]] = asyncio.sleep


async def call_with_retries(
    attempt: Callable[[], Awaitable[T]],
    *,
    options: RetryOptions,
    classify: Callable[[BaseException], Optional[Failure]],
    model: str,
    auth_fix: str,
) -> T:
  """Runs `attempt` until it succeeds, retrying what `options` allows; raises a ModelCallError naming the fix.

  `classify` maps an exception of the client library to a Failure, or None for exceptions
  that are not provider failures (they propagate unchanged).
  """
  tries = 0
  while True:
    tries += 1
    try:
      if options.timeout is not None:
        return await asyncio.wait_for(attempt(), options.timeout)
      return await attempt()
    except asyncio.TimeoutError as e:
      failure = classify(e) or Failure(None, f"no answer within {options.timeout} s", transient=True)
      failure.transient = True
      error = e
    except asyncio.CancelledError:
      raise
    except Exception as e:  # noqa: BLE001 - classified below, re-raised when not ours
      failure = classify(e)
      if failure is None:
        raise
      error = e
    status = failure.status_code
    if status in (401, 403):
      raise ModelAuthError(
          f"{model!r} has no valid credentials (HTTP {status}: {failure.message}). {auth_fix}",
          model=model, status_code=status, attempts=tries,
      ) from error
    retryable = failure.transient or status in options.http_status_codes
    if not retryable:
      raise ModelCallError(
          f"{model!r} failed with HTTP {status}: {failure.message}", model=model, status_code=status,
          attempts=tries,
      ) from error
    too_long = failure.retry_after is not None and failure.retry_after > options.max_delay
    if tries >= options.attempts or too_long:
      raise _exhausted(model, failure, tries, options, too_long, error) from error
    delay = failure.retry_after if failure.retry_after is not None else options.backoff(tries)
    await _sleep(delay)


def _exhausted(model: str, failure: Failure, tries: int, options: RetryOptions, too_long: bool,
               error: BaseException) -> ModelCallError:
  status = failure.status_code
  if too_long:
    why = (f"the server asked to wait {failure.retry_after:.1f} s (Retry-After), longer than "
           f"RetryOptions.max_delay={options.max_delay}; raise max_delay to wait that long")
  else:
    why = f"gave up after {tries} attempt(s); raise RetryOptions.attempts to try longer"
  if isinstance(error, asyncio.TimeoutError) or (status is None and "timed out" in failure.message.lower()):
    return ModelTimeoutError(
        f"{model!r} did not answer within {options.timeout} s ({why}).", model=model, attempts=tries)
  if status == 429:
    return ModelRateLimitError(
        f"{model!r} is rate limited (HTTP 429: {failure.message}); {why}, or lower the request rate.",
        model=model, status_code=status, attempts=tries)
  label = f"HTTP {status}" if status is not None else "connection error"
  return ModelServerError(f"{model!r} failed ({label}: {failure.message}); {why}.",
                          model=model, status_code=status, attempts=tries)


def as_error(error: BaseException, *, classify: Callable[[BaseException], Optional[Failure]], model: str,
             auth_fix: str) -> BaseException:
  """The ModelCallError for a failure that cannot be retried (e.g. mid-stream), or `error` itself."""
  failure = classify(error)
  if failure is None:
    return error
  if failure.status_code in (401, 403):
    return ModelAuthError(f"{model!r} has no valid credentials (HTTP {failure.status_code}: "
                          f"{failure.message}). {auth_fix}", model=model, status_code=failure.status_code)
  label = f"HTTP {failure.status_code}" if failure.status_code is not None else "connection error"
  return ModelCallError(f"{model!r} failed mid-stream ({label}: {failure.message}); partial output was "
                        "already delivered, so the call was not retried.", model=model,
                        status_code=failure.status_code)


async def stream_with_retries(
    open_stream: Callable[[], Awaitable[Any]],
    *,
    options: RetryOptions,
    classify: Callable[[BaseException], Optional[Failure]],
    model: str,
    auth_fix: str,
) -> AsyncIterator[Any]:
  """Yields a provider stream's chunks; retries opening it until the first chunk arrives.

  After the first chunk nothing is retried (partials were already shown): a later failure
  becomes the ModelCallError that names the fix. The stream is closed however iteration ends.
  """

  async def first_chunk() -> tuple[AsyncIterator[Any], Any]:
    chunks = (await open_stream()).__aiter__()
    try:
      return chunks, await chunks.__anext__()
    except StopAsyncIteration:
      return chunks, _END
    except BaseException:
      close = getattr(chunks, "aclose", None)  # this attempt is abandoned: release its connection
      if close is not None:
        try:
          await close()
        except Exception:  # noqa: BLE001 - the original failure is what matters
          pass
      raise

  chunks, chunk = await call_with_retries(first_chunk, options=options, classify=classify, model=model,
                                          auth_fix=auth_fix)
  try:
    while chunk is not _END:
      yield chunk
      try:
        chunk = await chunks.__anext__()
      except StopAsyncIteration:
        chunk = _END
      except Exception as e:  # noqa: BLE001 - converted to a ModelCallError naming the fix
        raise as_error(e, classify=classify, model=model, auth_fix=auth_fix) from e
  finally:
    close = getattr(chunks, "aclose", None)
    if close is not None:
      await close()


_END = object()
