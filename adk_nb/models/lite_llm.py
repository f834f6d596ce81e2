"""LiteLlm: runs agents on any model LiteLLM supports (OpenAI, Anthropic, Ollama, vLLM, ...).

litellm is imported on first use, with its bundled model-cost map so that importing it never
touches the network; `import adk_nb.models.lite_llm` alone does not import it.
"""

from __future__ import annotations

import base64
import json
import logging
import mimetypes
import os
import re
from dataclasses import dataclass
from typing import Any, AsyncGenerator, Optional, Union

from google.genai import types
import pydantic
from pydantic import PrivateAttr

from ..errors import codes
from ..events.protocol import MALFORMED_ARGUMENTS_KEY, TOOL_CALL_DELTA_KEY  # noqa: F401 - public here too
from . import _retry
from .base_llm import BaseLlm
from ._request_shape import with_user_turn
from .guard import check_real_call
from .llm_request import LlmRequest
from .llm_response import LlmResponse
from ..utils.lazy import lazy_exports

logger = logging.getLogger(__name__)


_FINISH_REASONS = {
    "stop": types.FinishReason.STOP,
    "tool_calls": types.FinishReason.STOP,
    "function_call": types.FinishReason.STOP,
    "length": types.FinishReason.MAX_TOKENS,
    "content_filter": types.FinishReason.SAFETY,
}

_MISSING_KEY = re.compile(r"missing credentials|api_key client option must be set|no api key", re.IGNORECASE)

# Keys the adapter owns; passing them to LiteLlm(...) would fight the request it builds.
_OWNED_ARGS = ("messages", "tools", "stream", "llm_client", "retry_options")


_MISSING_LITELLM = ("LiteLlm needs the litellm package, which is optional: pip install 'adk_nb[litellm]' "
                    "(or use a Gemini model name such as 'gemini-2.5-flash').")


class LiteLLMClient:
  """What LiteLlm sends requests through: `litellm.acompletion`. Pass `LiteLlm(..., llm_client=...)`
  with another object of this shape to intercept or fake the calls (google-adk's seam for tests)."""

  async def acompletion(self, model: Any, messages: Any, tools: Any, **kwargs: Any) -> Any:
    """Calls `litellm.acompletion(model=..., messages=..., tools=..., **kwargs)`."""
    return await _litellm().acompletion(model=model, messages=messages, tools=tools, **kwargs)


def _litellm():
  """Imports litellm on first use, offline (bundled cost map)."""
  os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
  try:
    import litellm
  except ImportError as exc:
    raise ImportError(_MISSING_LITELLM) from exc

  # Failures reach the user as ModelCallErrors naming the fix; litellm's banner on each would be noise.
  litellm.suppress_debug_info = True
  return litellm


