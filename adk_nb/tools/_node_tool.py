"""NodeTool (ADK 2.x `google.adk.tools._node_tool.NodeTool`): a workflow node offered to a model as a tool.

A Workflow, a function node or any other BaseNode (not an agent: agents are sub-agents, or
AgentTool) is declared to the model from its `input_schema`, and each call runs the node with
the call's arguments as its input; the node's output is the function response
(`{'result': None}` when it has none). Putting a Workflow or a node directly in
`LlmAgent(tools=[...])` wraps it in a NodeTool, as google-adk does.

The node runs in a nested run of its own (an in-memory session started from a copy of the
caller's state, whose state writes are merged back; artifacts are the caller's), through the same
driver as an AgentTool's agent (`tools/_nested_run.py`). A run that ends on an error event without
an output answers `{'error': ...}` naming it; an exception raised by the node propagates as a
FunctionTool's own would. A node that asks for input (a RequestInput, a confirmation or a long-running
call inside it) pauses the caller's turn: its pending calls are raised to the caller's
invocation with the same ids, and the answers continue the node where it stopped. Unlike
google-adk, the node's own events (its progress messages, the RequestInput event itself) are
kept in that nested session, not in the caller's: the caller's session holds the tool call, the
raised pending calls and the function response.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from google.genai import types
from pydantic import BaseModel, TypeAdapter, ValidationError

from ._nested_run import NestedOutcome, NestedPause, nested_runner, resume_nested, start_nested
from .base_tool import BaseTool
from .tool_context import ToolContext

if TYPE_CHECKING:
  from ..workflow._base_node import BaseNode

_NO_SCHEMA = ("does not have an input_schema defined, so NodeTool cannot tell the model what arguments to send: set "
              "node.input_schema = MyArgs (a pydantic model), or give its entry nodes typed inputs.")


def _json_schema(schema: Any) -> dict[str, Any]:
  """A JSON schema for a type, a pydantic model, a genai Schema or a JSON-schema dict."""
  if isinstance(schema, dict):
    return schema
  if isinstance(schema, types.Schema):
    return schema.model_dump(mode="json", exclude_none=True)
  from ._function_schema import _strip_titles

  return _strip_titles(TypeAdapter(schema).json_schema())


def _is_object_schema(schema: Any) -> bool:
  return _json_schema(schema).get("type") == "object"


def _entry_nodes(workflow: Any) -> list[Any]:
  """The nodes the workflow's START leads to that take the input as it is (a JoinNode does not)."""
  graph = getattr(workflow, "graph", None)
  if graph is None:
    return []
  return [e.to_node for e in graph.edges
          if getattr(e.from_node, "name", None) == "__START__" and not e.to_node._requires_all_predecessors]


def _input_schema_of(node: Any) -> tuple[bool, Any]:
  """(known, schema): whether the node's tool input is known, and its schema (None: no arguments)."""
  from ..agents.llm_agent import LlmAgent
  from ..workflow._function_node import FunctionNode
  from ..workflow._workflow import Workflow

  schema = getattr(node, "input_schema", None)
  if schema is not None:
    return True, schema
  if isinstance(node, FunctionNode):
    param = next((p for p in node._params if p.kind == "input"), None)
    if param is None:
      return True, None
    hint = param.annotation
    if hint in (None, Any, object) or hint is param.empty:
      return False, None
    try:
      TypeAdapter(hint).json_schema()
    except Exception:
      return False, None
    return True, hint
  if isinstance(node, Workflow):
    entries = _entry_nodes(node)
    if not entries:
      return False, None
    schemas = []
    for entry in entries:
      known, schema = _input_schema_of(entry)
      if not known:
        return False, None
      if schema is not None:
        schemas.append(schema)
    if not schemas:
      return True, None
    if all(s == schemas[0] for s in schemas[1:]):
      return True, schemas[0]
    return False, None
  if isinstance(node, LlmAgent):
    return True, str
  return False, None


def _arg_error(name: str, detail: Any) -> dict[str, str]:
  """The answer the model reads for arguments the node refuses (it can call again, corrected)."""
  return {"error": f"`{name}` did not run: its arguments do not fit its schema.\n{detail}\n"
                   "Call it again with arguments of the right types."}


