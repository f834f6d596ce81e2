"""Raised when something looked up by id does not exist."""


class NotFoundError(Exception):
  """The object asked for does not exist."""

  def __init__(self, message: str = "The resource was not found."):
    self.message = message
    super().__init__(message)
