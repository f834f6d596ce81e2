"""What an agent's `output_schema` may be, and how a model's JSON answer is read against it.

google-adk 2.x takes any `google.genai.types.SchemaUnion` as `output_schema`: a pydantic model
class, a generic alias (`list[str]`, `list[OrderItem]`, `dict[str, int]`), any other type (`int`,
`Optional[Model]`), a raw JSON-schema dict or a `types.Schema`. The schema goes to the model as
`response_schema` unchanged (google-genai converts it), and the answer is stored as:

- a pydantic model: the validated object as a dict (None fields left out);
- a list of pydantic models: a list of such dicts;
- anything else: the JSON value as parsed (google-adk does not check it against the schema).

A markdown code fence around the whole answer (```json ... ```) is dropped first, as google-adk does.
Module paths mirror google-adk's (`utils/_schema_utils.py`).
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Optional, get_args, get_origin

from google.genai import types
from pydantic import BaseModel, TypeAdapter

_FENCE_TAG = re.compile(r"^[A-Za-z0-9_]*[ \t]*\n?")  # linear: no overlapping quantifiers

SchemaType = types.SchemaUnion
"""What `LlmAgent.output_schema` accepts (google-genai's `SchemaUnion`)."""


def _unannotated(schema: Any) -> Any:
  return get_args(schema)[0] if get_origin(schema) is Annotated else schema


def is_basemodel_schema(schema: Any) -> bool:
  """True for a pydantic model class (also inside `Annotated[...]`)."""
  schema = _unannotated(schema)
  return isinstance(schema, type) and not get_args(schema) and issubclass(schema, BaseModel)


def get_list_inner_type(schema: Any) -> Optional[type[BaseModel]]:
  """The model class of `list[Model]`, else None."""
  schema = _unannotated(schema)
  if get_origin(schema) is not list:
    return None
  args = get_args(schema)
  inner = _unannotated(args[0]) if args else None
  return inner if isinstance(inner, type) and issubclass(inner, BaseModel) else None


def is_list_of_basemodel(schema: Any) -> bool:
  """True for `list[Model]` with a pydantic model class inside."""
  return get_list_inner_type(schema) is not None


def schema_name(schema: Any) -> str:
  """A short name for messages: the model's class name, else the schema's repr."""
  if is_basemodel_schema(schema):
    return _unannotated(schema).__name__
  if isinstance(schema, types.Schema):
    return "types.Schema"
  return repr(schema) if not isinstance(schema, dict) else "a JSON-schema dict"


def schema_to_json_schema(schema: Any) -> dict[str, Any]:
  """The schema as a JSON-schema dict (a dict is returned as given)."""
  if isinstance(schema, dict):
    return schema
  if isinstance(schema, types.Schema):
    return schema.json_schema.model_dump(mode="json", exclude_none=True)
  return TypeAdapter(schema).json_schema()


def check_output_schema(value: Any) -> Any:
  """Returns `value` when google-adk accepts it as an output schema; else a ValueError naming the fix."""
  if value is None or isinstance(value, (dict, types.Schema, type)):
    return value
  if get_origin(value) is not None:  # list[str], dict[str, int], Optional[Model], Model | None, Annotated[...]
    return value
  raise ValueError(
      f"output_schema must be a type or a schema, got {type(value).__name__} {value!r:.60}. Pass a pydantic "
      "model class (output_schema=MyModel), a typed collection (list[str], list[MyModel], dict[str, int]), "
      "a JSON-schema dict or a google.genai types.Schema.")


def strip_json_code_fence(text: str) -> str:
  """The text inside a markdown fence that wraps the whole answer (```json ... ```); else `text`."""
  stripped = text.strip()
  if len(stripped) < 6 or not (stripped.startswith("```") and stripped.endswith("```")):
    return text
  return _FENCE_TAG.sub("", stripped[3:-3], count=1).strip()  # the optional language tag ("json") goes


def validate_schema(schema: Any, json_text: str) -> Any:
  """The value stored for a model's answer `json_text` under `schema` (see the module docstring).

  Raises pydantic's ValidationError when a model (or list of models) does not fit, and ValueError
  naming the problem when the text is not JSON.
  """
  json_text = strip_json_code_fence(json_text)
  if is_basemodel_schema(schema):
    return _unannotated(schema).model_validate_json(json_text).model_dump(exclude_none=True)
  if is_list_of_basemodel(schema):
    items = TypeAdapter(schema).validate_json(json_text)
    return [item.model_dump(exclude_none=True) for item in items]
  try:
    return json.loads(json_text)
  except json.JSONDecodeError as exc:
    raise ValueError(f"Invalid JSON in schema value: {exc}") from exc
