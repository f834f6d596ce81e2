"""Raised when a rewind or fork names an invocation the session does not hold (google-adk's path)."""

from .not_found_error import NotFoundError


class InvocationNotFoundError(NotFoundError, ValueError):
  """No event of the session belongs to the invocation asked for; nothing was written.

  Also a ValueError, as in google-adk, for callers that caught what rewinds used to raise.
  """

  def __init__(self, message: str = "Invocation ID not found.") -> None:
    super().__init__(message)
