"""LlmAgent (alias Agent): an agent driven by a model, with instructions, tools and sub-agents."""

from __future__ import annotations

import inspect
import logging
from typing import Any, AsyncGenerator, Awaitable, Callable, ClassVar, Literal, Optional, Union

from google.genai import types
from pydantic import BaseModel, Field, ValidationError, field_validator

from ..events.event import Event
from ..models.base_llm import BaseLlm
from ..models.registry import LLMRegistry, default_llm
from ..tools.base_tool import BaseTool
from ..tools.base_toolset import BaseToolset
from ..tools.function_tool import FunctionTool
from ..utils import _schema_utils
from . import _callbacks
from ._resumable import end_of_agent, ended_before_handover
from ._callbacks import (AfterModelCallback, AfterToolCallback, BeforeModelCallback,  # noqa: F401  (ADK's aliases)
                         BeforeToolCallback, InstructionProvider, OnModelErrorCallback, OnToolErrorCallback)
from .base_agent import BaseAgent
from .invocation_context import InvocationContext
from .readonly_context import ReadonlyContext

logger = logging.getLogger(__name__)

_set = object.__setattr__
InstructionProvider = Callable[[ReadonlyContext], Union[str, Awaitable[str]]]
# `Any` keeps pydantic from rejecting a wrong entry with a terse union error: model_post_init
# checks each entry and names the fix.
ToolUnion = Union[Callable[..., Any], BaseTool, BaseToolset, Any]


# Each callback field and the attribute holding its normalized list (read by flows/llm_flow.py and
# flows/_functions.py); refreshed when the field is assigned.
_CALLBACK_LISTS = {
    "before_model_callback": "_before_model_cbs",
    "after_model_callback": "_after_model_cbs",
    "on_model_error_callback": "_on_model_error_cbs",
    "before_tool_callback": "_before_tool_cbs",
    "after_tool_callback": "_after_tool_cbs",
    "on_tool_error_callback": "_on_tool_error_cbs",
}


def _is_node(tool: Any) -> bool:
  """A Workflow or a BaseNode (not an agent): it becomes a NodeTool in tools=[...]."""
  if getattr(type(tool), "_is_workflow_node", False):
    return True
  if isinstance(tool, BaseAgent):
    return False
  from ..workflow._base_node import BaseNode

  return isinstance(tool, BaseNode)


