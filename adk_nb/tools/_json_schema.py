"""JSON Schemas from MCP servers and OpenAPI specs, made self-contained for function declarations.

Model providers accept a subset of JSON Schema; local `$ref`s (to `#/$defs/...`,
`#/definitions/...` or, in OpenAPI, `#/components/schemas/...`) are inlined so the declaration
stands alone. A schema that cannot be inlined (a recursive or external `$ref`) raises
`SchemaError` naming the reference.
"""

from __future__ import annotations

from typing import Any, Optional
from ..errors.adk_nb_error import AdkNbError


class SchemaError(AdkNbError, ValueError):
  """A schema cannot be turned into a function declaration."""


# Keys that only help humans or validators, dropped to keep declarations small.
_DROP = {"$schema", "$id", "$defs", "definitions", "title", "$comment", "examples"}


def inline_refs(schema: Any, root: Optional[dict[str, Any]] = None, *, keep_titles: bool = False) -> Any:
  """`schema` with every local `$ref` replaced by a copy of its target (resolved against `root`)."""
  return _walk(schema, root if root is not None else schema, (), keep_titles)


def _resolve(ref: str, root: dict[str, Any]) -> Any:
  if not ref.startswith("#/"):
    raise SchemaError(f"$ref {ref!r} points outside the document; only local references ('#/...') can be inlined.")
  node: Any = root
  for part in ref[2:].split("/"):
    part = part.replace("~1", "/").replace("~0", "~")
    if not isinstance(node, dict) or part not in node:
      raise SchemaError(f"$ref {ref!r} names nothing in the schema.")
    node = node[part]
  return node


def _walk(node: Any, root: dict[str, Any], chain: tuple[str, ...], keep_titles: bool) -> Any:
  if isinstance(node, list):
    return [_walk(item, root, chain, keep_titles) for item in node]
  if not isinstance(node, dict):
    return node
  ref = node.get("$ref")
  if isinstance(ref, str):
    if ref in chain:
      raise SchemaError(f"$ref {ref!r} is recursive; a function declaration cannot express it.")
    target = _walk(_resolve(ref, root), root, chain + (ref,), keep_titles)
    siblings = {k: _walk(v, root, chain, keep_titles) for k, v in node.items() if k != "$ref" and k not in _DROP}
    return {**target, **siblings} if isinstance(target, dict) else target
  out = {}
  for key, value in node.items():
    if key in _DROP and not (keep_titles and key == "title"):
      continue
    if key == "properties" and isinstance(value, dict):  # property names are data, not keywords
      out[key] = {name: _walk(sub, root, chain, keep_titles) for name, sub in value.items()}
    else:
      out[key] = _walk(value, root, chain, keep_titles)
  return out


def object_schema(schema: Any) -> dict[str, Any]:
  """A tool's parameters schema: an object schema (an empty one when the tool takes nothing)."""
  if schema is None or schema == {}:
    return {"type": "object", "properties": {}}
  if not isinstance(schema, dict):
    raise SchemaError(f"the input schema must be a JSON object, not {type(schema).__name__}.")
  flat = inline_refs(schema)
  kind = flat.get("type", "object")
  if kind != "object":
    raise SchemaError(f"the input schema must describe an object (type 'object'), not type {kind!r}.")
  flat.setdefault("type", "object")
  flat.setdefault("properties", {})
  return flat


def schema_problems(schema: dict[str, Any], value: Any) -> list[str]:
  """What is wrong with `value` under `schema`, one line per problem ('where: what'); [] when it fits."""
  import jsonschema  # light, and installed with nbformat; only needed when arguments are checked

  validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
  try:
    validator_class.check_schema(schema)
  except jsonschema.SchemaError:
    return []  # a schema the validator cannot read: the tool's own side decides
  errors = sorted(validator_class(schema).iter_errors(value), key=lambda e: list(map(str, e.absolute_path)))
  return [f"{'.'.join(map(str, e.absolute_path)) or '(arguments)'}: {e.message}" for e in errors]
