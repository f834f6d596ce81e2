"""Function declarations as JSON schema, at google-adk's (private) path and name.

`build_function_declaration_with_json_schema(func, ignore_params)`: the name, the docstring, the
parameters' JSON schema (pydantic's, as `FunctionTool` sends it; a pydantic model class declares its
fields) and the return type's as `response_json_schema`, for either backend.
`_automatic_function_calling_util.build_function_declaration` drops the response schema unless
asked for Vertex AI. When the environment selects Vertex AI (`GOOGLE_GENAI_USE_VERTEXAI=1`),
`Optional` types are written as `nullable` (see `tools._declaration_variants`).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional

from google.genai import types
from pydantic import BaseModel

from ..utils.variant_utils import GoogleLLMVariant, get_google_llm_variant
from ._declaration_variants import for_vertex, response_json_schema
from ._function_schema import FunctionSignature, unwrap_partial


def _schema_without(func: Callable[..., Any], ignore_params: Optional[list[str]]) -> tuple[str, dict[str, Any]]:
  """(the function's name, its parameters' JSON schema without `ignore_params`)."""
  target = unwrap_partial(func)
  name = getattr(target, "__name__", type(target).__name__)
  schema = FunctionSignature(func, name).json_schema
  if ignore_params:
    schema = dict(schema, properties={k: v for k, v in schema["properties"].items() if k not in ignore_params})
    if "required" in schema:
      schema["required"] = [r for r in schema["required"] if r not in ignore_params]
  return name, schema


def build_function_declaration_with_json_schema(func: Any, ignore_params: Optional[list[str]] = None
                                                ) -> types.FunctionDeclaration:
  """`func`'s declaration as JSON schema, its return type as `response_json_schema` (see the module docstring)."""
  vertex_env = get_google_llm_variant() is GoogleLLMVariant.VERTEX_AI
  if isinstance(func, type) and issubclass(func, BaseModel):
    schema = func.model_json_schema()
    return types.FunctionDeclaration(name=func.__name__, description=inspect.getdoc(func) or None,
                                     parameters_json_schema=for_vertex(schema) if vertex_env else schema)
  name, schema = _schema_without(func, ignore_params)
  target = unwrap_partial(func)
  doc = inspect.getdoc(target)
  if not doc and not inspect.isroutine(target):
    doc = inspect.getdoc(getattr(type(target), "__call__", None))
  declaration = types.FunctionDeclaration(name=name, description=doc or None)
  if schema["properties"]:
    declaration.parameters_json_schema = for_vertex(schema) if vertex_env else schema
  response = response_json_schema(func)
  if response:
    declaration.response_json_schema = for_vertex(response) if vertex_env else response
  return declaration
