"""What a function declaration adds or rewrites when Vertex AI is the backend (as google-adk 2.13).

- `for_vertex(schema)`: Vertex AI wants a `type` on every schema, which pydantic's `anyOf: [X, null]`
  for `Optional[X]` lacks. Such an `anyOf` becomes X itself marked `nullable: true`; a union of several
  types with null keeps its `anyOf` of the non-null types, marked `nullable`. Other schemas are unchanged.
- `response_json_schema(func)`: the return annotation's JSON schema, sent to Vertex AI only (the
  Gemini API rejects it); None without an annotation or when pydantic cannot describe the type. A
  generator's is its yield type's.

Selecting Vertex AI (`GOOGLE_GENAI_USE_VERTEXAI=1`, see `adk_nb.utils.variant_utils`) only changes
how declarations are written: building one needs no credentials and reaches no network.
"""

from __future__ import annotations

import collections.abc
import inspect
import logging
import os
import typing
from typing import Any, Callable, Optional

from ..utils.variant_utils import GoogleLLMVariant, get_google_llm_variant
from ._function_schema import unwrap_partial

logger = logging.getLogger(__name__)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
  options = schema.get("anyOf")
  if not isinstance(options, list) or len(options) < 2:
    return schema
  nulls = [o for o in options if isinstance(o, dict) and o.get("type") == "null"]
  if len(nulls) != 1:
    return schema
  others = [o for o in options if o is not nulls[0]]
  if len(others) == 1:
    merged = dict(others[0])
    for key, value in schema.items():
      if key != "anyOf" and key not in merged:
        merged[key] = value
  else:
    merged = {**schema, "anyOf": others}
  merged["nullable"] = True
  return merged


def for_vertex(schema: Any) -> Any:
  """A copy of `schema` with every `Optional` `anyOf` (at any depth) rewritten as `nullable` (see above)."""
  if isinstance(schema, list):
    return [for_vertex(item) for item in schema]
  if not isinstance(schema, dict):
    return schema
  return _nullable({key: for_vertex(value) for key, value in schema.items()})


def response_json_schema(func: Callable[..., Any]) -> Optional[dict[str, Any]]:
  """The JSON schema of what `func` returns (see the module docstring)."""
  from pydantic import TypeAdapter

  target = unwrap_partial(func)
  try:
    annotation = inspect.signature(target).return_annotation
  except (TypeError, ValueError):
    return None
  if annotation is inspect.Signature.empty:
    return None
  hints_of = target if inspect.isroutine(target) or isinstance(target, type) else getattr(target, "__call__", target)
  try:
    annotation = typing.get_type_hints(hints_of, include_extras=True).get("return", annotation)
  except Exception:  # noqa: BLE001 - an unresolvable forward reference: no response schema
    return None
  if isinstance(annotation, str):
    return None
  if typing.get_origin(annotation) in (collections.abc.Generator, collections.abc.AsyncGenerator):
    args = typing.get_args(annotation)
    annotation = args[0] if args else Any
  try:
    return TypeAdapter(annotation).json_schema()
  except Exception:  # noqa: BLE001 - a type pydantic cannot describe: the model gets no response schema
    logger.debug("No response schema for %r: pydantic cannot describe its return type.", func)
    return None


_ENV = os.environ
_ENTERPRISE, _VERTEXAI = "GOOGLE_GENAI_USE_ENTERPRISE", "GOOGLE_GENAI_USE_VERTEXAI"
try:  # CPython's mapping behind os.environ: one dict lookup instead of encoding the name on every call
  _RAW = _ENV._data  # type: ignore[attr-defined]
  _RAW_KEYS = (_ENV.encodekey(_ENTERPRISE), _ENV.encodekey(_VERTEXAI))  # type: ignore[attr-defined]
except AttributeError:  # pragma: no cover - another Python: ask os.environ itself
  _RAW = None


def vertex_selected() -> bool:
  """Whether the environment selects Vertex AI now: `get_google_llm_variant()` as one dict lookup,
  since a tool's declaration is asked for on every model call (os.environ.get costs ~10x that)."""
  if _RAW is not None and _RAW.get(_RAW_KEYS[0]) is None and _RAW.get(_RAW_KEYS[1]) is None:
    return False  # neither variable is set: the Gemini API
  return get_google_llm_variant() is GoogleLLMVariant.VERTEX_AI
