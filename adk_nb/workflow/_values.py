"""Values moving through a graph: schema validation, the request-input event, an agent node's input turn."""

from __future__ import annotations

import json
from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, TypeAdapter

from ..events.event import Event
from ..events.protocol import REQUEST_INPUT
from ..events.request_input import RequestInput
from . import _checkpoint

_adapters: dict[int, TypeAdapter] = {}


def validate(schema: Any, value: Any) -> Any:
  if schema is None or isinstance(schema, dict):
    return value  # a JSON-schema dict is documentation only, as in google-adk
  adapter = _adapters.get(id(schema))
  if adapter is None:
    adapter = _adapters[id(schema)] = TypeAdapter(schema)
  if isinstance(value, types.Content):
    if isinstance(schema, type) and issubclass(schema, types.Content):
      return value  # a node that takes the Content gets it whole, as in google-adk
    text = "".join(p.text for p in value.parts or [] if p.text)
    value = text if schema is str else adapter.validate_json(text)
  else:
    value = adapter.validate_python(value)
  return value.model_dump() if isinstance(value, BaseModel) else value


def common_branch(branches: list[Optional[str]]) -> Optional[str]:
  parts = [b.split(".") if b else [] for b in branches]
  if not parts:
    return None
  prefix = []
  for items in zip(*parts):
    if all(i == items[0] for i in items):
      prefix.append(items[0])
    else:
      break
  return ".".join(prefix) or None


def request_input_event(request: RequestInput) -> Event:
  schema = request.response_schema
  if isinstance(schema, type) and issubclass(schema, BaseModel):
    schema = schema.model_json_schema()
  elif schema is not None and not isinstance(schema, dict):
    schema = TypeAdapter(schema).json_schema()
  args = {"interruptId": request.interrupt_id, "payload": _checkpoint.encode(request.payload),
          "message": request.message, "response_schema": schema}
  call = types.FunctionCall(name=REQUEST_INPUT, id=request.interrupt_id, args=args)
  return Event(content=types.Content(role="model", parts=[types.Part(function_call=call)]),
               long_running_tool_ids={request.interrupt_id})


def user_content(value: Any) -> types.Content:
  if isinstance(value, types.Content):
    return types.Content(role="user", parts=list(value.parts or []))
  if isinstance(value, str):
    text = value
  else:
    text = json.dumps(_checkpoint.encode(value), ensure_ascii=False, default=str)
  return types.Content(role="user", parts=[types.Part(text=text)])