class LiteLlm(BaseLlm):
  """Runs an agent on any LiteLLM model: `LiteLlm(model="openai/gpt-4o-mini")`.

  Keyword arguments go to `litellm.acompletion` as in ADK, e.g. `api_base="http://localhost:8000/v1"`,
  `api_key=...`, `temperature=0.2`. Credentials otherwise come from the provider's environment
  variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...). Needs `pip install adk_nb[litellm]`.

  Beyond ADK: 429 and 5xx are retried with backoff and jitter (`retry_options=RetryOptions(...)`),
  and tool arguments that are not valid JSON become a function call whose args hold
  `MALFORMED_ARGUMENTS_KEY` instead of an exception.
  """

  @property
  def pairs_calls_by_id(self) -> bool:
    """OpenAI-style APIs pair each tool result with its call by id: the ids are kept."""
    return True

  retry_options: Optional[_retry.RetryOptions] = None
  """How 429, 5xx and timeouts are retried (default: RetryOptions(), 4 attempts)."""

  _additional_args: dict[str, Any] = PrivateAttr(default_factory=dict)
  _client: Optional[Any] = PrivateAttr(default=None)

  def __init__(self, model: str, **kwargs: Any) -> None:
    retry_options = kwargs.pop("retry_options", None)
    client = kwargs.pop("llm_client", None)
    super().__init__(model=model, retry_options=_retry.RetryOptions.coerce(retry_options) if retry_options else None)
    self._additional_args = {k: v for k, v in kwargs.items() if k not in _OWNED_ARGS}
    self._client = client

  @classmethod
  def supported_models(cls) -> list[str]:
    return [r"[A-Za-z0-9_.-]+/.+"]

  async def generate_content_async(
      self, llm_request: LlmRequest, stream: bool = False
  ) -> AsyncGenerator[LlmResponse, None]:
    """Sends the request through litellm; with `stream=True` yields each delta as it arrives, then the whole answer."""
    args = self._additional_args
    client = self._client
    if client is None:  # a client the caller supplies decides itself what it reaches
      check_real_call(self.model, args.get("api_base") or args.get("base_url"))
      client = LiteLLMClient()
    call: dict[str, Any] = {
        "model": self.model,
        "messages": to_messages(llm_request),
        # Retries are ours (RetryOptions); litellm's and the OpenAI client's would multiply them.
        "num_retries": 0,
        "max_retries": 0,
        **generation_args(llm_request.config),
        **args,
    }
    call["tools"] = to_tools(llm_request.config) or None
    call.update(http_args(llm_request.config.http_options, call))
    retrying = dict(options=_retry.RetryOptions.coerce(self.retry_options), classify=_classify,
                    model=self.model, auth_fix=self._auth_fix())

    if not stream:
      response = await _retry.call_with_retries(lambda: client.acompletion(**call), **retrying)
      yield from_model_response(response)
      return

    call["stream"] = True
    call.setdefault("stream_options", {"include_usage": True})

    aggregator = StreamAggregator()
    async for chunk in _retry.stream_with_retries(lambda: client.acompletion(**call), **retrying):
      for partial in aggregator.add(chunk):
        yield partial
    yield aggregator.final()

  def _auth_fix(self) -> str:
    provider = self.model.split("/", 1)[0] if "/" in self.model else "openai"
    return f"Set {provider.upper()}_API_KEY or pass LiteLlm({self.model!r}, api_key=...)."


# ---- request: LlmRequest -> OpenAI chat format -------------------------------------------------


def to_messages(llm_request: LlmRequest) -> list[dict[str, Any]]:
  """The OpenAI chat messages for a request: system instruction first, then the conversation."""
  messages: list[dict[str, Any]] = []
  system = llm_request.system_instruction_text
  if system:
    messages.append({"role": "system", "content": system})
  for content in with_user_turn(llm_request.contents):
    messages.extend(content_to_messages(content))
  return messages


def content_to_messages(content: types.Content) -> list[dict[str, Any]]:
  """One Content as chat messages: function responses become `tool` messages (their inline media a user
  message after them), calls become `tool_calls`."""
  parts = list(content.parts or [])
  tool_messages = []
  rest = []
  for part in parts:
    if part.function_response is not None:
      fr = part.function_response
      result = fr.response
      tool_messages.append({"role": "tool", "tool_call_id": fr.id or "",
                            "content": result if isinstance(result, str) else _json(result)})
      # A tool message holds text only: inline media the tool returned follows in a user message
      # (as google-adk's converter; file_data parts are not sent, as there).
      rest.extend(types.Part(inline_data=p.inline_data) for p in fr.parts or ()
                  if p.inline_data is not None and p.inline_data.data is not None and p.inline_data.mime_type)
    else:
      rest.append(part)
  messages = tool_messages
  if not rest:
    return messages
  if content.role in ("model", "assistant"):
    calls = [_tool_call(p.function_call) for p in rest if p.function_call is not None]
    texts = [p.text for p in rest if p.text is not None and not p.thought and p.function_call is None]
    message: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts) if texts else None}
    if calls:
      message["tool_calls"] = calls
    messages.append(message)
  else:
    user_parts = [p for p in rest if not p.thought]
    if user_parts:
      messages.append({"role": "user", "content": user_content(user_parts)})
  return messages


