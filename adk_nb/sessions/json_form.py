"""The one JSON form of tool results and state values, the same on every session store.

A tool's result is converted once, where its function response is built, and every
state delta once, where it is committed; what the model is sent, what the event holds,
what memory, SQLite and PostgreSQL store and what a later load returns are then the
same plain JSON values. The conversions:

- str, int, bool, None, and finite floats stay as they are; NaN and +/-infinity become
  None (JSON has no such numbers; JSON.stringify does the same);
- dicts stay dicts; a key that is not a str becomes one (`1` -> `"1"`, an enum key -> its value);
- lists, tuples, sets and frozensets become lists (a set in its iteration order);
- bytes and bytearray become base64 text (URL-safe alphabet, as pydantic writes bytes);
- datetime, date and time become ISO 8601 text, timedelta an ISO 8601 duration ("PT1M30S");
- Decimal, UUID, Path and complex become their text; an Enum member its value;
- pydantic models and dataclasses become dicts of their fields;
- text with unpaired surrogates (e.g. undecodable file names) gets U+FFFD in their place.

Anything else (an arbitrary object, a cycle, nesting deeper than `MAX_DEPTH`) cannot
be converted: a tool result or a tool's state write becomes an error response naming
the tool and the type, and any other state write is refused with a ValueError before
anything is stored.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Optional

import pydantic_core
from ..errors.adk_nb_error import AdkNbError

__all__ = ["MAX_DEPTH", "NotJsonError", "convert_state_delta", "function_response", "to_json_form"]

MAX_DEPTH = 160
"""Deepest nesting of lists and dicts a value may have (an event nests it a few levels deeper)."""

# The JSON parser stops near 200 levels; parsing the value inside this many extra
# brackets checks that it still loads when an event wraps it.
_PAD = 200 - MAX_DEPTH


_SURROGATE = re.compile("[\ud800-\udfff]")


class NotJsonError(AdkNbError, TypeError):
  """A value has no JSON form; `type_name` is the offending type, `path` where it sits."""

  def __init__(self, message: str, type_name: str, path: str) -> None:
    super().__init__(message)
    self.type_name = type_name
    self.path = path


def to_json_form(value: Any, where: str = "value") -> Any:
  """The value as plain JSON data (see the module docstring), or NotJsonError.

  `where` names the value in the error (e.g. "result" or "state['user:cart']").
  """
  try:
    text = _to_json(value)
  except ValueError as exc:
    if "surrogates not allowed" not in str(exc):
      raise _explain(value, where, exc) from None
    try:
      text = _to_json(_replace_surrogates(value))
    except ValueError as again:  # e.g. surrogates inside a model's fields
      raise _explain(value, where, again) from None
  if text.count(b"[") + text.count(b"{") <= MAX_DEPTH:  # cannot be too deep: the common case
    return pydantic_core.from_json(text)
  try:
    padded = pydantic_core.from_json(b"[" * _PAD + text + b"]" * _PAD)
  except ValueError:
    raise NotJsonError(
        f"{where} is nested more than {MAX_DEPTH} levels deep; flatten it or return it as text.",
        "nested value", where) from None
  for _ in range(_PAD):
    padded = padded[0]
  return padded


def _to_json(value: Any) -> bytes:
  return pydantic_core.to_json(value, bytes_mode="base64", inf_nan_mode="null")


def _explain(value: Any, where: str, exc: BaseException) -> NotJsonError:
  """Finds the first value without a JSON form, for a message that points at it."""
  message = str(exc)
  if "Circular reference" in message:
    return NotJsonError(f"{where} contains itself (a reference cycle); return a copy without the cycle.",
                        "cycle", where)
  if "depth" in message.lower() or "recursion" in message.lower():
    return NotJsonError(
        f"{where} is nested more than {MAX_DEPTH} levels deep; flatten it or return it as text.",
        "nested value", where)
  path, culprit = _first_unconvertible(value, where, 0)
  type_name = type(culprit).__qualname__
  return NotJsonError(
      f"{path} is a {type_name}, which has no JSON form; use str, numbers, bools, None, lists, "
      "dicts, or a pydantic model or dataclass of those.", type_name, path)


def _first_unconvertible(value: Any, path: str, depth: int) -> tuple[str, Any]:
  if depth < MAX_DEPTH:
    items: Any = ()
    if isinstance(value, dict):
      items = ((f"{path}[{k!r}]", v) for k, v in value.items())
    elif isinstance(value, (list, tuple, set, frozenset)):
      items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
      items = ((f"{path}.{f.name}", getattr(value, f.name)) for f in dataclasses.fields(value))
    for sub_path, item in items:
      try:
        _to_json(item)
      except ValueError:
        return _first_unconvertible(item, sub_path, depth + 1)
  return path, value


def _replace_surrogates(value: Any) -> Any:
  if isinstance(value, str):
    return _SURROGATE.sub("\ufffd", value)
  if isinstance(value, dict):
    return {_replace_surrogates(k): _replace_surrogates(v) for k, v in value.items()}
  if isinstance(value, (list, tuple, set, frozenset)):
    return [_replace_surrogates(v) for v in value]
  return value


def function_response(tool_name: str, response: dict[str, Any],
                      state_delta: Optional[dict[str, Any]] = None) -> dict[str, Any]:
  """A tool's answer in JSON form, converting the state delta it wrote in place.

  When either has no JSON form, the answer is an error naming the tool and the type
  (the model reads it, the turn goes on) and the tool's state writes are dropped, so a
  call is never left unanswered by a value the store cannot hold.
  """
  try:
    if state_delta:
      converted = {k: to_json_form(v, f"state[{k!r}]") for k, v in state_delta.items()}
      state_delta.update(converted)
  except NotJsonError as exc:
    state_delta.clear()
    return {"error": f"Tool `{tool_name}` wrote a value of type {exc.type_name} to state, which "
                     f"cannot be stored: {exc} Its state changes were not kept."}
  try:
    return to_json_form(response, "response")
  except NotJsonError as exc:
    return {"error": f"Tool `{tool_name}` returned a value of type {exc.type_name}, which cannot be "
                     f"sent to the model or stored: {exc}"}


def convert_state_delta(delta: dict[str, Any]) -> dict[str, Any]:
  """A state delta in JSON form; ValueError (nothing written) when a value has none."""
  try:
    return {k: to_json_form(v, f"state[{k!r}]") for k, v in delta.items()}
  except NotJsonError as exc:
    raise ValueError(f"Cannot store {exc} Nothing was written.") from None
