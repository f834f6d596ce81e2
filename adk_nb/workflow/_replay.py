"""Continuing a workflow invocation from an edited node output (a fork made with `replace_with`).

When a run continues an invocation whose last event is an edit (`EDITED_FROM_KEY`; see
adk_nb.sessions.fork), the graph runs again from START, but a node run whose output (and route) this
invocation already recorded is not executed: the recording is its result, the edited one included.
Node runs with nothing recorded (those after the edit) run live. Run ids are assigned in the same
order as the first time, so each node run finds its own recording. The edit is meant to be a node's
output (or an agent node's answer); a step inside an agent node's own run (its tool result) is not
continued from: that node runs again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from ..events.event import Event
from ..events.protocol import EDITED_FROM_KEY

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext


@dataclass
class Recorded:
  """What a node run did the first time: its output (when it had one) and the route it took."""

  output: Any = None
  has_output: bool = False
  route: Any = None
  text: Optional[str] = None
  """An agent node's final answer (its output is that text, parsed by its output_schema if it has one)."""

  def result_for(self, node: Any) -> tuple[Any, bool]:
    """(output, whether the run had one) for `node`, as the scheduler would have computed it."""
    if self.has_output or self.text is None:
      return self.output, self.has_output
    schema = getattr(node, "output_schema", None)
    if schema is not None and hasattr(schema, "model_validate_json"):
      return schema.model_validate_json(self.text).model_dump(), True
    return self.text, True


def recorded_runs(ic: "InvocationContext", events: Optional[list[Event]], path: str) -> dict[str, Recorded]:
  """Node path -> its recording, for a run continuing from an edit inside workflow `path`; {} otherwise."""
  session_events = ic.session.events
  if ic.user_content is not None or ic.resumed or not session_events or not events:
    return {}
  last = session_events[-1]
  if (last.invocation_id != ic.invocation_id or not last.custom_metadata
      or EDITED_FROM_KEY not in last.custom_metadata):
    return {}
  prefix = path + "/"
  runs: dict[str, Recorded] = {}
  for event in events:
    info = event.node_info
    if info is None or not info.path.startswith(prefix) or "/" in info.path[len(prefix):]:
      continue  # another workflow's, or a node nested deeper (its workflow node replays as a whole)
    found = runs.setdefault(info.path, Recorded())
    if event.output is not None:
      found.output, found.has_output = event.output, True
    elif info.message_as_output and event.content is not None:
      found.text = event.text
    if event.actions.route is not None:
      found.route = event.actions.route
  # Only runs that finished with a result (output, answer or route) replay; a run the edit cut short
  # (an edit inside an agent node's own steps) runs again live.
  return {p: r for p, r in runs.items() if r.has_output or r.text is not None or r.route is not None}