def user_content(parts: list[types.Part]) -> Any:
  """The `content` of a user message: the text alone for one text-like part, else a list of content items."""
  items = [_user_part(p) for p in parts]
  if len(items) == 1 and items[0]["type"] == "text":
    return items[0]["text"]
  return items


def _tool_call(fc: types.FunctionCall) -> dict[str, Any]:
  args = fc.args or {}
  malformed = args.get(MALFORMED_ARGUMENTS_KEY) if isinstance(args, dict) else None
  # Echo what the model actually wrote, so the conversation it sees is its own.
  arguments = malformed["raw"] if isinstance(malformed, dict) and "raw" in malformed else _json(args)
  return {"type": "function", "id": fc.id or "", "function": {"name": fc.name, "arguments": arguments}}


_AUDIO_FORMATS = {"mpeg": "mp3", "x-wav": "wav", "wave": "wav", "vnd.wave": "wav", "x-flac": "flac"}


def _user_part(part: types.Part) -> dict[str, Any]:
  """One part as an OpenAI content item: text, image_url, video_url, input_audio (inline audio) or file."""
  if part.text is not None:
    return {"type": "text", "text": part.text}
  blob = part.inline_data
  if blob is not None and blob.data is not None:
    mime = (blob.mime_type or "application/octet-stream").split(";", 1)[0].strip().lower()
    if mime.startswith("text/"):
      return {"type": "text", "text": _decode_text(blob.data)}
    data = base64.b64encode(blob.data).decode()
    if mime.startswith("audio/"):
      subtype = mime.split("/", 1)[1]
      return {"type": "input_audio", "input_audio": {"data": data, "format": _AUDIO_FORMATS.get(subtype, subtype)}}
    url = f"data:{mime};base64,{data}"
    if mime.startswith(("image/", "video/")):
      kind = "image_url" if mime.startswith("image/") else "video_url"
      return {"type": kind, kind: {"url": url}}
    return {"type": "file", "file": {"file_data": url}}  # PDFs and other documents, sent inline
  if part.file_data is not None and part.file_data.file_uri:
    uri = part.file_data.file_uri
    mime = part.file_data.mime_type or mimetypes.guess_type(uri)[0] or ""
    if not mime or mime.startswith(("image/", "video/")):
      kind = "video_url" if mime.startswith("video/") else "image_url"
      return {"type": kind, kind: {"url": uri}}
    return {"type": "file", "file": {"file_id": uri, "format": mime}}
  raise ValueError(f"LiteLlm cannot send a part of this kind to a chat model: {part!r}. "
                   "Send text, inline_data or file_data parts.")


def _decode_text(data: bytes) -> str:
  """Inline text as text: UTF-8, else Latin-1 (every byte is a character there), so nothing is replaced."""
  try:
    return data.decode("utf-8")
  except UnicodeDecodeError:
    return data.decode("latin-1")


def to_tools(config: types.GenerateContentConfig) -> list[dict[str, Any]]:
  """The OpenAI `tools` list for the function declarations in the config."""
  tools = []
  for tool in config.tools or []:
    declarations = getattr(tool, "function_declarations", None)
    if not declarations:
      if isinstance(tool, types.Tool):
        logger.warning("LiteLlm ignores a non-function tool (%s): chat models only take functions.",
                       ", ".join(k for k, v in tool.model_dump(exclude_none=True).items()))
      continue
    for decl in declarations:
      tools.append({"type": "function", "function": {
          "name": decl.name,
          "description": decl.description or "",
          "parameters": _parameters(decl),
      }})
  return tools


def _parameters(decl: types.FunctionDeclaration) -> dict[str, Any]:
  if decl.parameters_json_schema is not None:
    return _lowercase_types(json.loads(_json(decl.parameters_json_schema)))
  if decl.parameters is not None:
    schema = schema_to_json(decl.parameters)
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return schema
  return {"type": "object", "properties": {}}


