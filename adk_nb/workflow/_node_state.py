"""NodeState: the recorded state of one node run (google-adk 2.x `workflow._node_state`).

A workflow keeps one per node that is waiting for an answer (and per `ctx.run_node` child
that is), and writes them into its pause checkpoint.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field

from ._node_status import NodeStatus


class NodeState(BaseModel):
  """State of one node run: its status, input, run id and the interrupts it waits on."""

  model_config = ConfigDict(extra="ignore", ser_json_bytes="base64")

  status: NodeStatus = NodeStatus.INACTIVE
  """Where the run stands."""
  input: Any = None
  """The input the run was given."""
  attempt_count: int = 1
  """The attempt (1-based; retries count up)."""
  interrupts: list[str] = Field(default_factory=list)
  """Ids of the requests (RequestInput, long-running calls) the run waits on."""
  resume_inputs: dict[str, Any] = Field(default_factory=dict)
  """Answers to those requests, by interrupt id, once given."""
  run_counter: int = 0
  """How many fresh runs the node has had."""
  run_id: Optional[str] = None
  """This run's id ('1', '2', ... or an explicit id given to ctx.run_node)."""
  parent_run_id: Optional[str] = None
  """For a ctx.run_node child: the run id of the node that started it."""
  branch: Optional[str] = None
  """The run's branch (lanes after a fan-out)."""
  rerun: bool = False
  """True when the run must run again on resume whatever its node says (it was paused by a
  ctx.run_node child, whose finished siblings are replayed)."""
