"""JoinNode: a barrier that waits for every predecessor, then passes on all their outputs."""

from __future__ import annotations

from typing import Any, AsyncGenerator

from ..agents.context import Context
from ._base_node import BaseNode


class JoinNode(BaseNode):
  """Fires once every node with an edge into it has completed (since it last fired).

  Its output is `{predecessor_name: predecessor_output}`. If a predecessor can no longer
  run when the workflow ends, the run fails with WorkflowStalledError naming it (google-adk
  ends silently with no output).
  """

  @property
  def _requires_all_predecessors(self) -> bool:
    return True

  async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
    yield node_input
