"""Function declarations as google-genai `Schema` objects, at google-adk's (private) path.

adk_nb's own tools declare their parameters as JSON schema (`parameters_json_schema`, derived once by
`tools._function_schema`); code written against google-adk's helpers gets the same schema converted to
`types.Schema`, with the backend difference google-adk makes: Vertex AI also receives the return
type as `response` (no annotation: any value; `-> None`: null), the Gemini API does not.
"""

from __future__ import annotations

import inspect
import typing
from typing import Any, Callable, Optional

from google.genai import types
from pydantic import TypeAdapter

from ..utils.variant_utils import GoogleLLMVariant
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


def build_function_declaration(func: Callable[..., Any], ignore_params: Optional[list[str]] = None,
                               variant: GoogleLLMVariant = GoogleLLMVariant.GEMINI_API) -> types.FunctionDeclaration:
  """The declaration a model receives for `func` (its name, docstring and parameters)."""
  target = unwrap_partial(func)
  name = getattr(target, "__name__", type(target).__name__)
  signature = FunctionSignature(func, name)
  schema = dict(signature.json_schema)
  for ignored in ignore_params or ():
    schema.get("properties", {}).pop(ignored, None)
    if ignored in schema.get("required", []):
      schema["required"] = [r for r in schema["required"] if r != ignored]
  parameters = _to_schema(schema, variant) if schema.get("properties") else None
  return types.FunctionDeclaration(name=name, description=inspect.getdoc(target) or None,
                                   parameters=parameters, response=_response_schema(target, variant))


def from_function_with_options(func: Callable[..., Any],
                               variant: GoogleLLMVariant = GoogleLLMVariant.GEMINI_API) -> types.FunctionDeclaration:
  """google-adk's name for `build_function_declaration` without ignored parameters."""
  return build_function_declaration(func, variant=variant)
