"""Media a tool returns (an image, audio, a document) travels to the model as function response parts.

A tool's answer must otherwise be JSON, where media could only ride along as base64 text the model
reads as characters. The rule, as google-adk 2.13 applies it to every tool:

- a `types.Part` with `inline_data` (bytes and a mime type) or `file_data` (a uri and a mime type)
  returned on its own becomes the response's one part, and `response` is `{}`;
- such parts found as the values of a returned dict, the items of a returned list or tuple, or one
  container deeper (a dict/list/tuple inside it) are moved into `parts`, in the order met; what is
  left stays in `response` (a list as `{"result": [...]}`), and a container left empty by the move
  is dropped;
- deeper than that nothing is searched, so a tool's large data structures are never walked;
- a result without such parts is returned as it was (the same object).

`ComputerUseTool` answers screenshots as `{"image": {"mimetype", "data": base64}}` (the form its
callbacks see); that image is decoded into a part too, when the general rule found nothing.
"""

from __future__ import annotations

import base64
import binascii
import logging
from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

if TYPE_CHECKING:
  from ..tools.base_tool import BaseTool

logger = logging.getLogger(__name__)

_Part = types.Part
_CONTAINERS = (dict, list, tuple)
# Values that can hold no media, recognised by exact type: isinstance against a pydantic model class
# (an ABCMeta) costs far more than this set lookup, and it runs for every value of every tool answer.
_PLAIN = frozenset({str, int, float, bool, type(None), bytes})


def _as_response_part(value: Any) -> Optional[types.FunctionResponsePart]:
  """The function response part for a media-carrying Part, else None."""
  blob = value.inline_data
  if blob is not None and blob.data is not None and blob.mime_type:
    return types.FunctionResponsePart.from_bytes(data=blob.data, mime_type=blob.mime_type)
  ref = value.file_data
  if ref is not None and ref.file_uri and ref.mime_type:
    return types.FunctionResponsePart.from_uri(file_uri=ref.file_uri, mime_type=ref.mime_type)
  return None


def _split_container(value: Any, found: list, deeper: bool) -> Any:
  """`value` (a dict, list or tuple) without its media parts, which are appended to `found`.

  Returns `value` itself when it held none. `deeper`: whether containers inside it are searched too.
  """
  before = len(found)
  if isinstance(value, dict):
    kept_items: dict = {}
    for key, item in value.items():
      keep, rest = _split_entry(item, found, deeper)
      if keep:
        kept_items[key] = rest
    return value if len(found) == before else kept_items
  kept = []
  for item in value:
    keep, rest = _split_entry(item, found, deeper)
    if keep:
      kept.append(rest)
  return value if len(found) == before else kept


def _split_entry(item: Any, found: list, deeper: bool) -> tuple[bool, Any]:
  """(keep it?, what is left of it) for one entry of a searched container."""
  if type(item) in _PLAIN:
    return True, item
  if isinstance(item, _Part):
    part = _as_response_part(item)
    if part is not None:
      found.append(part)
      return False, None
    return True, item
  if deeper and isinstance(item, _CONTAINERS):
    before = len(found)
    rest = _split_container(item, found, False)
    if len(found) == before:
      return True, item
    return bool(rest), rest
  return True, item


def split_media(result: Any) -> tuple[Any, Optional[list[types.FunctionResponsePart]]]:
  """(the result without its media, the media as function response parts), see the module docstring.

  The parts are None when there was no media; the result is then returned unchanged.
  """
  kind = type(result)
  if kind is dict:
    for value in result.values():  # the common answer: a dict of plain values, looked at once
      if type(value) not in _PLAIN:
        break
    else:
      return result, None
  elif kind in _PLAIN:
    return result, None
  elif isinstance(result, _Part):
    part = _as_response_part(result)
    return ({}, [part]) if part is not None else (result, None)
  elif not isinstance(result, _CONTAINERS):
    return result, None
  found: list = []
  rest = _split_container(result, found, True)
  if not found:
    return result, None
  return (rest or {}), found


def computer_use_image(tool: "BaseTool", result: Any) -> tuple[Any, Optional[list[types.FunctionResponsePart]]]:
  """A ComputerUseTool's `image` answer decoded into a part, the rest of the answer kept.

  Anything else (another tool, no usable image, data that is not base64) is returned unchanged with
  None; undecodable data is logged and stays in the answer.
  """
  from ..tools.computer_use.computer_use_tool import ComputerUseTool

  image = result.get("image")
  if not isinstance(tool, ComputerUseTool) or not isinstance(image, dict):
    return result, None
  mime_type, data = image.get("mimetype"), image.get("data")
  if not isinstance(mime_type, str) or not isinstance(data, (str, bytes)):
    return result, None
  try:
    raw = base64.b64decode(data, validate=True)
  except (binascii.Error, ValueError):
    logger.exception("Could not decode the image of computer use tool %s; it stays in the answer", tool.name)
    return result, None
  rest = {k: v for k, v in result.items() if k != "image"}
  return rest, [types.FunctionResponsePart.from_bytes(data=raw, mime_type=mime_type)]
