"""google-adk's (private) declaration helpers, at its path, returning what google-adk 2.13 returns.

- `build_function_declaration(func, ignore_params, variant)`: the declaration as JSON schema
  (`parameters_json_schema`, pydantic's schema of the parameters, as `FunctionTool` sends it); with
  `variant=VERTEX_AI` also the return type as `response_json_schema`. When the environment selects
  Vertex AI (`GOOGLE_GENAI_USE_VERTEXAI=1`) `Optional` types are written as `nullable` (see
  `tools._declaration_variants`). A pydantic model class declares its fields (`ignore_params` does
  not apply to it, as in google-adk).
- `from_function_with_options(func, variant)`: the older form, `types.Schema` objects (`parameters`;
  for Vertex AI also `response`: no annotation is any value, `-> None` is null).
"""

from __future__ import annotations

import inspect
import typing
from typing import Any, Callable, Optional

from google.genai import types
from pydantic import BaseModel, TypeAdapter

from ..utils.variant_utils import GoogleLLMVariant, get_google_llm_variant
from ._declaration_variants import for_vertex, response_json_schema
from ._function_schema import FunctionSignature, unwrap_partial


def _to_schema(json_schema: dict[str, Any], variant: GoogleLLMVariant) -> types.Schema:
  return types.Schema.from_json_schema(json_schema=types.JSONSchema.model_validate(json_schema),
                                       api_option=variant.value)


def _response_schema(func: Callable[..., Any], variant: GoogleLLMVariant) -> Optional[types.Schema]:
  if variant is not GoogleLLMVariant.VERTEX_AI:
    return None
  signature = inspect.signature(func)
  annotation = signature.return_annotation
  if annotation is inspect.Signature.empty:
    return types.Schema()  # any value
  try:
    annotation = typing.get_type_hints(func).get("return", annotation)
  except Exception:  # noqa: BLE001 - an unresolvable forward reference: describe what we can
    pass
  if annotation is None or annotation is type(None):
    return types.Schema(type=types.Type.NULL)
  try:
    return _to_schema(TypeAdapter(annotation).json_schema(), variant)
  except Exception:  # noqa: BLE001 - a return type pydantic cannot describe: any value
    return types.Schema()


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


def build_function_declaration(func: Any, ignore_params: Optional[list[str]] = None,
                               variant: GoogleLLMVariant = GoogleLLMVariant.GEMINI_API) -> types.FunctionDeclaration:
  """The declaration a model receives for `func` (a function or a pydantic model class), as JSON schema."""
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
  if variant is GoogleLLMVariant.VERTEX_AI:
    response = response_json_schema(func)
    if response:
      declaration.response_json_schema = for_vertex(response) if vertex_env else response
  return declaration


def from_function_with_options(func: Callable[..., Any],
                               variant: GoogleLLMVariant = GoogleLLMVariant.GEMINI_API) -> types.FunctionDeclaration:
  """The declaration as `types.Schema` objects (google-adk's older form; see the module docstring)."""
  name, schema = _schema_without(func, None)
  target = unwrap_partial(func)
  parameters = _to_schema(schema, variant) if schema["properties"] else None
  return types.FunctionDeclaration(name=name, description=inspect.getdoc(target) or None,
                                   parameters=parameters, response=_response_schema(target, variant))
