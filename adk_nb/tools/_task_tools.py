"""The Task API's tools (google-adk 2.x agent `mode`): a coordinator calls its `single_turn` and
`task` sub-agents like tools, and a task agent ends its task with `finish_task`.

The delegation tools only declare the call; the coordinator's flow runs the sub-agent itself
(adk_nb.flows._delegation), so the sub-agent's events stream and are committed like any other.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional

from google.genai import types
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from .base_tool import BaseTool

if TYPE_CHECKING:
  from ..agents.llm_agent import LlmAgent
  from ..events.event import Event
  from ..models.llm_request import LlmRequest
  from .tool_context import ToolContext

FINISH_TASK = "finish_task"
"""The tool a task-mode agent calls to hand its result back (google-adk's name)."""
FINISH_TASK_SUCCESS = "Task completed."
"""finish_task's answer when the result is valid. An interface string, kept as google-adk spells it:
a coordinator recognises a finished task by this exact `result` (adk_nb.flows._delegation, and
google-adk's RemoteA2aAgent asks remote A2A servers to answer `finish_task` with it)."""

_FINISH_INSTRUCTION = (
    "Finish the whole delegated task with the tools you have before you call `finish_task`; calling it "
    "early ends your task unfinished. If you cannot tell what the task asks for, ask the user first. When "
    "everything is done, call `finish_task` alone, with no text beside the call."
)


class _DefaultTaskOutput(BaseModel):
  result: str
  """What the agent did, in a few sentences."""


class _DefaultRequest(BaseModel):
  request: str = Field(description="What the sub-agent should do, with any context it needs.")


class FinishTaskTool(BaseTool):
  """Ends a task-mode agent's task: its arguments (the agent's `output_schema`, else `{result: str}`)
  become the answer to the coordinator's call. Invalid arguments go back to the model to retry."""

  def __init__(self, agent: Optional["LlmAgent"] = None, *, task_agent: Optional["LlmAgent"] = None):
    agent = agent if agent is not None else task_agent  # task_agent=: google-adk 2.x's keyword
    if agent is None:
      raise TypeError("FinishTaskTool needs the task agent: FinishTaskTool(agent) or FinishTaskTool(task_agent=agent).")
    self.output_schema = agent.output_schema
    """The task agent's output_schema (None: the result is a short text under `result`)."""
    schema = agent.output_schema if agent.output_schema is not None else _DefaultTaskOutput
    self.adapter = TypeAdapter(schema)
    json_schema = self.adapter.json_schema()
    self.wrapper_key: Optional[str] = None if json_schema.get("type") == "object" else "result"
    """A non-object schema is wrapped under this key (the model can only pass an object)."""
    description = ("Hands this agent's finished work back to the agent that delegated the task. Call it "
                   "once the delegated task is done.")
    if agent.output_schema is not None:
      description += " Its parameters carry the result, in the required output format."
    super().__init__(name=FINISH_TASK, description=description)

  @property
  def _wrapper_key(self) -> Optional[str]:  # google-adk 2.x's name
    return self.wrapper_key

  def _build_instruction(self) -> str:
    """What the model is told about finishing its task (adk_nb's wording)."""
    return _FINISH_INSTRUCTION

  def _get_declaration(self) -> types.FunctionDeclaration:
    schema = self.adapter.json_schema()
    if self.wrapper_key:
      defs = schema.pop("$defs", None)
      schema = {"type": "object", "properties": {self.wrapper_key: schema}, "required": [self.wrapper_key]}
      if defs:
        schema["$defs"] = defs
    return types.FunctionDeclaration(name=self.name, description=self.description, parameters_json_schema=schema)

  def result(self, args: dict[str, Any]) -> Any:
    """The validated task result (JSON-ready) for these arguments; raises ValidationError."""
    value = args.get(self.wrapper_key) if self.wrapper_key else args
    return self.adapter.dump_python(self.adapter.validate_python(value), mode="json")

  async def process_llm_request(self, *, tool_context: "ToolContext", llm_request: "LlmRequest") -> None:
    await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
    llm_request.append_instructions([self._build_instruction()])

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    try:
      self.result(args)
    except ValidationError as exc:
      return {"error": f"`{self.name}()` was called with arguments that have validation errors:\n{exc}\nCall it "
                       "again with every required parameter present and of the right type."}
    # Not skip_summarization: as in google-adk this answer is no final response (a caller of
    # is_final_response() must not take it for the agent's reply); the flow stops on it instead.
    return FINISH_TASK_SUCCESS


def finishes_task(event: "Event") -> bool:
  """True when the event answers finish_task with success: the task is done and its agent stops.
  An invalid call's error answer does not count; the model sees it and calls again."""
  return any(r.name == FINISH_TASK and (r.response or {}).get("result") == FINISH_TASK_SUCCESS
             for r in event.get_function_responses())


def task_input(agent: "LlmAgent", args: dict[str, Any]) -> str:
  """A delegated sub-agent's first user turn, built from its coordinator's call arguments: the
  request text (single_turn), the input_schema's JSON, else the arguments as JSON."""
  if agent.input_schema is not None:
    return agent.input_schema.model_validate(args).model_dump_json()
  if agent.mode == "single_turn":
    return str(args.get("request", ""))
  return json.dumps(args, ensure_ascii=False)


class DelegationTool(BaseTool):
  """A sub-agent offered to its coordinator as a tool (mode 'single_turn' or 'task')."""

  def __init__(self, agent: "LlmAgent"):
    self.agent = agent
    description = agent.description or ""
    if agent.mode == "task":
      description = (description + "\nIMPORTANT: calling this tool hands the work to a specialist agent. "
                     "Call it on its own, never in parallel with other tool calls.").strip()
    super().__init__(name=agent.name, description=description)

  @property
  def mode(self) -> str:
    return self.agent.mode

  def _get_declaration(self) -> types.FunctionDeclaration:
    schema = (self.agent.input_schema or _DefaultRequest).model_json_schema()
    return types.FunctionDeclaration(name=self.name, description=self.description, parameters_json_schema=schema)

  def task_input(self, args: dict[str, Any]) -> str:
    """The sub-agent's first user turn for these arguments (see task_input)."""
    return task_input(self.agent, args)

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    # Reached only when something runs the tool outside an LlmAgent's flow.
    raise RuntimeError(f"Sub-agent {self.name!r} (mode={self.agent.mode!r}) runs through its coordinator's "
                       "flow; call the coordinator LlmAgent instead of the tool.")
