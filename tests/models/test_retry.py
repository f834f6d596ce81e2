"""RetryOptions and the retry loop shared by the adapters (no sleeping: waits are recorded)."""

import asyncio
import email.utils
import time

import pytest

from adk_nb.models._retry import (
    Failure, ModelAuthError, ModelCallError, ModelRateLimitError, ModelServerError, ModelTimeoutError,
    RetryOptions, call_with_retries, parse_duration, parse_retry_after)


class Status(Exception):
  def __init__(self, status, retry_after=None):
    super().__init__(f"status {status}")
    self.status, self.retry_after = status, retry_after


def classify(error):
  if isinstance(error, Status):
    return Failure(error.status, str(error), error.retry_after)
  return None


def failing(*outcomes):
  """An attempt that raises the given errors in turn, then returns 'ok'."""
  calls = []

  async def attempt():
    calls.append(1)
    if len(calls) <= len(outcomes):
      raise outcomes[len(calls) - 1]
    return "ok"

  return attempt, calls


async def retry(attempt, **options):
  return await call_with_retries(attempt, options=RetryOptions(**options), classify=classify, model="m",
                                 auth_fix="Set M_API_KEY.")


async def test_backoff_is_jittered_below_an_exponential_bound(retry_waits):
  attempt, calls = failing(Status(500), Status(502), Status(503))
  assert await retry(attempt, attempts=4, initial_delay=1, max_delay=3) == "ok"
  assert len(calls) == 4
  bounds = [1, 2, 3]
  assert all(0 <= w <= b for w, b in zip(retry_waits, bounds)) and len(retry_waits) == 3


async def test_without_jitter_the_bound_is_waited(retry_waits):
  attempt, _ = failing(Status(429), Status(429), Status(429))
  await retry(attempt, attempts=4, initial_delay=0.5, max_delay=1.5, jitter=False)
  assert retry_waits == [0.5, 1.0, 1.5]


async def test_retry_after_longer_than_max_delay_stops_with_the_fix(retry_waits):
  attempt, calls = failing(Status(429, retry_after=60))
  with pytest.raises(ModelRateLimitError, match="Retry-After.*raise max_delay"):
    await retry(attempt, max_delay=8)
  assert len(calls) == 1 and retry_waits == []


async def test_auth_and_client_errors_are_not_retried(retry_waits):
  attempt, _ = failing(Status(401))
  with pytest.raises(ModelAuthError, match="Set M_API_KEY"):
    await retry(attempt)
  attempt, _ = failing(Status(404))
  with pytest.raises(ModelCallError, match="HTTP 404") as info:
    await retry(attempt)
  assert type(info.value) is ModelCallError and retry_waits == []


async def test_server_errors_exhausted(retry_waits):
  attempt, calls = failing(*[Status(500)] * 5)
  with pytest.raises(ModelServerError, match="gave up after 2 attempt"):
    await retry(attempt, attempts=2, initial_delay=0)
  assert len(calls) == 2


async def test_timeouts_are_retried_then_reported(retry_waits):
  never = asyncio.Event()
  calls = []

  async def attempt():
    calls.append(1)
    await never.wait()

  with pytest.raises(ModelTimeoutError, match="within 0.01 s"):
    await retry(attempt, attempts=2, timeout=0.01, initial_delay=0)
  assert len(calls) == 2


async def test_other_exceptions_pass_through_untouched():
  async def attempt():
    raise KeyError("bug")

  with pytest.raises(KeyError):
    await retry(attempt)


def test_retry_after_forms():
  assert parse_retry_after("2") == 2.0
  assert parse_retry_after(None) is None
  assert parse_retry_after("soon") is None
  future = email.utils.formatdate(time.time() + 30, usegmt=True)
  assert 25 <= parse_retry_after(future) <= 31
  assert parse_duration("1.5s") == 1.5 and parse_duration("x") is None


def test_options_are_bounded_and_accept_adk_options():
  from google.genai import types

  with pytest.raises(ValueError):
    RetryOptions(attempts=0)
  opts = RetryOptions.coerce(types.HttpRetryOptions(attempts=2, http_status_codes=[429]))
  assert opts.attempts == 2 and opts.http_status_codes == (429,)
  assert RetryOptions.coerce({"attempts": 1}).attempts == 1
