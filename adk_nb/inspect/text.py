"""How step text reads: JSON of tool arguments and results, one-line argument lists, cut long texts.

Shared by the step model and every view that draws it, so a value reads the same everywhere.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from ..tools.tool_confirmation import is_default_hint

NODE_TEXT_LIMIT = 4_000
"""Characters of a step's text and result in the tree; the whole is in its details panel."""


def cut(text: str, limit: int = NODE_TEXT_LIMIT) -> str:
  """`text`, or its first `limit` characters and a note saying how much is in the details panel."""
  if len(text) <= limit:
    return text
  return text[:limit] + f"… ({len(text) - limit:,} more characters: see details)"



def readable_hint(hint: Optional[str]) -> str:
  """A confirmation's hint for people: '' for a default hint, which is advice to API clients."""
  hint = hint or ""
  return "" if is_default_hint(hint) else hint


def to_json_text(value: Any, indent: Optional[int] = None) -> str:
  """JSON text for anything a tool or model produced (non-JSON values shown with str())."""
  try:
    return json.dumps(value, ensure_ascii=False, indent=indent, default=str)
  except (TypeError, ValueError):
    return str(value)


ONE_LINE_JSON = 60
"""A value whose compact JSON is at most this long is shown on one line in the tree."""


def node_json_text(value: Any) -> str:
  """A tool call's arguments or result as the tree shows them: one line when short, indented when longer.

  Compact JSON comes from the json module's C encoder; indenting uses its pure-Python one, so a
  value too long to be shown whole (the tree cuts it at NODE_TEXT_LIMIT) stays compact: its
  details panel has it indented, whole.
  """
  compact = to_json_text(value)
  if len(compact) <= ONE_LINE_JSON or len(compact) > 4 * NODE_TEXT_LIMIT:
    return compact
  return to_json_text(value, indent=2)


def jsonable(value: Any) -> Any:
  """`value` as plain JSON data (what widgets can carry)."""
  try:
    return json.loads(json.dumps(value, default=str))
  except (TypeError, ValueError):
    return str(value)


def _short_value(value: Any) -> str:
  if isinstance(value, str):
    return json.dumps(value, ensure_ascii=False)
  if value is None or isinstance(value, (bool, int, float)):
    return json.dumps(value)
  return to_json_text(value)


def short_args(args: Optional[dict[str, Any]], limit: int = 80) -> str:
  """`a=1, b='x'` cut to `limit` characters, for a one-line title."""
  text = ", ".join(f"{k}={_short_value(v)}" for k, v in (args or {}).items())
  return text if len(text) <= limit else text[:limit - 1] + "…"

