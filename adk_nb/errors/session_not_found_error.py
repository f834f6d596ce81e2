"""Raised when a run names a session that does not exist."""

from __future__ import annotations

from . import codes
from .adk_nb_error import AdkNbError


class SessionNotFoundError(AdkNbError, ValueError):
  """The session asked for does not exist (and auto_create_session is off)."""

  error_code = codes.SESSION_NOT_FOUND
