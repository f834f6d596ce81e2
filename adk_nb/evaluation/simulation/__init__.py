"""Simulated users for ADK's conversation scenarios: a starting prompt, then a model following a plan.

The names below load on first use, so reading an eval set (whose scenarios may name a persona) does not
import the simulators.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOME = {"LlmBackedUserSimulator": "llm_backed_user_simulator",
         "LlmBackedUserSimulatorConfig": "llm_backed_user_simulator", "BaseUserSimulatorConfig": "user_simulator",
         "NextUserMessage": "user_simulator", "Status": "user_simulator", "UserSimulator": "user_simulator"}

__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
  if name not in _HOME:
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
  return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
