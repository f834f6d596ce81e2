"""Raised when creating something whose id is taken."""


class AlreadyExistsError(Exception):
  """An object with this id already exists (for example a session id)."""

  def __init__(self, message: str = "The resource already exists."):
    self.message = message
    super().__init__(message)
