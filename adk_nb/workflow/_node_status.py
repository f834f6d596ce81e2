"""NodeStatus: where one node run stands (google-adk 2.x `workflow._node_status`)."""

from __future__ import annotations

from enum import Enum


class NodeStatus(Enum):
  """The status of a node of a workflow graph. The values are google-adk's (checkpoints compare them)."""

  INACTIVE = 0
  """Not triggered yet (or a join still waiting for predecessors)."""
  PENDING = 1
  """Triggered: it runs as soon as a slot is free."""
  RUNNING = 2
  """Running now."""
  COMPLETED = 3
  """Finished with its output (possibly None)."""
  WAITING = 4
  """Paused for an answer (a RequestInput, a confirmation), or waiting for output (`wait_for_output`)."""
  FAILED = 5
  """Raised (after its retries)."""
  CANCELLED = 6
  """Stopped because another node failed."""
