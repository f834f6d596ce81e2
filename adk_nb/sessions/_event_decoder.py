"""Stored events back into `Event`s, at half the cost of `Event.model_validate_json`.

A cold load of a long session is mostly decoding: 10,000 stored events took 0.26 s of CPU, and
more than half of it was spent in two google-genai hooks that do nothing for JSON read back from
a store:

- every google-genai model (`Content`, `Part`, ...) has a `mode="before"` model validator,
  `_check_field_type_mismatches`, that logs a warning when it is handed a pydantic object of the
  wrong class; JSON holds no pydantic objects, so for a stored row it only walks the fields;
- `Part` has its own `__init__` (for `Part("text")` and `Part(PIL image)`), so pydantic validates
  each part twice: once to call `__init__` with the data as keywords, once inside it.

`decode(data)` validates with a copy of `Event`'s own schema without those two hooks. Everything
else is the same schema (types, aliases, base64 bytes, enums, defaults, adk_nb's own validators),
so it builds the same objects, or refuses the same rows with the same error, as
`Event.model_validate_json` (tests/sessions/test_event_decoder.py compares them on every kind of
event). If the copy cannot be built (a pydantic or google-genai release that lays its schema out
differently), `decode` is `Event.model_validate_json`, and the load is as fast as before.

pydantic-core reuses the validator a model class already built when it meets that class in a new
schema ("prebuilt" validators), which would bring the hooks back; the copy is built while the
classes it names read as not yet complete, so it is made from the schema given. This reads a
private pydantic attribute (`__pydantic_complete__`), within the pydantic range pinned in
pyproject.toml.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Optional

import pydantic_core

from ..events.event import Event

logger = logging.getLogger("adk_nb.sessions")

_lock = threading.Lock()
_decoder: Optional[Callable[[str], Event]] = None


def decode(data: str) -> Event:
  """The Event stored as JSON `data` (raises ValueError, as `Event.model_validate_json`, when it is not one)."""
  return (_decoder or _build())(data)


def _build() -> Callable[[str], Event]:
  global _decoder
  with _lock:
    if _decoder is None:
      try:
        _decoder = _fast_validator().validate_json
      except Exception:  # a pydantic / google-genai layout this module does not know
        logger.debug("Stored events decode with Event.model_validate_json", exc_info=True)
        _decoder = Event.model_validate_json
    return _decoder


def _fast_validator() -> pydantic_core.SchemaValidator:
  from google.genai import _common

  hook = _common.BaseModel.__dict__["_check_field_type_mismatches"].__func__
  models: set[type] = set()

  def without_hooks(node: Any) -> Any:
    if isinstance(node, list):
      return [without_hooks(item) for item in node]
    if not isinstance(node, dict):
      return node
    if node.get("type") == "function-before" and getattr(node["function"].get("function"), "__func__", None) is hook:
      return without_hooks(node["schema"])
    copy = {key: without_hooks(value) for key, value in node.items()}
    if copy.get("type") == "model":
      models.add(copy["cls"])
      if copy.get("custom_init") and issubclass(copy["cls"], _common.BaseModel):
        copy["custom_init"] = False  # Part.__init__ only re-validates keyword data
    return copy

  Event.model_rebuild()  # a no-op once built; makes sure the schema is a real one
  schema = without_hooks(Event.__pydantic_core_schema__)
  complete = {cls: cls.__dict__["__pydantic_complete__"] for cls in models if "__pydantic_complete__" in cls.__dict__}
  try:
    for cls in complete:
      cls.__pydantic_complete__ = False  # so pydantic-core builds from `schema`, not the class's own validator
    return pydantic_core.SchemaValidator(schema)
  finally:
    for cls, value in complete.items():
      cls.__pydantic_complete__ = value
