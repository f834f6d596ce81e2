"""Raised when a writer appends to a session that changed since it was read."""

from . import codes
from .adk_nb_error import AdkNbError


class StaleSessionError(AdkNbError, RuntimeError):
  """The session was modified by another writer after this copy was loaded.

  Nothing was written. Reload the session with `get_session(...)` and retry.
  """

  error_code = codes.STALE_SESSION
