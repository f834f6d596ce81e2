"""RetryConfig: how a failing node is tried again."""

from __future__ import annotations

import random
from typing import Optional, Union

from pydantic import BaseModel, ConfigDict, field_validator


class RetryConfig(BaseModel):
  """Retry policy of one node: each failed attempt is reported as an error event, then retried.

  Every field is optional; None takes ADK's default (5 attempts, 1 s initial delay doubling
  up to 60 s, full jitter, every exception).
  """

  model_config = ConfigDict(extra="forbid")

  max_attempts: Optional[int] = None
  """Attempts in total, the first included (None: 5; 0 or 1: no retry)."""
  initial_delay: Optional[float] = None
  """Seconds before the second attempt (None: 1.0)."""
  max_delay: Optional[float] = None
  """Upper bound of a delay, in seconds (None: 60.0)."""
  backoff_factor: Optional[float] = None
  """Each delay is the previous one times this (None: 2.0)."""
  jitter: Optional[float] = None
  """Random spread, as a fraction of the delay (None: 1.0; 0.0 for exact delays)."""
  exceptions: Optional[list[Union[str, type]]] = None
  """Exception classes (or class names) worth retrying, subclasses included; None: all."""

  @field_validator("exceptions", mode="before")
  @classmethod
  def _names(cls, value):
    if value is None:
      return None
    if not isinstance(value, (list, tuple)):
      raise ValueError(f"RetryConfig.exceptions takes a list of exception class names or classes, got {value!r}.")
    names = []
    for item in value:
      if isinstance(item, type) and issubclass(item, BaseException):
        names.append(item.__name__)
      elif isinstance(item, str):
        names.append(item)
      else:
        raise ValueError(
            f"RetryConfig.exceptions takes exception class names (str) or exception classes, got "
            f"{type(item).__name__}: {item!r}; e.g. exceptions=[ValueError, 'TimeoutError'].")
    return names

  def attempts(self) -> int:
    return 5 if self.max_attempts is None else max(1, self.max_attempts)

  def retries(self, exc: BaseException) -> bool:
    """True when `exc` (or one of its base classes) is in `exceptions`."""
    if self.exceptions is None:
      return True
    names = set(self.exceptions)
    return any(k.__name__ in names for k in type(exc).__mro__)

  def delay(self, attempt: int) -> float:
    """Seconds to wait after failed attempt number `attempt` (1-based)."""
    initial = 1.0 if self.initial_delay is None else self.initial_delay
    factor = 2.0 if self.backoff_factor is None else self.backoff_factor
    cap = 60.0 if self.max_delay is None else self.max_delay
    jitter = 1.0 if self.jitter is None else self.jitter
    delay = min(cap, initial * factor ** (attempt - 1))
    if jitter:
      delay += random.uniform(-jitter * delay, jitter * delay)
    return max(0.0, delay)