_SCHEMA_KEYS = {"any_of": "anyOf", "max_items": "maxItems", "min_items": "minItems", "max_length": "maxLength",
                "min_length": "minLength", "max_properties": "maxProperties",
                "min_properties": "minProperties", "additional_properties": "additionalProperties",
                "defs": "$defs", "ref": "$ref"}


def schema_to_json(schema: types.Schema) -> dict[str, Any]:
  """A google-genai Schema as plain JSON schema (lowercase types, camelCase keywords)."""
  raw = schema.model_dump(mode="json", exclude_none=True)
  return _lowercase_types(_rename_schema_keys(raw))


def _rename_schema_keys(value: Any) -> Any:
  if isinstance(value, list):
    return [_rename_schema_keys(v) for v in value]
  if not isinstance(value, dict):
    return value
  out: dict[str, Any] = {}
  for key, v in value.items():
    if key == "property_ordering":
      continue
    if key in ("properties", "defs") and isinstance(v, dict):  # maps of names to schemas: names stay as written
      out[_SCHEMA_KEYS.get(key, key)] = {name: _rename_schema_keys(s) for name, s in v.items()}
    else:
      out[_SCHEMA_KEYS.get(key, key)] = _rename_schema_keys(v)
  if out.pop("nullable", False) and isinstance(out.get("type"), str):
    out["type"] = [out["type"], "null"]
  return out


def _lowercase_types(value: Any) -> Any:
  if isinstance(value, list):
    return [_lowercase_types(v) for v in value]
  if not isinstance(value, dict):
    return value
  out = {}
  for key, v in value.items():
    if key == "type" and isinstance(v, str):
      out[key] = v.lower()
    elif key == "type" and isinstance(v, list):
      out[key] = [t.lower() if isinstance(t, str) else t for t in v]
    elif key in ("properties", "$defs") and isinstance(v, dict):
      out[key] = {name: _lowercase_types(s) for name, s in v.items()}
    else:
      out[key] = _lowercase_types(v)
  return out


def http_args(http: Optional[types.HttpOptions], call: dict[str, Any]) -> dict[str, Any]:
  """The request's `http_options` as litellm arguments: headers join `extra_headers` (the request's win),
  `extra_body` and `timeout` (milliseconds there, seconds here) are passed on. Retries stay ours
  (`retry_options` on LiteLlm), so `http_options.retry_options` is not passed to litellm."""
  if http is None:
    return {}
  out: dict[str, Any] = {}
  if http.headers:
    existing = call.get("extra_headers")
    out["extra_headers"] = {**(existing if isinstance(existing, dict) else {}), **http.headers}
  if http.extra_body is not None:
    out["extra_body"] = http.extra_body
  if http.timeout is not None:
    out["timeout"] = http.timeout / 1000
  return out


def generation_args(config: types.GenerateContentConfig) -> dict[str, Any]:
  """Sampling settings and response format from the config, as litellm keyword arguments."""
  out: dict[str, Any] = {}
  for ours, theirs in (("temperature", "temperature"), ("top_p", "top_p"), ("max_output_tokens", "max_tokens"),
                       ("stop_sequences", "stop"), ("seed", "seed"), ("presence_penalty", "presence_penalty"),
                       ("frequency_penalty", "frequency_penalty")):
    value = getattr(config, ours, None)
    if value is not None:
      out[theirs] = value
  schema = _response_schema(config)
  if schema is not None:
    name, body = schema
    out["response_format"] = {"type": "json_schema", "json_schema": {"name": name, "schema": body}}
  elif config.response_mime_type == "application/json":
    out["response_format"] = {"type": "json_object"}
  return out


