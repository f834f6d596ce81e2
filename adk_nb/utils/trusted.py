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
"""

from __future__ import annotations

import copy
import functools
from typing import Any, Callable, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_set = object.__setattr__
_PLANS: dict[type, tuple[dict[str, Any], tuple[tuple[str, Callable[[], Any]], ...], bool]] = {}


def _plan(cls: type[BaseModel]) -> tuple[dict[str, Any], tuple[tuple[str, Callable[[], Any]], ...], bool]:
  """The class's plain defaults, its default factories, and whether it has a post-init hook."""
  if cls.__private_attributes__ or cls.model_config.get("extra") == "allow":
    raise TypeError(f"trusted() does not build {cls.__name__}: it has private attributes or extra fields")
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
  """
  defaults, factories, post_init = _PLANS.get(cls) or _plan(cls)
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


def replaced(obj: M, **update: Any) -> M:
  """`obj.model_copy(update=update)`, at about half the cost: a shallow copy with `update` set as given.

  As for `trusted`, every value must already have its field's type.
  """
  cls = type(obj)
  if cls not in _PLANS:
    _plan(cls)  # refuses the classes trusted() cannot build
  new = cls.__new__(cls)
  _set(new, "__dict__", {**obj.__dict__, **update})
  _set(new, "__pydantic_fields_set__", obj.__pydantic_fields_set__ | update.keys())
  _set(new, "__pydantic_extra__", None)
  _set(new, "__pydantic_private__", None)
  return new