class NodeTool(BaseTool):
  """Offers a node (a Workflow, a function node, any BaseNode but an agent) to a model as a tool.

  Args:
    node: the node to run for each call. A function node whose parameters are read from state is
      copied with `parameter_binding='node_input'` (its parameters become the tool's arguments);
      a Workflow without `input_schema` takes the schema of the nodes START leads to; any other
      node needs an `input_schema` (ValueError otherwise).
    name: the tool's name (default: the node's).
    description: the tool's description (default: the node's, else "Runs the workflow node <name>.").
  """

  def __init__(self, node: "BaseNode", name: Optional[str] = None, description: Optional[str] = None):
    from ..agents.base_agent import BaseAgent
    from ..workflow._base_node import BaseNode
    from ..workflow._function_node import FunctionNode
    from ..workflow._workflow import Workflow

    if isinstance(node, BaseAgent) and not isinstance(node, Workflow):
      raise ValueError(f"Agent '{node.name}' cannot be wrapped as a NodeTool: list it in sub_agents=[...] to "
                       "hand the conversation over, or wrap it with AgentTool(agent) to call it as a tool.")
    if not isinstance(node, (BaseNode, BaseAgent)):
      raise TypeError(f"NodeTool(node=...) takes a node (a Workflow, a function node, a BaseNode), not "
                      f"{type(node).__name__}; wrap a plain function with FunctionTool instead.")
    if isinstance(node, FunctionNode) and node.parameter_binding != "node_input":
      node = _as_node_input_binding(node)
    elif isinstance(node, Workflow) and node.input_schema is None:
      known, schema = _input_schema_of(node)
      if not known:
        raise ValueError(f"Node '{node.name}' {_NO_SCHEMA}")
      if schema is not None:
        node = node.model_copy(update={"input_schema": schema})
    elif not isinstance(node, FunctionNode) and getattr(node, "input_schema", None) is None:
      raise ValueError(f"Node '{node.name}' {_NO_SCHEMA}")
    self.node = node
    """The node each call runs (a copy when the binding or schema had to be filled in)."""
    super().__init__(name=name or node.name,
                     description=description or node.description or f"Runs the workflow node {node.name}.")

  # ---- what the model sees ------------------------------------------------------------------------

  def _get_declaration(self) -> types.FunctionDeclaration:
    decl = types.FunctionDeclaration(name=self.name, description=self.description)
    schema = getattr(self.node, "input_schema", None)
    if schema is not None:
      params = _json_schema(schema)
      if params.get("type") != "object":
        # The API takes object parameters only: a primitive input travels as the 'request' argument.
        params = {"type": "object", "properties": {"request": params}, "required": ["request"]}
      decl.parameters_json_schema = params
    output_schema = getattr(self.node, "output_schema", None)
    if output_schema is not None:
      decl.response_json_schema = _json_schema(output_schema)
    return decl

  def _node_input(self, args: dict[str, Any]) -> Any:
    """The node's input for these arguments; raises ValueError / ValidationError on bad ones."""
    from ..workflow._values import validate

    schema = getattr(self.node, "input_schema", None)
    if schema is not None and not _is_object_schema(schema):
      if "request" not in args:
        raise ValueError('the argument "request" is required and was not sent.')
      data = args["request"]
    else:
      data = dict(args)
    if schema is not None and not isinstance(schema, (dict, types.Schema)):
      return validate(schema, data)
    return data

  # ---- running ------------------------------------------------------------------------------------

  def _runner(self, tool_context: ToolContext, node_input: Any, result: dict[str, Any]):
    """A nested Runner whose root workflow runs the node once on `node_input` and keeps its output
    in `result["output"]` (a node's answer is its output, not a text it says)."""
    from ..workflow._function_node import FunctionNode
    from ..workflow._workflow import Workflow

    node = self.node

    async def call_node(ctx):
      result["output"] = output = await ctx.run_node(node, node_input=node_input, use_as_output=True)
      return output

    root = Workflow(name=_identifier(self.name), edges=[
        ("START", FunctionNode(func=call_node, name=node.name, rerun_on_resume=True))])
    return nested_runner(tool_context, root)

  async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
    try:
      node_input = self._node_input(args or {})
    except (ValueError, ValidationError) as exc:  # pydantic's ValidationError is a ValueError
      return _arg_error(self.name, exc)
    result: dict[str, Any] = {}
    runner = self._runner(tool_context, node_input, result)
    message = types.Content(role="user", parts=[types.Part(text=f"Call {self.name}")])
    outcome = await start_nested(runner, tool_context, message, tool_name=self.name, args=args)
    return self._answer(outcome, result)

  async def resume(self, nested: dict[str, Any], answers: list[types.FunctionResponse],
                   tool_context: ToolContext) -> Any:
    """Continues a paused node with the answers to its pending calls."""
    args = dict((nested.get("tool_call") or {}).get("args") or {})
    result: dict[str, Any] = {}
    runner = self._runner(tool_context, self._node_input(args), result)
    return self._answer(await resume_nested(runner, tool_context, nested, answers), result)

  def _answer(self, outcome: "NestedOutcome | NestedPause", result: dict[str, Any]) -> Any:
    """The function response: the node's output (`{'result': None}` when it has none), an error if
    the run ended on one without an output, or the pause itself. Unlike AgentTool, what the node
    says as text is not its answer: its output is."""
    if isinstance(outcome, NestedPause):
      return outcome
    output = result.get("output")
    if output is None:
      if outcome.error:
        return {"error": f"Node `{self.name}` failed: {outcome.error}"}
      return {"result": None}
    if isinstance(output, BaseModel):
      return output.model_dump(mode="json")
    return output


def _identifier(name: str) -> str:
  cleaned = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name) or "node_tool"
  return cleaned if cleaned.isidentifier() else f"t_{cleaned}"


def _as_node_input_binding(node: Any) -> Any:
  """A copy of a function node whose parameters are read from its (dict) input, as google-adk's
  `_as_tool_node()`; the input schema is then inferred from its parameters unless it has one."""
  fields = {name: getattr(node, name) for name in node.model_fields_set if name != "parameter_binding"}
  fields.setdefault("func", node.func)
  fields.setdefault("name", node.name)
  return type(node)(**fields, parameter_binding="node_input")


def wrap_node_as_tool(node: Any) -> NodeTool:
  """What `LlmAgent(tools=[node])` makes of a node: a NodeTool (an agent is refused: use sub_agents)."""
  from ..agents.base_agent import BaseAgent
  from ..workflow._workflow import Workflow

  if isinstance(node, BaseAgent) and not isinstance(node, Workflow):
    raise ValueError(f"An agent ('{node.name}') is not a tool by itself: list it in sub_agents=[...] to hand "
                     "the conversation over, or wrap it with AgentTool(agent) to call it as a tool.")
  return NodeTool(node=node, description=node.description)


__all__ = ["NodeTool"]