def _response_schema(config: types.GenerateContentConfig) -> Optional[tuple[str, dict[str, Any]]]:
  if config.response_json_schema is not None:
    return "response", json.loads(_json(config.response_json_schema))
  schema = config.response_schema
  if schema is None:
    return None
  if isinstance(schema, type) and hasattr(schema, "model_json_schema"):
    return schema.__name__, schema.model_json_schema()
  if isinstance(schema, types.Schema):
    return "response", schema_to_json(schema)
  if isinstance(schema, dict):
    # ADK-style dicts may spell types as Gemini does ('OBJECT'); chat models want JSON schema.
    return "response", _lowercase_types(_rename_schema_keys(json.loads(_json(schema))))
  try:  # list[Model], Optional[...], enums, TypedDicts: whatever pydantic can describe
    return "response", pydantic.TypeAdapter(schema).json_schema()
  except (pydantic.PydanticSchemaGenerationError, pydantic.PydanticUserError, TypeError) as exc:
    raise ValueError(f"LiteLlm cannot turn response_schema={schema!r} into a JSON schema ({exc}); pass a "
                     "pydantic model, list[Model], a types.Schema or a JSON-schema dict.") from exc


def _json(value: Any) -> str:
  return json.dumps(value, ensure_ascii=False, default=str)


# ---- response: OpenAI chat format -> LlmResponse -----------------------------------------------


def parse_arguments(raw: Optional[str]) -> dict[str, Any]:
  """Tool-call arguments as a dict; text that is not a JSON object becomes the MALFORMED_ARGUMENTS_KEY marker."""
  if raw is None or not raw.strip():
    return {}
  try:
    value = json.loads(raw)
  except json.JSONDecodeError as e:
    return {MALFORMED_ARGUMENTS_KEY: {"raw": raw, "error": f"{e.msg} (line {e.lineno}, column {e.colno})"}}
  if not isinstance(value, dict):
    return {MALFORMED_ARGUMENTS_KEY: {"raw": raw, "error": f"expected a JSON object, got {type(value).__name__}"}}
  return value


def malformed_arguments(function_call: types.FunctionCall) -> Optional[dict[str, str]]:
  """`{"raw": ..., "error": ...}` when the model's arguments for this call did not parse, else None."""
  args = function_call.args or {}
  value = args.get(MALFORMED_ARGUMENTS_KEY) if isinstance(args, dict) else None
  return value if isinstance(value, dict) else None


def usage_metadata(usage: Any) -> Optional[types.GenerateContentResponseUsageMetadata]:
  """Token counts from an OpenAI-style `usage` object."""
  if usage is None:
    return None
  get = (lambda k: usage.get(k)) if isinstance(usage, dict) else (lambda k: getattr(usage, k, None))
  prompt, completion, total = get("prompt_tokens"), get("completion_tokens"), get("total_tokens")
  if prompt is None and completion is None and total is None:
    return None
  cached = cached_prompt_tokens(usage)
  c_details = get("completion_tokens_details")
  reasoning = (c_details.get("reasoning_tokens") if isinstance(c_details, dict)
               else getattr(c_details, "reasoning_tokens", None))
  return types.GenerateContentResponseUsageMetadata(
      prompt_token_count=prompt, candidates_token_count=completion,
      total_token_count=total if total is not None else (prompt or 0) + (completion or 0),
      cached_content_token_count=cached or None, thoughts_token_count=reasoning or None)


def cached_prompt_tokens(usage: Any) -> int:
  """Prompt tokens served from the provider's cache, in whichever shape the provider reports them (else 0).

  `prompt_tokens_details.cached_tokens` (OpenAI, Azure; a list of such details is summed), or a flat
  `cached_prompt_tokens` / `cached_tokens`.
  """
  if hasattr(usage, "model_dump"):
    usage = usage.model_dump()
  if not isinstance(usage, dict):
    return 0
  details = usage.get("prompt_tokens_details")
  if isinstance(details, dict) and isinstance(details.get("cached_tokens"), int):
    return details["cached_tokens"]
  if isinstance(details, list):
    total = sum(d["cached_tokens"] for d in details if isinstance(d, dict) and isinstance(d.get("cached_tokens"), int))
    if total:
      return total
  for key in ("cached_prompt_tokens", "cached_tokens"):
    if isinstance(usage.get(key), int):
      return usage[key]
  return 0


