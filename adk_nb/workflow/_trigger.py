"""Trigger: one queued activation of a node (google-adk 2.x `workflow._trigger`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional


@dataclass(slots=True)
class Trigger:
  """A predecessor's output on its way to a node: the node runs once per trigger.

  A slots dataclass rather than google-adk's pydantic model: one is made per edge taken, on
  the per-node path.
  """

  input: Any = None
  """The node input (the predecessor's output; a JoinNode gets {predecessor: output})."""
  use_sub_branch: bool = False
  """True after a fan-out: the run gets its own lane `name@run_id` under `branch`."""
  branch: Optional[str] = None
  """The branch inherited from the predecessor."""
  isolation_scope: Optional[str] = None
  """Scope tag propagated with the trigger (kept for google-adk's shape; adk_nb does not set it)."""
