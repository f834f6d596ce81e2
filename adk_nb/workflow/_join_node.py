"""JoinNode: a barrier that waits for every predecessor, then passes on all their outputs."""

from __future__ import annotations

from typing import Any, AsyncGenerator

from ..agents.context import Context
from ._base_node import BaseNode
from ._values import validate


class JoinNode(BaseNode):
  """Fires once every node with an edge into it has completed (since it last fired).

  Its output is `{predecessor_name: predecessor_output}`. If a predecessor can no longer
  run when the workflow ends, the run fails with WorkflowStalledError naming it (google-adk
  ends silently with no output).

  Its `input_schema`, as in google-adk, checks each predecessor's output on its own (a None output
  passes), not the joined dict.
  """

  @property
  def _requires_all_predecessors(self) -> bool:
    return True

  def _validate_input_data(self, data: Any) -> Any:
    """The joined inputs, each predecessor's output checked against `input_schema` (None passes)."""
    if not isinstance(data, dict):
      return validate(self.input_schema, data)
    return {name: value if value is None else validate(self.input_schema, value) for name, value in data.items()}

  async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
    yield node_input
