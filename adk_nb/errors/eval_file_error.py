"""Raised when an eval file (`*.evalset.json`, `*.test.json`, `test_config.json`) cannot be read."""

from __future__ import annotations

import os
from typing import Optional, Union

from . import codes
from .adk_nb_error import AdkNbError


class EvalFileError(AdkNbError, ValueError):
  """An eval file could not be read; the message names the file, the case and the field to fix."""

  error_code = codes.EVAL_FILE_ERROR

  def __init__(self, path: Union[str, "os.PathLike[str]"], message: str, *, case: Optional[str] = None,
               field: Optional[str] = None):
    self.path, self.case, self.field = str(path), case, field
    where = [os.fspath(path)]
    if case is not None:
      where.append(f"case {case}")
    if field:
      where.append(field)
    super().__init__(": ".join(where) + ": " + message)
