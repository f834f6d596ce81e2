"""Building pydantic models from values adk_nb made itself, without validating them again.

A streamed model answer becomes several objects per chunk (a Part, a Content, an LlmResponse,
an Event), and validating each costs more than everything else the chunk does: google-genai's
models run a Python check over every field on construction (`_check_field_type_mismatches`),
and an Event has 28 fields. pydantic's own `model_construct` skips validation but, in pydantic
2.14, costs more than validating for a wide model (it resolves every field's default each time).

`trusted(cls, **values)` is the narrow fast path for the hot spots: the caller guarantees every
value already has its field's type (a `types.Content`, not a dict), as it does when the values
come from objects that were validated when they were built. Fields not given take their default;
default factories are called, so no two objects share a mutable default. Anything that comes from
a user or a wire goes through the validating constructor instead.

What it refuses, so that it never builds something the validating constructor would not:
- a name that is not one of the class's fields (`trusted(Event, message="hi")` would otherwise
  leave a stray attribute where `Event(message="hi")` builds the content);
- a class with a model or field validator, which would not run, unless that validator is named in
  `SKIPPED_VALIDATORS` with the reason skipping it is sound;
- a class with private attributes, extra fields, or a default factory that reads other fields.

It relies on pydantic's private instance layout, so pyproject.toml pins pydantic's minor versions
(the equivalence tests in tests/utils/test_trusted.py must pass before that range grows).
"""

from __future__ import annotations

import copy
import functools
from typing import Any, Callable, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

SKIPPED_VALIDATORS = {
    "google.genai._common.BaseModel._check_field_type_mismatches":
        "google-genai's check that each value has its field's type: trusted()'s callers guarantee it",
    "adk_nb.events.event.Event._shorthands":
        "turns Event's shorthand arguments (message=...) into fields; they are not field names, so "
        "trusted() refuses them",
    "adk_nb.events.event.Event._null_node_info":
        "reads node_info=None as an empty NodeInfo; trusted()'s callers give a NodeInfo or leave the field "
        "to its default factory",
}
"""Validators trusted() may skip (module.qualname of the function: why skipping it builds the same object)."""

_set = object.__setattr__
_Plan = tuple[dict[str, Any], tuple[tuple[str, Callable[[], Any]], ...], bool]
_PLANS: dict[type, _Plan] = {}


def _plan(cls: type[BaseModel]) -> _Plan:
  """The class's plain defaults (keyed by every field), its default factories, and whether it has a post-init hook."""
  if cls.__private_attributes__ or cls.model_config.get("extra") == "allow":
    raise TypeError(f"trusted() does not build {cls.__name__}: it has private attributes or extra fields")
  _check_validators(cls)
  defaults: dict[str, Any] = {}
  factories: list[tuple[str, Callable[[], Any]]] = []
  for name, field in cls.model_fields.items():
    if field.default_factory is not None:
      if getattr(field, "default_factory_takes_validated_data", False):  # pydantic >= 2.10
        raise TypeError(f"trusted() does not build {cls.__name__}: {name}'s default factory reads other fields")
      factories.append((name, field.default_factory))
      defaults[name] = None  # a place in field order (serialisation follows it); filled per object
    elif field.is_required():
      defaults[name] = None  # the caller gives it (checked in tests, not on each call)
    elif _hashable(field.default):
      defaults[name] = field.default
    else:  # pydantic copies a mutable default for each instance: so does this
      factories.append((name, functools.partial(copy.deepcopy, field.default)))
      defaults[name] = None
  plan = (defaults, tuple(factories), cls.__pydantic_post_init__ is not None)
  _PLANS[cls] = plan
  return plan


def _check_validators(cls: type[BaseModel]) -> None:
  decorators = cls.__pydantic_decorators__
  found = {**decorators.model_validators, **decorators.field_validators}
  for name, decorator in found.items():
    func = getattr(decorator.func, "__func__", decorator.func)
    where = f"{getattr(func, '__module__', '?')}.{getattr(func, '__qualname__', name)}"
    if where not in SKIPPED_VALIDATORS:
      raise TypeError(
          f"trusted() does not build {cls.__name__}: its validator {name} ({where}) would not run. Build it "
          f"with {cls.__name__}(...), or, if that validator only checks what trusted()'s callers guarantee, "
          "name it in adk_nb.utils.trusted.SKIPPED_VALIDATORS with the reason.")


def _hashable(value: Any) -> bool:
  try:
    hash(value)
  except TypeError:
    return False
  return True


def trusted(cls: type[M], **values: Any) -> M:
  """An instance of `cls` holding `values` as given (no validation, no coercion).

  Every value must already have its field's type. The instance is what `cls(**values)` would
  build from the same values, including which fields count as set (`model_fields_set`).
  A name that is not a field of `cls` raises TypeError.
  """
  defaults, factories, post_init = _PLANS.get(cls) or _plan(cls)
  if not defaults.keys() >= values.keys():
    _refuse_unknown(cls, values)
  data = {**defaults, **values}  # the fields' order, as the validating constructor leaves it
  for name, factory in factories:
    if name not in values:
      data[name] = factory()
  obj = cls.__new__(cls)
  _set(obj, "__dict__", data)
  _set(obj, "__pydantic_fields_set__", set(values))
  _set(obj, "__pydantic_extra__", None)
  _set(obj, "__pydantic_private__", None)
  if post_init:
    obj.model_post_init(None)
  return obj


def _refuse_unknown(cls: type[BaseModel], values: dict[str, Any]) -> None:
  unknown = sorted(values.keys() - cls.model_fields.keys())
  raise TypeError(f"{cls.__name__} has no field(s) {', '.join(unknown)}: trusted() takes field names only "
                  f"(not aliases or shorthands); build it with {cls.__name__}(...) to have them validated.")


def replaced(obj: M, **update: Any) -> M:
  """`obj.model_copy(update=update)`, at about half the cost: a shallow copy with `update` set as given.

  As for `trusted`, every value must already have its field's type.
  """
  cls = type(obj)
  defaults = (_PLANS.get(cls) or _plan(cls))[0]  # refuses the classes trusted() cannot build
  if not defaults.keys() >= update.keys():
    _refuse_unknown(cls, update)
  new = cls.__new__(cls)
  _set(new, "__dict__", {**obj.__dict__, **update})
  _set(new, "__pydantic_fields_set__", obj.__pydantic_fields_set__ | update.keys())
  _set(new, "__pydantic_extra__", None)
  _set(new, "__pydantic_private__", None)
  return new
