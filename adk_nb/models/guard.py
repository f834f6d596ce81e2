"""A switch that forbids calls to real model providers (tests turn it on)."""

from __future__ import annotations

import contextlib
import os
from typing import Iterator, Optional
from urllib.parse import urlparse
from ..errors.adk_nb_error import AdkNbError

_ENV = "ADK_NB_BLOCK_REAL_MODELS"
_blocked: Optional[bool] = None


class RealModelCallBlocked(AdkNbError, RuntimeError):
  """A real model call was attempted while real calls are blocked."""


def block_real_models(blocked: bool = True) -> None:
  """Makes every call to a non-loopback model endpoint fail (or allows them again)."""
  global _blocked
  _blocked = blocked


def real_models_blocked() -> bool:
  """True when real model calls are forbidden (by `block_real_models` or the env variable)."""
  if _blocked is not None:
    return _blocked
  return os.environ.get(_ENV, "").lower() in ("1", "true", "yes")


@contextlib.contextmanager
def real_models_allowed() -> Iterator[None]:
  """Temporarily lifts the block."""
  global _blocked
  previous = _blocked
  _blocked = False
  try:
    yield
  finally:
    _blocked = previous


def check_real_call(model: str, base_url: Optional[str]) -> None:
  """Raises RealModelCallBlocked unless calls are allowed or `base_url` is on loopback."""
  if not real_models_blocked():
    return
  host = urlparse(base_url).hostname if base_url else None
  if host in ("127.0.0.1", "localhost", "::1"):
    return
  raise RealModelCallBlocked(
      f"A real call to model {model!r} was blocked ({_ENV} is set or block_real_models() was "
      "called). Use adk_nb.models.ScriptedModel in tests, or point the adapter's base_url at a "
      "loopback server."
  )
