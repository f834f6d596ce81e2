"""Raised when something looked up by id does not exist."""

from . import codes
from .adk_nb_error import AdkNbError


class NotFoundError(AdkNbError):
  """The object asked for does not exist."""

  error_code = codes.NOT_FOUND

  def __init__(self, message: str = "The resource was not found."):
    self.message = message
    super().__init__(message)
