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
from pydantic import TypeAdapter

from ..utils.variant_utils import GoogleLLMVariant
from ._function_tool_declarations import _schema_without, build_function_declaration_with_json_schema
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


def build_function_declaration(func: Any, ignore_params: Optional[list[str]] = None,
                               variant: GoogleLLMVariant = GoogleLLMVariant.GEMINI_API) -> types.FunctionDeclaration:
  """The declaration a model receives for `func` (a function or a pydantic model class), as JSON schema."""
  declaration = build_function_declaration_with_json_schema(func, ignore_params)
  if variant is not GoogleLLMVariant.VERTEX_AI:
    declaration.response_json_schema = None  # the Gemini API rejects it
  return declaration


def from_function_with_options(func: Callable[..., Any],
                               variant: GoogleLLMVariant = GoogleLLMVariant.GEMINI_API) -> types.FunctionDeclaration:
  """The declaration as `types.Schema` objects (google-adk's older form; see the module docstring)."""
  name, schema = _schema_without(func, None)
  target = unwrap_partial(func)
  parameters = _to_schema(schema, variant) if schema["properties"] else None
  return types.FunctionDeclaration(name=name, description=inspect.getdoc(target) or None,
                                   parameters=parameters, response=_response_schema(target, variant))
