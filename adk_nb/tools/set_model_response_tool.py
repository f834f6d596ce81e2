"""set_model_response: how an agent with both tools and an output_schema gives its structured answer."""

from __future__ import annotations

from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, ValidationError

from ._function_schema import _strip_titles
from .base_tool import BaseTool
from .tool_context import ToolContext

SET_MODEL_RESPONSE = "set_model_response"


class SetModelResponseTool(BaseTool):
  """Offered instead of a response schema when an agent also has tools (as google-adk 2.x does).

  Providers cannot combine function calling with a JSON response schema, so the model gives its
  final structured answer by calling this tool; the flow turns a valid call into the agent's
  final text answer (the JSON), which output_key then stores. Invalid arguments come back as an
  error the model can correct.
  """

  def __init__(self, output_schema: type[BaseModel]):
    super().__init__(
        name=SET_MODEL_RESPONSE,
        description=(
            "Give your final answer by calling this function once you are done using other tools; "
            "its arguments are the structured answer."
        ),
    )
    self.output_schema = output_schema
    schema = _strip_titles(output_schema.model_json_schema())
    schema["type"] = "object"
    self._declaration = types.FunctionDeclaration(
        name=self.name, description=self.description, parameters_json_schema=schema
    )

  def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
    return self._declaration

  async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
    try:
      value = self.output_schema.model_validate(args)
    except ValidationError as exc:
      problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
      return {"error": f"The answer does not match {self.output_schema.__name__}: {problems}. "
                       f"Call {SET_MODEL_RESPONSE} again with corrected arguments."}
    return value.model_dump(mode="json", exclude_none=True)
