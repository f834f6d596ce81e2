"""AgentTool: another agent offered to a model as a tool, run in an isolated nested invocation."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional

from google.genai import types
from pydantic import ValidationError

# NestedPause is imported from here by the flows that raise a paused call to the caller.
from ._nested_run import NestedOutcome, NestedPause, nested_runner, resume_nested, start_nested
from ._declaration_variants import for_vertex, vertex_selected
from .base_tool import BaseTool
from .tool_context import ToolContext

if TYPE_CHECKING:
  from ..agents.base_agent import BaseAgent


class AgentTool(BaseTool):
  """Offers `agent` as a tool. The model delegates a subtask as data and gets the answer back.

  The wrapped agent runs in a nested invocation with its own session: it sees only the
  tool's argument, never the caller's history. It starts from a copy of the caller's
  state, and its state writes are merged back into the caller's state (recorded on the
  function response event). Artifacts are the caller's session's, both ways, as in ADK:
  the agent loads what the caller saved, and what it saves lands in the caller's session
  (in the function response event's artifact_delta). Its final text (validated against `output_schema` when the
  agent has one) is the function response; if the agent ends on an error (an event with an
  error code) before it says anything, the answer is `{"error": ...}` naming it. A request
  inside the agent (a confirmation, a long-running call) pauses the caller's turn, and its
  answer continues the agent. The agent gets no parent link, so one instance can be a tool
  of several agents. The nested run is `_nested_run`'s, shared with NodeTool.

  Args:
    agent: the agent to wrap.
    skip_summarization: end the caller's turn with the tool's answer instead of asking
      the caller's model to summarise it.
  """

  def __init__(self, agent: "BaseAgent", skip_summarization: bool = False, **_: Any):
    super().__init__(name=agent.name, description=agent.description)
    self.agent = agent
    self.skip_summarization = skip_summarization
    self._declarations: dict[bool, types.FunctionDeclaration] = {}  # by: is Vertex AI selected

  def _get_declaration(self) -> types.FunctionDeclaration:
    """As google-adk 2.13 declares an agent: its `input_schema`'s JSON schema (pydantic's, titles kept)
    or one `request` string; with Vertex AI selected, `Optional` fields are `nullable` and the answer
    is declared (`response_json_schema`: an object with an `output_schema`, else a string)."""
    vertex = vertex_selected()
    declaration = self._declarations.get(vertex)
    if declaration is None:
      input_schema = getattr(self.agent, "input_schema", None)
      if input_schema is not None:
        schema = input_schema.model_json_schema()
        if vertex:
          schema = for_vertex(schema)
      else:
        schema = {
            "type": "object",
            "properties": {"request": {"type": "string"}},  # no description, as google-adk declares it
            "required": ["request"],
        }
      declaration = types.FunctionDeclaration(
          name=self.name, description=self.description, parameters_json_schema=schema
      )
      if vertex:
        answer = "object" if getattr(self.agent, "output_schema", None) is not None else "string"
        declaration.response_json_schema = {"type": answer}
      self._declarations[vertex] = declaration
    return declaration

  def _message(self, args: dict[str, Any]) -> types.Content:
    input_schema = getattr(self.agent, "input_schema", None)
    if input_schema is not None:
      try:
        text = input_schema.model_validate(args).model_dump_json(exclude_none=True)
      except ValidationError as exc:
        raise ValueError(
            f"Invalid arguments for agent tool `{self.name}`: {exc.errors()[0]['msg']} "
            f"at {'.'.join(str(p) for p in exc.errors()[0]['loc'])}."
        ) from None
    else:
      text = args.get("request")
      if not isinstance(text, str):
        text = json.dumps(args, default=str)
    return types.Content(role="user", parts=[types.Part(text=text)])

  async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
    if self.skip_summarization:
      tool_context.actions.skip_summarization = True
    try:
      message = self._message(args)
    except ValueError as exc:
      return {"error": str(exc)}
    runner = nested_runner(tool_context, self.agent)
    return self._answer(await start_nested(runner, tool_context, message, tool_name=self.name, args=args))

  async def resume(self, nested: dict[str, Any], answers: list[types.FunctionResponse],
                   tool_context: ToolContext) -> Any:
    """Continues a paused nested run with the answers to its pending calls."""
    if self.skip_summarization:
      tool_context.actions.skip_summarization = True
    runner = nested_runner(tool_context, self.agent)
    return self._answer(await resume_nested(runner, tool_context, nested, answers))

  def _answer(self, outcome: "NestedOutcome | NestedPause") -> Any:
    """The function response for how the agent's run ended: its last text (checked against its
    output_schema), an error if it failed before saying anything, or the pause itself."""
    if isinstance(outcome, NestedPause):
      return outcome
    if outcome.error and outcome.text is None:
      return {"error": f"Agent `{self.name}` failed: {outcome.error}"}
    if outcome.text is None:
      return ""
    output_schema = getattr(self.agent, "output_schema", None)
    if output_schema is not None:
      from ..utils import _schema_utils

      try:
        return _schema_utils.validate_schema(output_schema, outcome.text)
      except ValidationError as exc:
        return {"error": f"Agent `{self.name}` answered text that does not match "
                         f"{_schema_utils.schema_name(output_schema)}: {exc.errors()[0]['msg']}."}
      except ValueError as exc:  # not JSON at all (list[str], a JSON-schema dict...)
        return {"error": f"Agent `{self.name}` answered text that does not match "
                         f"{_schema_utils.schema_name(output_schema)}: {exc}."}
    return outcome.text

