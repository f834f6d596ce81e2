"""How an LlmAgent runs as a graph node, by mode (google-adk 2.x's module path).

- single_turn (the default in a graph): the node input is the agent's user turn; its final text
  (or, with `output_schema`, the parsed object) is the node's output.
- task: the agent works on the node input until it calls `finish_task`; the arguments of the
  call that succeeded are the node's output (`FinishTaskOutput`, below). Without a finished task
  the node has no output and, as google-adk's `wait_for_output`, fires no successor.
- chat: the agent answers the conversation (only right after START, see `_graph_validation`).

The node runner (`_node_runner.NodeRunner`) drives agents in a graph (it commits the node input
as the agent's user turn); the rules that depend on the mode live here. `run_llm_agent_as_node`
is `LlmAgent._run_impl`: google-adk's entry for code that runs an agent as a node itself (a
custom node calling `agent._run_impl(ctx=..., node_input=...)`); its single_turn input is put in
the session for the run only, not committed (as google-adk does).
"""

from __future__ import annotations

from typing import Any, AsyncGenerator, Optional

from ..events.event import Event, NodeInfo
from ..tools._task_tools import FINISH_TASK, FinishTaskTool, finishes_task
from ..utils import _schema_utils
from ._errors import WorkflowConfigurationError
from ._values import user_content

__all__ = ["FinishTaskOutput", "effective_mode", "prepare_llm_agent_context", "prepare_llm_agent_input",
           "run_llm_agent_as_node", "to_user_content"]

_MODES = ("task", "single_turn", "chat")


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
    if event.output is None:  # the agent's own flow puts it there (validated); a replaced run_async may not
      key = FinishTaskTool(self.agent).wrapper_key
      event.output = self.args[key] if key and key in self.args else self.args
    self.done, self.output = True, event.output
    return True


def prepare_llm_agent_context(agent: Any, ctx: Any) -> Any:
  """The context the agent runs under as a node: the node's own (kept for google-adk's API)."""
  return ctx


def prepare_llm_agent_input(agent: Any, ctx: Any, node_input: Any) -> Optional[Event]:
  """For a single_turn agent, the node input as a user event put at the end of `ctx.session.events`
  (with the node's path, branch and isolation scope) and returned; None when there is no input,
  the agent is not single_turn, or the node is resuming (its answers are the input then)."""
  if node_input is None or effective_mode(agent) != "single_turn" or ctx.resume_inputs:
    return None
  ic = ctx._invocation_context
  event = Event(invocation_id=ic.invocation_id, author="user", content=user_content(node_input))
  path = getattr(ctx, "node_path", None)
  if isinstance(path, str) and path:
    event.node_info = NodeInfo(path=path)
  scope = getattr(ctx, "isolation_scope", None)
  if scope:
    event.isolation_scope = scope
  if ic.branch:
    event.branch = ic.branch
  ctx.session.events.append(event)
  return event


def _single_turn_output(agent: Any, ctx: Any, event: Event) -> None:
  """Marks the agent's final answer as the node output (the parsed object with `output_schema`)."""
  if (event.author != agent.name or event.partial or event.content is None or not event.is_final_response()
      or event.get_function_responses() or event.error_code):
    return
  text = event.text or ""
  if agent.output_schema is not None:
    if not text.strip():
      output = None
    elif _schema_utils.is_basemodel_schema(agent.output_schema):
      output = agent.output_schema.model_validate_json(text).model_dump()
    else:  # list[str], list[Model], a JSON-schema dict...: google-adk's validate_schema
      output = _schema_utils.validate_schema(agent.output_schema, text)
  else:
    output = text
  if agent.output_key and output is not None:
    ctx.actions.state_delta[agent.output_key] = output
  event.output = output
  if agent.output_schema is None:
    event.node_info.message_as_output = True


async def run_llm_agent_as_node(agent: Any, *, ctx: Any, node_input: Any) -> AsyncGenerator[Event, None]:
  """Runs an LlmAgent as a node under the node context `ctx`, yielding its events (see the module doc)."""
  mode = effective_mode(agent)
  if mode not in _MODES:
    raise WorkflowConfigurationError(
        f"LlmAgent as node only supports task, single_turn, and chat mode, but agent '{agent.name}' has "
        f"mode='{mode}'.")
  agent_ctx = prepare_llm_agent_context(agent, ctx)
  injected = prepare_llm_agent_input(agent, agent_ctx, node_input)
  ic = agent_ctx.get_invocation_context()
  if mode == "task" and node_input is not None:
    ic = ic.model_copy(update={"user_content": user_content(node_input)})
  if mode == "single_turn":
    try:
      async for event in agent.run_async(ic):
        _single_turn_output(agent, ctx, event)
        yield event
    finally:
      if injected is not None and injected in agent_ctx.session.events:
        agent_ctx.session.events.remove(injected)
    return
  task = FinishTaskOutput.of(agent) if mode == "task" else None
  async for event in agent.run_async(ic):
    if task is not None and task.see(event):
      if agent.output_key and task.output is not None:
        ctx.actions.state_delta[agent.output_key] = task.output
      yield event
      return
    yield event
