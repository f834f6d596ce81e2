"""Derives a tool's JSON schema and argument validator from a Python signature."""

from __future__ import annotations

import functools
import inspect
import re
import typing
from typing import Any, Callable, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from ..errors.adk_nb_error import AdkNbError

_HIDDEN_NAMES = frozenset({"tool_context", "input_stream"})


def _is_context_annotation(annotation: Any) -> bool:
  from ..agents.callback_context import CallbackContext

  return isinstance(annotation, type) and issubclass(annotation, CallbackContext)


def parse_docstring(doc: Optional[str]) -> tuple[str, dict[str, str]]:
  """Splits a Google- or reST-style docstring into (description, {param: description})."""
  if not doc:
    return "", {}
  doc = inspect.cleandoc(doc)
  params: dict[str, str] = {}
  lines = doc.splitlines()
  in_args = False
  current: Optional[str] = None
  for line in lines:
    stripped = line.strip()
    if re.fullmatch(r"(Args|Arguments|Parameters):", stripped):
      in_args = True
      continue
    if in_args:
      if re.fullmatch(r"[A-Z][A-Za-z ]*:", stripped) and not line.startswith((" ", "\t")):
        in_args = False
        continue
      m = re.match(r"\s+(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)", line)
      if m and (len(line) - len(line.lstrip())) <= 4:
        current = m.group(1).lstrip("*")
        params[current] = m.group(3).strip()
      elif current and stripped:
        params[current] = (params[current] + " " + stripped).strip()
    m = re.match(r":param\s+(?:\w+\s+)?(\w+):\s*(.*)", stripped)
    if m:
      params[m.group(1)] = m.group(2)
  return doc, params


def _strip_titles(schema: Any, in_properties: bool = False) -> Any:
  if isinstance(schema, dict):
    out = {}
    for key, value in schema.items():
      if key == "title" and not in_properties and isinstance(value, str):
        continue
      out[key] = _strip_titles(value, in_properties=(key in ("properties", "$defs") and not in_properties))
    return out
  if isinstance(schema, list):
    return [_strip_titles(v) for v in schema]
  return schema


def _title(name: str) -> str:
  """pydantic's title for a field of this name (used where the field is held under another name)."""
  return name.replace("_", " ").strip().title()


def unwrap_partial(func: Callable[..., Any]) -> Callable[..., Any]:
  """The function behind (nested) functools.partial objects."""
  while isinstance(func, functools.partial):
    func = func.func
  return func