def _finish_reason(value: Any) -> Optional[types.FinishReason]:
  if not value:
    return None
  return _FINISH_REASONS.get(str(value).lower(), types.FinishReason.OTHER)


def _response(parts: list[types.Part], finish: Optional[types.FinishReason], usage: Any,
              model_version: Optional[str]) -> LlmResponse:
  if not parts and finish not in (None, types.FinishReason.STOP):
    return LlmResponse(error_code=finish.value, error_message=f"The model stopped with {finish.value} and no "
                       "content" + (" (the provider's content filter)." if finish == types.FinishReason.SAFETY else "."),
                       finish_reason=finish, usage_metadata=usage, model_version=model_version)
  return LlmResponse(content=types.Content(role="model", parts=parts), finish_reason=finish,
                     usage_metadata=usage, model_version=model_version)


def from_model_response(response: Any) -> LlmResponse:
  """An LlmResponse from litellm's ModelResponse (first choice)."""
  choice = response.choices[0] if response.choices else None
  if choice is None:
    return LlmResponse(error_code=codes.UNKNOWN_ERROR, error_message="The model returned no choices.")
  message = choice.message
  parts = []
  reasoning = getattr(message, "reasoning_content", None)
  if isinstance(reasoning, str) and reasoning:
    parts.append(types.Part(text=reasoning, thought=True))
  if message.content:
    parts.append(types.Part(text=message.content))
  for call in message.tool_calls or []:
    parts.append(types.Part(function_call=types.FunctionCall(
        id=call.id, name=call.function.name, args=parse_arguments(call.function.arguments))))
  return _response(parts, _finish_reason(choice.finish_reason), usage_metadata(getattr(response, "usage", None)),
                   getattr(response, "model", None))


@dataclass
class _CallSlot:
  """One streamed tool call as its fragments arrive: the id and name come once, the arguments in pieces."""

  id: Optional[str] = None
  name: str = ""
  arguments: str = ""


class StreamAggregator:
  """Turns streamed chat-completion chunks into partial LlmResponses and one final answer."""

  def __init__(self) -> None:
    self._text: list[str] = []
    self._reasoning: list[str] = []
    self._calls: dict[int, _CallSlot] = {}
    self._finish: Optional[types.FinishReason] = None
    self._usage: Optional[types.GenerateContentResponseUsageMetadata] = None
    self._model: Optional[str] = None

  def add(self, chunk: Any) -> list[LlmResponse]:
    """Absorbs one chunk; returns the partial responses it produces (text, thoughts, tool-call fragments)."""
    self._model = getattr(chunk, "model", None) or self._model
    self._usage = usage_metadata(getattr(chunk, "usage", None)) or self._usage
    out: list[LlmResponse] = []
    for choice in (chunk.choices or [])[:1]:
      self._finish = _finish_reason(choice.finish_reason) or self._finish
      delta = choice.delta
      if delta is None:
        continue
      reasoning = getattr(delta, "reasoning_content", None)
      if isinstance(reasoning, str) and reasoning:
        self._reasoning.append(reasoning)
        out.append(self._partial([types.Part(text=reasoning, thought=True)]))
      if delta.content:
        self._text.append(delta.content)
        out.append(self._partial([types.Part(text=delta.content)]))
      for i, call in enumerate(delta.tool_calls or []):
        index = call.index if getattr(call, "index", None) is not None else i
        slot = self._calls.setdefault(index, _CallSlot())
        fn = call.function
        if call.id:
          slot.id = call.id
        if fn is not None and fn.name and not slot.name:
          slot.name = fn.name
        fragment = (fn.arguments or "") if fn is not None else ""
        slot.arguments += fragment
        out.append(LlmResponse(partial=True, model_version=self._model, custom_metadata={TOOL_CALL_DELTA_KEY: {
            "index": index, "id": call.id, "name": fn.name if fn is not None else None, "arguments": fragment}}))
    return out

  def _partial(self, parts: list[types.Part]) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=parts), partial=True, model_version=self._model)

  def final(self) -> LlmResponse:
    """The whole answer: thoughts, text, then every tool call in index order with parsed arguments."""
    parts = []
    if self._reasoning:
      parts.append(types.Part(text="".join(self._reasoning), thought=True))
    if self._text:
      parts.append(types.Part(text="".join(self._text)))
    for index in sorted(self._calls):
      slot = self._calls[index]
      parts.append(types.Part(function_call=types.FunctionCall(
          id=slot.id, name=slot.name, args=parse_arguments(slot.arguments))))
    return _response(parts, self._finish, self._usage, self._model)


