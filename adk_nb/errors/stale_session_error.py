"""Raised when a writer appends to a session that changed since it was read, or that another turn holds."""

from . import codes
from .adk_nb_error import AdkNbError


class StaleSessionError(AdkNbError, RuntimeError):
  """The session was modified by another writer after this copy was loaded.

  Nothing was written. Reload the session with `get_session(...)` and retry.
  """

  error_code = codes.STALE_SESSION


class SessionBusyError(StaleSessionError):
  """Another turn (`Runner.run_async`) is running on the session: this turn was refused before it
  ran anything, and nothing was written. Send the message again once that turn has ended or paused.
  The notebook raises it too, before it starts a run on a session one of its runs still holds.

  A StaleSessionError (same code, 409 on the api_server), so code that retries on a stale
  session retries on this too.
  """
