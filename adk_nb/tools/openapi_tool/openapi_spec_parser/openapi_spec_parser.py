"""Reads an OpenAPI 3 spec into one `ParsedOperation` per path and method, `$ref`s resolved."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Optional
from urllib.parse import urlsplit

from ..._json_schema import SchemaError, inline_refs
from ....errors.adk_nb_error import AdkNbError

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
MAX_TOOL_NAME = 60


class OpenApiSpecError(AdkNbError, ValueError):
  """The spec cannot be turned into tools; the message names the operation and the problem."""


def to_snake_case(text: str) -> str:
  """'getPetById' -> 'get_pet_by_id', '/pets/{petId}' -> 'pets_pet_id'."""
  text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
  text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", text)
  text = re.sub(r"[^A-Za-z0-9]+", "_", text)
  return text.strip("_").lower()


@dataclass
class ApiParameter:
  """One argument the model gives, and where it goes in the request."""

  py_name: str
  """The name the model sees (snake_case)."""
  original_name: str
  """The name in the request (as the spec spells it)."""
  location: str
  """'path', 'query', 'header', 'cookie' or 'body' (a property of a JSON object body)."""
  schema: dict[str, Any] = field(default_factory=dict)
  required: bool = False
  description: str = ""


@dataclass
class ParsedOperation:
  """One operation of the spec, ready to become a RestApiTool."""

  name: str
  """The tool name (snake_case operationId, or path and method)."""
  description: str
  method: str
  """Upper-case HTTP method."""
  base_url: str
  path: str
  """The path template, e.g. '/pets/{petId}'."""
  parameters: list[ApiParameter]
  body_whole: Optional[ApiParameter] = None
  """Set when the JSON body is not an object with properties: the whole body is one argument."""
  operation: dict[str, Any] = field(default_factory=dict)
  """The operation as written in the spec, `$ref`s resolved."""

  @property
  def label(self) -> str:
    return f"{self.method} {self.path}"

  def json_schema(self) -> dict[str, Any]:
    """The parameters schema the model sees."""
    params = self.parameters + ([self.body_whole] if self.body_whole else [])
    properties = {}
    for p in params:
      prop = dict(p.schema)
      if p.description and "description" not in prop:
        prop["description"] = p.description
      properties[p.py_name] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    required = [p.py_name for p in params if p.required]
    if required:
      schema["required"] = required
    return schema


def load_spec(spec_dict: Optional[dict[str, Any]], spec_str: Optional[str], spec_str_type: str) -> dict[str, Any]:
  """The spec as a dict, from a dict or a JSON/YAML string."""
  if spec_dict is not None:
    spec = spec_dict
  elif spec_str is not None:
    if spec_str_type not in ("json", "yaml"):
      raise OpenApiSpecError(f"spec_str_type must be 'json' or 'yaml', not {spec_str_type!r}.")
    try:
      if spec_str_type == "json":
        spec = json.loads(spec_str)
      else:
        import yaml

        spec = yaml.safe_load(spec_str)
    except Exception as exc:  # noqa: BLE001 - the parser's own message says where
      raise OpenApiSpecError(f"The OpenAPI spec is not valid {spec_str_type.upper()}: {exc}") from None
  else:
    raise OpenApiSpecError("OpenAPIToolset needs spec_dict=... or spec_str=... (with spec_str_type='json' or 'yaml').")
  if not isinstance(spec, dict):
    raise OpenApiSpecError(f"The OpenAPI spec must be a mapping at the top level, not {type(spec).__name__}.")
  version = str(spec.get("openapi", ""))
  if not version.startswith("3."):
    found = f"swagger {spec['swagger']!r}" if "swagger" in spec else f"openapi {version!r}" if version else "no 'openapi' field"
    raise OpenApiSpecError(f"Only OpenAPI 3.x specs are supported; this one has {found}. Convert Swagger 2.0 "
                           "specs to OpenAPI 3 first.")
  if not isinstance(spec.get("paths"), dict):
    raise OpenApiSpecError("The OpenAPI spec has no 'paths' mapping, so it describes no operations.")
  return spec


def base_url_of(spec: dict[str, Any]) -> str:
  servers = spec.get("servers") or []
  server = servers[0] if servers and isinstance(servers[0], dict) else {}
  url = str(server.get("url", ""))
  for var, value in (server.get("variables") or {}).items():
    url = url.replace("{" + var + "}", str((value or {}).get("default", "")))
  parts = urlsplit(url)
  if parts.scheme not in ("http", "https") or not parts.netloc:
    raise OpenApiSpecError(
        f"The OpenAPI spec's first server URL {url!r} is not an absolute http(s) URL; set "
        "servers: [{url: 'https://api.example.com/v1'}] in the spec.")
  return url.rstrip("/")


class OpenApiSpecParser:
  """Turns a spec dict into ParsedOperations."""

  def __init__(self, preserve_property_names: bool = False) -> None:
    self._preserve = preserve_property_names

  def parse(self, spec: dict[str, Any]) -> list[ParsedOperation]:
    base_url = base_url_of(spec)
    operations = []
    seen: dict[str, str] = {}
    for path, item in spec["paths"].items():
      if not isinstance(item, dict):
        raise OpenApiSpecError(f"Path {path!r} in the OpenAPI spec must be a mapping of methods to operations.")
      for method in METHODS:
        if method not in item:
          continue
        label = f"{method.upper()} {path}"
        try:
          op = self._operation(spec, path, method, item, base_url)
        except SchemaError as exc:
          raise OpenApiSpecError(f"OpenAPI operation {label}: {exc}") from None
        if op.name in seen:
          raise OpenApiSpecError(f"OpenAPI operations {seen[op.name]} and {label} both become tool {op.name!r}; "
                                 "give them distinct operationIds.")
        seen[op.name] = label
        operations.append(op)
    return operations

  def _name(self, text: str) -> str:
    return text if self._preserve else to_snake_case(text)

  def _operation(self, spec, path, method, item, base_url) -> ParsedOperation:
    label = f"{method.upper()} {path}"
    raw = item[method]
    if not isinstance(raw, dict):
      raise OpenApiSpecError(f"OpenAPI operation {label} must be a mapping.")
    # Responses are not needed to call the operation (and may hold recursive schemas).
    op = inline_refs({k: v for k, v in raw.items() if k != "responses"}, spec, keep_titles=True)
    shared = inline_refs(item.get("parameters") or [], spec)
    own = op.get("parameters") or []
    overridden = {(p.get("name"), p.get("in")) for p in own if isinstance(p, dict)}
    declared = own + [p for p in shared if (p.get("name"), p.get("in")) not in overridden]
    params: list[ApiParameter] = []
    for index, p in enumerate(declared):
      if not isinstance(p, dict) or not p.get("name") or p.get("in") not in ("path", "query", "header", "cookie"):
        raise OpenApiSpecError(f"OpenAPI operation {label}: parameter #{index + 1} needs a 'name' and an 'in' of "
                               "path, query, header or cookie.")
      schema = _clean(p.get("schema") or {"type": "string"})
      params.append(ApiParameter(self._name(p["name"]), p["name"], p["in"], schema,
                                 required=bool(p.get("required")) or p["in"] == "path",
                                 description=p.get("description", "")))
    for name in re.findall(r"{([^}]+)}", path):
      if not any(p.location == "path" and p.original_name == name for p in params):
        raise OpenApiSpecError(f"OpenAPI operation {label}: path parameter {{{name}}} is not declared in 'parameters'.")
    body_whole = None
    body = op.get("requestBody") or {}
    content = body.get("content") or {}
    media = content.get("application/json") or next(
        (v for k, v in content.items() if k.endswith("+json")), None)
    if content and media is None:
      raise OpenApiSpecError(f"OpenAPI operation {label}: only JSON request bodies are supported "
                             f"(this one takes {', '.join(content)}); leave the operation out with tool_filter.")
    if media is not None:
      schema = _clean((media or {}).get("schema") or {})
      required = set(schema.get("required") or [])
      if schema.get("type", "object") == "object" and schema.get("properties"):
        taken = {p.py_name for p in params}
        for prop, sub in schema["properties"].items():
          py = self._name(prop)
          if py in taken:
            py = f"body_{py}"
          params.append(ApiParameter(py, prop, "body", sub, required=prop in required,
                                     description=sub.get("description", "") if isinstance(sub, dict) else ""))
      else:
        body_whole = ApiParameter("body", "body", "body", schema, required=bool(body.get("required")),
                                  description=body.get("description", ""))
    name = self._name(op.get("operationId") or f"{path}_{method}")[:MAX_TOOL_NAME] or method
    description = op.get("description") or op.get("summary") or f"{method.upper()} {path}"
    return ParsedOperation(name=name, description=description, method=method.upper(), base_url=base_url,
                           path=path, parameters=params, body_whole=body_whole, operation=op)


def _clean(schema: Any) -> dict[str, Any]:
  """A parameter schema without titles (refs are already inlined)."""
  if not isinstance(schema, dict):
    return {}
  return {k: (_clean(v) if k in ("items", "additionalProperties") else
              {n: _clean(s) for n, s in v.items()} if k == "properties" and isinstance(v, dict) else v)
          for k, v in schema.items() if k not in ("title", "xml", "example", "examples")}
