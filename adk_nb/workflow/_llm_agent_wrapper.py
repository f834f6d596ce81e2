"""How an LlmAgent runs as a graph node, by mode (google-adk 2.x's module path).

- single_turn (the default in a graph): the node input is the agent's user turn; its final text
  (or, with `output_schema`, the parsed object) is the node's output.
- task: the agent works on the node input until it calls `finish_task`; the arguments of the
  call that succeeded are the node's output (`FinishTaskOutput`, below). Without a finished task
  the node has no output and, as google-adk's `wait_for_output`, fires no successor.
- chat: the agent answers the conversation (only right after START, see `_graph_validation`).

The node runner (`_node_runner.NodeRunner`) drives the agent; the rules that depend on the mode
live here.
"""

from __future__ import annotations

from typing import Any, Optional

from ..events.event import Event
from ..tools._task_tools import FINISH_TASK, FinishTaskTool, finishes_task
from ._values import user_content

__all__ = ["FinishTaskOutput", "effective_mode", "to_user_content"]


def effective_mode(agent: Any) -> str:
  """The mode an LlmAgent runs in as a node: its own, else chat with a parent or sub-agents, else single_turn."""
  mode = getattr(agent, "mode", None)
  if mode is not None:
    return mode
  return "chat" if agent.parent_agent is not None or agent.sub_agents else "single_turn"


to_user_content = user_content
"""The user turn a node input becomes: text as is, anything else as JSON text (google-adk's rule)."""


class FinishTaskOutput:
  """Watches a task-mode agent's events for its finished task; `output` is then the task's result."""

  __slots__ = ("agent", "args", "done", "output")

  def __init__(self, agent: Any):
    self.agent = agent
    self.args: Optional[dict] = None
    self.done = False
    self.output: Any = None

  @classmethod
  def of(cls, agent: Any) -> Optional["FinishTaskOutput"]:
    """A watcher for a task-mode LlmAgent; None for any other node."""
    return cls(agent) if getattr(agent, "mode", None) == "task" else None

  def see(self, event: Event) -> bool:
    """Notes the event; True when it is the successful answer to finish_task (the task is done)."""
    if event.author != self.agent.name or event.partial:
      return False
    for call in event.get_function_calls():
      if call.name == FINISH_TASK:
        self.args = dict(call.args or {})
    if self.done or self.args is None or not finishes_task(event):
      return False
    if event.output is None:  # the agent's own flow puts it there; a replaced run_async may not
      event.output = FinishTaskTool(self.agent).result(self.args)
    self.done, self.output = True, event.output
    return True
