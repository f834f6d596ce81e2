"""Simulated users for ADK's conversation scenarios: a starting prompt, then a model following a plan.

The names below load on first use, so reading an eval set (whose scenarios may name a persona) does not
import the simulators.
"""

from __future__ import annotations

from ...utils.lazy import lazy_exports

_HOME = {"LlmBackedUserSimulator": "llm_backed_user_simulator",
         "LlmBackedUserSimulatorConfig": "llm_backed_user_simulator", "BaseUserSimulatorConfig": "user_simulator",
         "NextUserMessage": "user_simulator", "Status": "user_simulator", "UserSimulator": "user_simulator"}

__all__ = sorted(_HOME)


__getattr__ = lazy_exports(__name__, {name: f".{module}" for name, module in _HOME.items()})
