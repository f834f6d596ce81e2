"""One way for a package to export names that load on first use (a module-level `__getattr__`).

    __getattr__ = lazy_exports(__name__, {"LiteLlm": ".lite_llm", "load_artifacts": ".load_artifacts_tool:load_artifacts_tool"})

Each value is the module that holds the name, relative to the package (or absolute), with
`:attribute` when the attribute there is spelled differently. The first access imports that module
and stores the value in the package, so later reads are plain attribute reads. Packages use it to keep
`import adk_nb` light and to import optional dependencies (SQLAlchemy, litellm, llama-index) only when
the name that needs them is used.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, Mapping


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
  """The `__getattr__` for `package` that imports each of `exports` on first use and keeps it."""

  def __getattr__(name: str) -> Any:
    target = exports.get(name)
    if target is None:
      raise AttributeError(f"module {package!r} has no attribute {name!r}")
    module, _, attribute = target.partition(":")
    value = getattr(importlib.import_module(module, package), attribute or name)
    sys.modules[package].__dict__[name] = value  # the next read does not come back here
    return value

  return __getattr__