class LlmAgent(BaseAgent):
  """An agent whose steps are decided by a model.

  The model is a name resolved through LLMRegistry ("gemini-2.5-flash",
  "openai/gpt-4o-mini") or a BaseLlm instance; when unset it is inherited from the
  nearest LlmAgent ancestor, and with none anywhere it is google-adk's default
  (`DEFAULT_MODEL`, changed with `LlmAgent.set_default_model`). `instruction` may use `{key}`, `{key?}`, `{app:key}`,
  `{user:key}` and `{artifact.name}` placeholders, filled from state at each call.
  """

  DEFAULT_MODEL: ClassVar[str] = "gemini-3.5-flash"
  """The model of an agent with no model anywhere in its tree (google-adk 2.13's default)."""
  DEFAULT_LIVE_MODEL: ClassVar[str] = "gemini-live-2.5-flash-native-audio"
  """google-adk's default live model (kept for programs that read it; adk_nb has no live mode)."""
  _default_model: ClassVar[Union[str, BaseLlm]] = DEFAULT_MODEL
  _default_live_model: ClassVar[Union[str, BaseLlm]] = DEFAULT_LIVE_MODEL

  model: Union[str, BaseLlm] = ""
  """Model name or instance; '' inherits from the nearest LlmAgent ancestor, else the default model."""
  instruction: Union[str, InstructionProvider] = ""
  """What the agent should do; a string template or a function of ReadonlyContext."""
  global_instruction: Union[str, InstructionProvider] = ""
  """Instruction for every agent in the tree (read from the root agent)."""
  static_instruction: Optional[Any] = None
  """Instruction text that never changes (no placeholders), sent first."""
  tools: list[ToolUnion] = Field(default_factory=list)
  """Functions (wrapped as FunctionTool), BaseTool instances or toolsets."""
  generate_content_config: Optional[types.GenerateContentConfig] = None
  """Sampling settings, safety settings, etc. Tools and system instruction go elsewhere."""
  disallow_transfer_to_parent: bool = False
  """When True, the model cannot hand the conversation back to the parent agent."""
  disallow_transfer_to_peers: bool = False
  """When True, the model cannot hand the conversation to sibling agents."""
  include_contents: Literal["default", "none"] = "default"
  """'none' sends only the current turn, not the history."""
  mode: Optional[Literal["chat", "task", "single_turn"]] = None
  """How a coordinator (the parent LlmAgent) reaches this sub-agent: 'chat' (None) by transfer;
  'single_turn' as a tool that answers from its request alone; 'task' as a tool that may talk
  with the user over several turns and hands its result back with `finish_task`."""
  input_schema: Optional[type[BaseModel]] = None
  """The argument schema when this agent is used through AgentTool."""
  output_schema: Optional[Any] = None
  """Ask the model for JSON of this schema; the result is saved under output_key. As google-adk 2.x: a
  pydantic model class (stored as a dict), `list[Model]` (a list of dicts), or any other schema
  google-genai takes (`list[str]`, `dict[str, int]`, a JSON-schema dict, a `types.Schema`: the JSON
  value as parsed). See `adk_nb.utils._schema_utils`."""
  output_key: Optional[str] = None
  """State key that receives the agent's final answer."""
  parallel_worker: bool = False
  """As a workflow node: run once per item of a list input, concurrently, and output the list of
  answers in order (google-adk 2.x's node option; ignored outside a workflow)."""
  max_parallel_workers: Optional[int] = None
  """With `parallel_worker`: how many items run at once (None: all)."""
  planner: Optional[Any] = None
  """A `planners.BasePlanner`: BuiltInPlanner (model thinking) or PlanReActPlanner (tagged plan/act text)."""
  code_executor: Optional[Any] = None
  """A `code_executors.BaseCodeExecutor`: BuiltInCodeExecutor (Gemini runs code) or UnsafeLocalCodeExecutor."""
  before_model_callback: _callbacks.CallbackOrList = None
  """`(callback_context, llm_request) -> LlmResponse | None`; a response skips the model call."""
  after_model_callback: _callbacks.CallbackOrList = None
  """`(callback_context, llm_response) -> LlmResponse | None`; a response replaces the model's."""
  on_model_error_callback: _callbacks.CallbackOrList = None
  """`(callback_context, llm_request, error) -> LlmResponse | None`; a response recovers from the error."""
  before_tool_callback: _callbacks.CallbackOrList = None
  """`(tool, args, tool_context) -> dict | None`; a dict skips the tool and is its result."""
  after_tool_callback: _callbacks.CallbackOrList = None
  """`(tool, args, tool_context, tool_response) -> dict | None`; a dict replaces the result."""
  on_tool_error_callback: _callbacks.CallbackOrList = None
  """`(tool, args, tool_context, error) -> dict | None`; a dict recovers from the tool's error."""


  @field_validator("output_schema")
  @classmethod
  def _validate_output_schema(cls, value: Any):
    return _schema_utils.check_output_schema(value)

  @field_validator("planner")
  @classmethod
  def _validate_planner(cls, value: Any):
    from ..planners.base_planner import BasePlanner

    if value is not None and not isinstance(value, BasePlanner):
      raise ValueError(f"planner must be an adk_nb.planners planner (BuiltInPlanner(thinking_config=...) or "
                       f"PlanReActPlanner()), got {type(value).__name__}.")
    return value

  @field_validator("code_executor")
  @classmethod
  def _validate_code_executor(cls, value: Any):
    from ..code_executors.base_code_executor import BaseCodeExecutor

    if value is None:
      return value
    if not isinstance(value, BaseCodeExecutor):
      raise ValueError(f"code_executor must be an adk_nb.code_executors executor (BuiltInCodeExecutor() or "
                       f"UnsafeLocalCodeExecutor()), got {type(value).__name__}.")
    if value.optimize_data_file:
      raise ValueError("code_executor.optimize_data_file=True (google-adk's CSV exploration) is not supported "
                       "by adk_nb; leave it False and attach data the code can read.")
    return value

  @field_validator("generate_content_config")
  @classmethod
  def _validate_config(cls, value: Optional[types.GenerateContentConfig]):
    if value is None:
      return value
    if value.tools:
      raise ValueError("Put tools in LlmAgent(tools=[...]), not in generate_content_config.tools.")
    if value.system_instruction:
      raise ValueError("Put the system instruction in LlmAgent(instruction=...), not in generate_content_config.")
    if value.response_schema:
      raise ValueError("Use LlmAgent(output_schema=...) instead of generate_content_config.response_schema.")
    return value

  def model_post_init(self, __context: Any) -> None:
    super().model_post_init(__context)
    owner = f"Agent {self.name!r}"
    n = _callbacks.normalize
    for field_name, attr in _CALLBACK_LISTS.items():
      _set(self, attr, n(field_name, getattr(self, field_name), owner))
    # Runtime caches (instance __dict__, see BaseAgent.model_post_init).
    _set(self, "_resolved_model", None)
    _set(self, "_plain_tools", None)
    _set(self, "_transfer_tool", None)
    _set(self, "_identity", None)
    for tool in self.tools:
      if not (callable(tool) or isinstance(tool, (BaseTool, BaseToolset)) or _is_node(tool)):
        raise TypeError(f"{owner}: tool {tool!r} is neither a function, a BaseTool nor a BaseToolset.")

  def _field_changed(self, name: str) -> None:
    super()._field_changed(name)
    callbacks_attr = _CALLBACK_LISTS.get(name)
    if callbacks_attr is not None:
      _set(self, callbacks_attr, _callbacks.normalize(name, getattr(self, name), f"Agent {self.name!r}"))
    elif name == "model":
      _set(self, "_resolved_model", None)
    elif name in ("tools", "sub_agents", "mode", "output_schema"):
      _set(self, "_plain_tools", None)
      if name == "output_schema":
        self.__dict__.pop("_smr_tool", None)  # set_model_response follows the new schema
    elif name in ("name", "description"):
      _set(self, "_identity", None)
    elif name == "generate_content_config":
      self.__dict__.pop("_config_base", None)

  # ---- resolved configuration ------------------------------------------------------------

  @property
  def canonical_model(self) -> BaseLlm:
    """The model instance this agent calls (resolved by name, or inherited)."""
    if self._resolved_model is not None:
      return self._resolved_model
    if isinstance(self.model, BaseLlm):
      return self.model
    if self.model:
      _set(self, "_resolved_model", LLMRegistry.new_llm(self.model))
      return self._resolved_model
    owner = self._ancestor_with_model()
    if owner is not None:
      return owner.canonical_model
    # No model anywhere above: google-adk 2.x's default (a Gemini model; its call needs GOOGLE_API_KEY,
    # and the error then says the model is the default and how to choose another).
    return default_llm(type(self)._default_model)

  @property
  def canonical_live_model(self) -> BaseLlm:
    """The model a live (audio/video) run would use: the agent's or an ancestor's, else
    `DEFAULT_LIVE_MODEL` (google-adk's resolution; adk_nb itself has no live runs)."""
    if self.model:
      return self.canonical_model
    owner = self._ancestor_with_model()
    if owner is not None:
      return owner.canonical_live_model
    return default_llm(type(self)._default_live_model)

  def _ancestor_with_model(self) -> Optional["LlmAgent"]:
    """The nearest LlmAgent above this one that names a model, if any."""
    ancestor = self.parent_agent
    while ancestor is not None:
      if isinstance(ancestor, LlmAgent) and ancestor.model:
        return ancestor
      ancestor = ancestor.parent_agent
    return None

  async def canonical_model_async(self, ctx: Any = None) -> BaseLlm:
    """`canonical_model` for one invocation (google-adk's async spelling; nothing depends on `ctx`)."""
    return self.canonical_model

  async def canonical_live_model_async(self, ctx: Any = None) -> BaseLlm:
    """`canonical_live_model` for one invocation (google-adk's async spelling)."""
    return self.canonical_live_model

  @staticmethod
  def _checked_default(model: Any, setter: str) -> Union[str, BaseLlm]:
    if not isinstance(model, (str, BaseLlm)):
      raise TypeError(f"Default model must be a model name (str) or BaseLlm instance, got {type(model).__name__}: "
                      f"LlmAgent.{setter}('gemini-2.5-flash').")
    if isinstance(model, str) and not model:
      raise ValueError(f"Default model must be a non-empty string: LlmAgent.{setter}('gemini-2.5-flash').")
    return model

  @classmethod
  def set_default_model(cls, model: Union[str, BaseLlm]) -> None:
    """The model agents with no model anywhere in their tree use (google-adk's; default `DEFAULT_MODEL`)."""
    cls._default_model = cls._checked_default(model, "set_default_model")

  @classmethod
  def set_default_live_model(cls, model: Union[str, BaseLlm]) -> None:
    """The live model agents with no model anywhere in their tree would use (google-adk's)."""
    cls._default_live_model = cls._checked_default(model, "set_default_live_model")

  async def canonical_instruction(self, ctx: ReadonlyContext) -> tuple[str, bool]:
    """(instruction text, True when it came from a provider and must not be templated)."""
    return await _resolve_instruction(self.instruction, ctx)

  async def canonical_global_instruction(self, ctx) -> tuple[str, bool]:
    if not isinstance(ctx, ReadonlyContext):
      ctx = ReadonlyContext(ctx)
    return await _resolve_instruction(self.global_instruction, ctx)

  async def canonical_tools(self, ctx: Optional[Any] = None, *,
                            skip_failed_toolsets: bool = False) -> list[BaseTool]:
    """The tools as BaseTool instances (functions wrapped once; toolsets expanded per call).

    A toolset that fails to list its tools (an MCP server that cannot be reached) raises, unless
    `skip_failed_toolsets`: then it is logged at error level and left out, as google-adk does
    when it builds a model request (the model answers without those tools).
    """
    if self._plain_tools is None:
      _set(self, "_plain_tools", [self._as_tool(t) for t in self.tools if not isinstance(t, BaseToolset)]
           + self._task_tools())
    toolsets = self.toolsets
    if not toolsets:
      return self._plain_tools
    out = list(self._plain_tools)
    readonly = ReadonlyContext(ctx) if isinstance(ctx, InvocationContext) else ctx
    for toolset in toolsets:
      try:
        out.extend(await toolset.get_tools_with_prefix(readonly))
      except Exception as exc:
        if not skip_failed_toolsets:
          raise
        logger.error("Agent %r runs this step without the tools of %r, which failed to load: %s. "
                     "Fix or start the server, or remove the toolset from the agent.",
                     self.name, toolset, exc, exc_info=True)
    return out

  def _as_tool(self, tool: Any) -> BaseTool:
    from ..tools.google_search_tool import GoogleSearchTool

    if isinstance(tool, GoogleSearchTool) and tool.bypass_multi_tools_limit and len(self.tools) > 1:
      # Built-in search and function tools cannot share a request before Gemini 3 (as google-adk).
      from ..tools.google_search_agent_tool import GoogleSearchAgentTool, create_google_search_agent

      return GoogleSearchAgentTool(create_google_search_agent(tool.model or self.canonical_model))
    if isinstance(tool, BaseTool):
      return tool
    if _is_node(tool):  # a Workflow or a node in tools=[...] runs as a NodeTool (ADK 2.x)
      from ..tools._node_tool import wrap_node_as_tool

      return wrap_node_as_tool(tool)
    return FunctionTool(tool)

  def _task_tools(self) -> list[BaseTool]:
    """The Task API's tools: finish_task for a task-mode agent, one tool per delegated sub-agent."""
    from ..tools._task_tools import DelegationTool, FinishTaskTool

    out: list[BaseTool] = [FinishTaskTool(self)] if self.mode == "task" else []
    out += [DelegationTool(sub) for sub in self.sub_agents
            if isinstance(sub, LlmAgent) and sub.mode in ("task", "single_turn")]
    return out

  @property
  def toolsets(self) -> list[BaseToolset]:
    """The toolsets among `tools` (resolved per model call, closed by Runner.close())."""
    return [t for t in self.tools if isinstance(t, BaseToolset)]

  def _set_model_response_tool(self):
    """The set_model_response tool for output_schema + tools (built once)."""
    tool = self.__dict__.get("_smr_tool")
    if tool is None:
      from ..tools.set_model_response_tool import SetModelResponseTool

      tool = SetModelResponseTool(self.output_schema)
      _set(self, "_smr_tool", tool)
    return tool

  def _base_config(self) -> types.GenerateContentConfig:
    """The agent's generate_content_config (or an empty one), built once; never mutated."""
    base = self.__dict__.get("_config_base")
    if base is None:
      base = self.generate_content_config or types.GenerateContentConfig()
      _set(self, "_config_base", base)
    return base

  @property
  def _identity_instruction(self) -> str:
    if self._identity is None:
      text = f'You are the agent "{self.name}".'
      if self.description:
        text += f' You are described as "{self.description}".'
      _set(self, "_identity", text)
    return self._identity

  def _get_available_agent_names(self) -> list[str]:
    """The names of every agent in this agent's tree (from its root), in tree order."""
    names, stack = [], [self.root_agent]
    while stack:
      agent = stack.pop()
      names.append(agent.name)
      stack.extend(reversed(agent.sub_agents))
    return names

  # ---- running -------------------------------------------------------------------------------

  async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
    from ..flows.llm_flow import run_flow

    ended = False  # a transfer ends the agent before its target runs (flows.llm_flow)
    async for event in run_flow(self, ctx):
      self.__maybe_save_output_to_state(event)
      ended = ended or (event.actions.end_of_agent and event.author == self.name)
      yield event
    done = None if ended or ended_before_handover(self, ctx) else end_of_agent(self, ctx)
    if done is not None:
      yield done

  async def _run_impl(self, *, ctx: Any, node_input: Any) -> AsyncGenerator[Event, None]:
    """Runs the agent as a graph node by its `mode` (see `workflow._llm_agent_wrapper`)."""
    from ..workflow._llm_agent_wrapper import run_llm_agent_as_node

    async for event in run_llm_agent_as_node(self, ctx=ctx, node_input=node_input):
      yield event

  def __maybe_save_output_to_state(self, event: Event) -> None:
    """Stores the final answer under output_key; an answer that fails output_schema raises
    pydantic's ValidationError, which ends the run as in ADK.

    (google-adk's tests call it by its mangled name, `_LlmAgent__maybe_save_output_to_state`.)
    """
    if not self.output_key:
      return
    if event.author != self.name:
      # After a transfer the events of the agent handed to pass through here: they are not ours.
      logger.debug("Agent %s keeps output_key for its own answers; event by %s not saved", self.name,
                   event.author)
      return
    if event.partial or not event.is_final_response():
      return
    if not event.content or not event.content.parts or event.get_function_responses():
      return
    text = "".join(p.text for p in event.content.parts if p.text and not p.thought)
    if not text and not any(p.text is not None for p in event.content.parts):
      return
    value: Any = text
    if self.output_schema is not None:
      if not text.strip():
        return  # the empty last chunk of a stream: nothing to validate
      try:
        value = _schema_utils.validate_schema(self.output_schema, text)
      except (ValidationError, ValueError) as exc:
        # As in ADK the run fails (the answer is not committed); the note says where it came from.
        exc.add_note(f"Agent {self.name!r} answered text that does not match output_schema "
                     f"{_schema_utils.schema_name(self.output_schema)}; nothing was saved to "
                     f"state[{self.output_key!r}].")
        raise
    event.actions.state_delta[self.output_key] = value


async def _resolve_instruction(value, ctx: ReadonlyContext) -> tuple[str, bool]:
  if isinstance(value, str):
    return value, False
  out = value(ctx)
  if inspect.isawaitable(out):
    out = await out
  return str(out), True


Agent = LlmAgent
