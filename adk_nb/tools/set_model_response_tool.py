"""set_model_response: how an agent with both tools and an output_schema gives its structured answer."""

from __future__ import annotations

from typing import Any, Optional

from google.genai import types
from pydantic import TypeAdapter, ValidationError

from ..utils import _schema_utils

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

  def __init__(self, output_schema: Any):
    super().__init__(
        name=SET_MODEL_RESPONSE,
        description=(
            "Give your final answer by calling this function once you are done using other tools; "
            "its arguments are the structured answer."
        ),
    )
    if isinstance(output_schema, types.Schema):
      output_schema = output_schema.model_dump(exclude_none=True)
    self.output_schema = output_schema
    self._model_type = output_schema if _schema_utils.is_basemodel_schema(output_schema) else None
    # Another schema is one parameter, as google-adk names it: `items` for list[Model], else `response`.
    self._key = None if self._model_type is not None else (
        "items" if _schema_utils.is_list_of_basemodel(output_schema) else "response")
    self._adapter = None if isinstance(output_schema, dict) or self._key is None else TypeAdapter(output_schema)
    if self._key is None:
      schema = _strip_titles(output_schema.model_json_schema())
      schema["type"] = "object"
    else:
      inner = ({"type": "object"} if isinstance(output_schema, dict)
               else _strip_titles(self._adapter.json_schema()))
      defs = inner.pop("$defs", None)
      schema = {"type": "object", "properties": {self._key: inner}, "required": [self._key],
                **({"$defs": defs} if defs else {})}
    self._declaration = types.FunctionDeclaration(
        name=self.name, description=self.description, parameters_json_schema=schema
    )

  def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
    return self._declaration

  async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
    try:
      if self._key is None:
        return self._model_type.model_validate(args).model_dump(mode="json", exclude_none=True)
      value = args.get(self._key)
      if self._adapter is None:  # a raw JSON-schema dict: the value as given, as google-adk
        return value
      value = self._adapter.validate_python(value)
      if _schema_utils.is_list_of_basemodel(self.output_schema):
        return [item.model_dump(mode="json", exclude_none=True) for item in value]
      return self._adapter.dump_python(value, mode="json")
    except ValidationError as exc:
      problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
      return {"error": f"The answer does not match {_schema_utils.schema_name(self.output_schema)}: {problems}. "
                       f"Call {SET_MODEL_RESPONSE} again with corrected arguments."}
