"""Raised when a writer appends to a session that changed since it was read."""


class StaleSessionError(RuntimeError):
  """The session was modified by another writer after this copy was loaded.

  Nothing was written. Reload the session with `get_session(...)` and retry.
  """