def _classify(error: BaseException) -> Optional[_retry.Failure]:
  """What a litellm (OpenAI-client) exception says about the attempt (None: not a provider failure)."""
  litellm = _litellm()
  exceptions = litellm.exceptions
  if isinstance(error, exceptions.Timeout):
    return _retry.Failure(None, f"timed out: {_message(error)}", transient=True)
  if isinstance(error, exceptions.APIConnectionError):
    return _retry.Failure(None, _message(error), transient=True)
  if isinstance(error, exceptions.AuthenticationError) or _MISSING_KEY.search(_message(error)):
    # litellm reports a key the client never had as a 500 (the OpenAI client fails before sending).
    return _retry.Failure(401, _message(error))
  status = getattr(error, "status_code", None)
  if not isinstance(status, int) or not isinstance(error, Exception) or not type(error).__module__.startswith(
      ("litellm", "openai")):
    return None
  return _retry.Failure(status, _message(error), _retry_after(error))


def _message(error: BaseException) -> str:
  return str(getattr(error, "message", None) or error)


def _retry_after(error: BaseException) -> Optional[float]:
  for headers in (getattr(error, "litellm_response_headers", None),
                  getattr(getattr(error, "response", None), "headers", None)):
    if headers is not None and hasattr(headers, "get"):
      value = headers.get("retry-after") or headers.get("Retry-After")
      if value is not None:
        return _retry.parse_retry_after(value)
  return None


GOOGLE_ADK_NAMES = (
    "_aggregate_streaming_thought_parts", "_append_fallback_user_content_if_missing", "_BraceDepthTracker",
    "_content_to_message_param", "_convert_reasoning_value_to_parts", "_enforce_strict_openai_schema",
    "_extract_cached_prompt_tokens", "_extract_json_from_deepseek_args", "_extract_reasoning_value",
    "_extract_thought_signature_from_tool_call", "_FILE_ID_REQUIRED_PROVIDERS", "_FINISH_REASON_MAPPING",
    "_function_declaration_to_tool_param", "FunctionChunk", "_get_completion_inputs", "_get_content",
    "_get_provider_from_model", "_is_anthropic_model", "_is_anthropic_provider", "_is_anthropic_route",
    "_looks_like_openai_file_id", "_message_to_generate_content_response", "_MISSING_TOOL_RESULT_MESSAGE",
    "_model_response_to_chunk", "_model_response_to_generate_content_response",
    "_parse_deepseek_tool_calls_from_text", "_parse_tool_calls_from_text", "ReasoningChunk",
    "_redact_file_uri_for_log", "_redirect_litellm_loggers_to_stdout", "_safe_json_serialize", "_schema_to_dict",
    "_split_message_content_and_tool_calls", "TextChunk", "_THOUGHT_SIGNATURE_SEPARATOR",
    "_to_litellm_response_format", "_to_litellm_role", "UsageMetadataChunk",
)
"""google-adk's private helper names (its tests and code written against it import them from here).

They live in `models/_litellm_compat.py` and load on first use: wrappers over the codecs above where
adk_nb converts the same thing, a NotImplementedError naming the README where it does not."""

__getattr__ = lazy_exports(__name__, {name: f"{__package__}._litellm_compat" for name in GOOGLE_ADK_NAMES})