class FunctionSignature:
  """A function's model-visible parameters: their JSON schema and a validator for calls."""

  def __init__(self, func: Callable[..., Any], name: str):
    self.name = name
    inner = unwrap_partial(func)
    if isinstance(func, functools.partial):
      target, hints_of = func, inner  # the partial's own signature: bound arguments are gone
    elif inspect.isfunction(func) or inspect.ismethod(func):
      target = hints_of = func
    else:
      target = hints_of = getattr(func, "__call__", func)
    sig = inspect.signature(target)
    try:
      # include_extras: an Annotated[..., Field(description=..., ge=...)] keeps its description
      # and constraints, in the schema and in validation.
      hints = typing.get_type_hints(hints_of, include_extras=True)
    except Exception:  # unresolvable forward references: fall back to raw annotations
      hints = {}
    fields: dict[str, Any] = {}
    declared_fields: dict[str, Any] = {}  # the annotations as written (the schema's)
    param_names: list[str] = []  # the parameter each field holds, in field order
    self.context_param: Optional[str] = None
    self.accepts_var_kwargs = False
    self.required: list[str] = []
    self.positional_only: tuple[str, ...] = ()
    for pname, param in sig.parameters.items():
      annotation = hints.get(pname, param.annotation)
      if pname in _HIDDEN_NAMES or _is_context_annotation(annotation):
        if pname == "tool_context" or _is_context_annotation(annotation):
          self.context_param = pname
        continue
      if param.kind is inspect.Parameter.VAR_KEYWORD:
        self.accepts_var_kwargs = True
        continue
      if param.kind is inspect.Parameter.VAR_POSITIONAL:
        continue
      if annotation is inspect.Parameter.empty:
        annotation = Any
      default = ... if param.default is inspect.Parameter.empty else param.default
      if default is ...:
        self.required.append(pname)
      declared = annotation
      if default is None and annotation is not Any:
        annotation = Optional[annotation]  # `x: int = None` accepts an explicit null, as in ADK
      if param.kind is inspect.Parameter.POSITIONAL_ONLY:
        self.positional_only += (pname,)
      if pname.startswith("_"):
        # pydantic refuses field names with a leading underscore: hold it under another name,
        # keep the parameter's own name as the alias the model sees and sends.
        field_name, spec = f"arg{pname}", Field(default, alias=pname, title=_title(pname))
      else:
        field_name, spec = pname, default
      fields[field_name] = (annotation, spec)
      declared_fields[field_name] = (declared, spec)
      param_names.append(pname)
    config = ConfigDict(arbitrary_types_allowed=True, extra="ignore")
    self.model: type[BaseModel] = create_model(f"{name}_arguments", __config__=config, **fields)
    # The schema shows `x: int = None` as google-adk does (an integer defaulting to null), from the
    # annotations as written; the validator above still accepts an explicit null for it.
    self._declared_fields = declared_fields if declared_fields != fields else None
    self._config = config
    self.field_names = tuple(fields)
    self._param_names = tuple(param_names)
    self._schema: Optional[dict[str, Any]] = None

  @property
  def json_schema(self) -> dict[str, Any]:
    """The parameters' JSON schema (object with properties and required), as google-adk 2.13 sends it:
    pydantic's schema of the parameters, titles included (the object's is `<name>Params`). The
    docstring describes the function (the declaration's description); its `Args:` are not repeated
    per parameter, an `Annotated[..., Field(description=...)]` is."""
    if self._schema is None:
      model = self.model
      if self._declared_fields is not None:
        model = create_model(f"{self.name}_arguments", __config__=self._config, **self._declared_fields)
      schema = model.model_json_schema()
      schema["title"] = f"{self.name}Params"
      schema.setdefault("properties", {})
      schema["type"] = "object"
      if not schema.get("required"):
        schema.pop("required", None)
      self._schema = schema
    return self._schema

  def convert_leniently(self, args: dict[str, Any]) -> dict[str, Any]:
    """Converts each known argument to its parameter's type (a dict to its pydantic model, ...),
    keeping a value as it is when it does not convert; other keys pass through unchanged."""
    from pydantic import TypeAdapter

    out = dict(args)
    for param, field in zip(self._param_names, self.field_names):
      if param not in args:
        continue
      info = self.model.model_fields[field]
      try:
        out[param] = TypeAdapter(info.annotation).validate_python(args[param])
      except (ValidationError, TypeError, ValueError):
        pass
    return out

  def validate(self, args: dict[str, Any]) -> dict[str, Any]:
    """Validates and converts model-supplied arguments; raises ToolArgumentsError with the fix."""
    if not isinstance(args, dict):
      raise ToolArgumentsError(
          f"Arguments for `{self.name}` must be a JSON object, got {type(args).__name__}."
      )
    try:
      parsed = self.model.model_validate(args)
    except ValidationError as exc:
      problems = "; ".join(
          f"{'.'.join(str(p) for p in err['loc']) or '(arguments)'}: {err['msg']}"
          for err in exc.errors()
      )
      raise ToolArgumentsError(
          f"Invalid arguments for `{self.name}`: {problems}. Call `{self.name}` again with "
          "arguments that match its schema."
      ) from None
    values = {param: getattr(parsed, field) for param, field in zip(self._param_names, self.field_names)}
    if self.accepts_var_kwargs:
      for key, value in args.items():
        if key not in values:
          values[key] = value
    return values


class ToolArgumentsError(AdkNbError, ValueError):
  """A model called a tool with arguments that do not fit its signature."""
