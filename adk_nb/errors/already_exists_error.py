"""Raised when creating something whose id is taken."""

from . import codes
from .adk_nb_error import AdkNbError


class AlreadyExistsError(AdkNbError):
  """An object with this id already exists (for example a session id)."""

  error_code = codes.ALREADY_EXISTS

  def __init__(self, message: str = "The resource already exists."):
    self.message = message
    super().__init__(message)
