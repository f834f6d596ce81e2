"""The approval policy: who answers tool confirmations when nobody clicks (notebook, demo, CLI).

One vocabulary everywhere: `ask` (a person decides; with nobody to ask, the call is rejected:
fail closed), `auto` (approve, and record that a policy did) and `deny`.
"""

from __future__ import annotations

import os
from typing import Optional

ENV_VAR = "ADK_NB_APPROVE"
"""Environment variable that sets the default policy (it reaches nbmake's kernels)."""

POLICIES = ("ask", "auto", "deny")


def resolve_policy(explicit: Optional[str] = None) -> str:
  """The policy in force: the explicit option, else $ADK_NB_APPROVE, else 'ask'.

  'ask' pauses the run until a person (a button or `run.approve()`) answers; 'auto'
  approves every confirmation at once and records that it did; 'deny' rejects them.
  """
  if explicit is not None:
    value, source = explicit, "--approve"
  else:
    value, source = os.environ.get(ENV_VAR, ""), ENV_VAR
    if not value.strip():
      return "ask"
  value = value.strip().lower()
  if value not in POLICIES:
    raise ValueError(f"{source}={value!r} is not a policy; use one of: ask, auto, deny.")
  return value
