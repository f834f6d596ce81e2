"""Importing an integration's SDK when it is first used, with an error that names the install."""

from __future__ import annotations

import importlib
from types import ModuleType


def require_sdk(module: str, *, user: str, install: str) -> ModuleType:
  """The SDK module `module`; ImportError naming `pip install {install}` when it is missing."""
  try:
    return importlib.import_module(module)
  except ImportError as exc:
    raise ImportError(
        f"{user} needs the `{module}` package, which is not installed: pip install '{install}' "
        f"(google-adk's extra installs the same). Nothing was created."
    ) from exc
