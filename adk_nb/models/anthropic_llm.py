"""Claude: runs agents on Anthropic's models, through the Anthropic API or Vertex AI.

`AnthropicLlm` calls the Anthropic API with the official `anthropic` SDK (ANTHROPIC_API_KEY);
`Claude` is google-adk's Vertex AI flavour (GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION).
The SDK is an optional dependency (`pip install 'adk_nb[anthropic]'`): importing `adk_nb.models`
does not import it, only this module does.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import re
import warnings
import weakref
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, AsyncGenerator, Literal, Optional, Union

try:
  from anthropic import AsyncAnthropic, AsyncAnthropicVertex, NOT_GIVEN
  from anthropic import types as anthropic_types
except ImportError as exc:  # pragma: no cover - exercised only without the extra
  raise ImportError("AnthropicLlm and Claude need the anthropic package, which is optional: "
                    "pip install 'adk_nb[anthropic]' (or use LiteLlm('anthropic/<model>')).") from exc
from google.genai import types
from pydantic import Field, PrivateAttr, model_validator

from . import _retry
from .base_llm import BaseLlm
from ._request_shape import with_user_turn
from .guard import check_real_call
from .lite_llm import schema_to_json
from .llm_request import LlmRequest
from .llm_response import LlmResponse

__all__ = [
    "AnthropicGenerateContentConfig",
    "AnthropicLlm",
    "Claude",
    "content_block_to_part",
    "content_to_message_param",
    "function_declaration_to_tool_param",
    "message_to_generate_content_response",
    "part_to_message_block",
    "to_claude_role",
    "to_google_genai_finish_reason",
]

logger = logging.getLogger(__name__)

_AUTH_FIX = ("Set ANTHROPIC_API_KEY to a key from https://console.anthropic.com/settings/keys, or pass "
             "AnthropicLlm(api_key=...).")
_VERTEX_AUTH_FIX = "Run `gcloud auth application-default login`, or pass Claude(client=AsyncAnthropicVertex(...))."

_FINISH_REASONS = {
    "end_turn": types.FinishReason.STOP,
    "stop_sequence": types.FinishReason.STOP,
    "tool_use": types.FinishReason.STOP,
    "pause_turn": types.FinishReason.STOP,
    "max_tokens": types.FinishReason.MAX_TOKENS,
    "refusal": types.FinishReason.SAFETY,
}

_IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")

# Anthropic requires tool_use ids of this shape; others (e.g. from another model) are replaced.
_VALID_TOOL_ID = re.compile(r"[a-zA-Z0-9_-]+")


# ---- request: genai Content -> Anthropic messages ---------------------------------------------


def to_claude_role(role: Optional[str]) -> Literal["user", "assistant"]:
  """Anthropic's role for a genai role: 'model' (or 'assistant') is the assistant, anything else the user."""
  return "assistant" if role in ("model", "assistant") else "user"


def to_google_genai_finish_reason(anthropic_stop_reason: Optional[str]) -> Optional[types.FinishReason]:
  """The genai FinishReason for an Anthropic stop_reason (None stays None; unknown ones are UNSPECIFIED)."""
  if anthropic_stop_reason is None:
    return None
  return _FINISH_REASONS.get(anthropic_stop_reason, types.FinishReason.FINISH_REASON_UNSPECIFIED)


class _ToolIds:
  """Replaces tool ids Anthropic would refuse with stable ones, the same for a call and its result."""

  def __init__(self) -> None:
    self._replaced: dict[str, str] = {}
    self._unnamed: list[str] = []

  def call(self, tool_id: Optional[str]) -> str:
    if tool_id and _VALID_TOOL_ID.fullmatch(tool_id):
      return tool_id
    new = f"toolu_adk_nb_{len(self._replaced) + len(self._unnamed)}"
    if tool_id:
      self._replaced[tool_id] = new
    else:
      self._unnamed.append(new)
    return new

  def result(self, tool_id: Optional[str]) -> str:
    if tool_id and _VALID_TOOL_ID.fullmatch(tool_id):
      return tool_id
    if tool_id and tool_id in self._replaced:
      return self._replaced[tool_id]
    if not tool_id and self._unnamed:  # an id-less result answers the oldest id-less call
      return self._unnamed.pop(0)
    return self.call(tool_id)


def _is_media(part: types.Part, kind: str) -> bool:
  blob = part.inline_data
  return bool(blob is not None and blob.mime_type and blob.mime_type.split(";", 1)[0].strip().lower().startswith(kind))


def _media_block(blob: types.Blob) -> Optional[dict[str, Any]]:
  """An image or PDF block for inline data, or None for a type Claude does not take."""
  mime = (blob.mime_type or "").split(";", 1)[0].strip().lower()
  data = base64.b64encode(blob.data or b"").decode()
  if mime in _IMAGE_TYPES:
    return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
  if mime == "application/pdf":
    return {"type": "document", "source": {"type": "base64", "media_type": mime, "data": data}}
  return None


def _tool_result_text(response: Optional[dict[str, Any]]) -> str:
  """A function response as the text of a tool_result (Claude reads tool results as text)."""
  data = response or {}
  content = data.get("content")
  if isinstance(content, list) and content:  # MCP-style content items
    return "\n".join(item["text"] if isinstance(item, dict) and item.get("type") == "text" and "text" in item
                     else str(item) for item in content)
  if isinstance(content, str) and content:
    return content
  if data.keys() == {"result"} and data["result"] is not None:  # the wrapper of a non-dict return value
    result = data["result"]
    return json.dumps(result) if isinstance(result, (dict, list)) else str(result)
  return json.dumps(data, default=str) if data else ""


def _part_to_block(part: types.Part, ids: _ToolIds) -> dict[str, Any]:
  if part.thought and part.text:
    signature = part.thought_signature.decode("utf-8") if part.thought_signature else ""
    return {"type": "thinking", "thinking": part.text, "signature": signature}
  if part.thought and part.thought_signature:
    return {"type": "redacted_thinking", "data": part.thought_signature.decode("utf-8")}
  if part.text:
    return {"type": "text", "text": part.text}
  if part.function_call is not None:
    fc = part.function_call
    return {"type": "tool_use", "id": ids.call(fc.id), "name": fc.name, "input": dict(fc.args or {})}
  if part.function_response is not None:
    fr = part.function_response
    text = _tool_result_text(fr.response)
    media = [b for b in (_media_block(p.inline_data) for p in fr.parts or [] if p.inline_data is not None
                         and p.inline_data.data is not None) if b is not None]
    content: Union[str, list[dict[str, Any]]] = text
    if media:
      content = ([{"type": "text", "text": text}] if text else []) + media
    return {"type": "tool_result", "tool_use_id": ids.result(fr.id), "content": content, "is_error": False}
  if part.inline_data is not None and part.inline_data.data is not None:
    block = _media_block(part.inline_data)
    if block is None:
      raise ValueError(f"Claude cannot take inline data of type {part.inline_data.mime_type!r}: send "
                       f"one of {', '.join(_IMAGE_TYPES)} or application/pdf, or convert it to text first.")
    return block
  if part.executable_code is not None:
    return {"type": "text", "text": "Code:```python\n" + (part.executable_code.code or "") + "\n```"}
  if part.code_execution_result is not None:
    return {"type": "text", "text": "Execution Result:```code_output\n"
            + (part.code_execution_result.output or "") + "\n```"}
  raise NotImplementedError(f"Claude cannot take this part yet (send text, inline images or PDFs, function "
                            f"calls or responses): {part!r}")


def _skipped(part: types.Part, role: str) -> bool:
  """Parts a message leaves out: media in assistant turns, empty text, another model's bare signatures."""
  if role == "assistant" and (_is_media(part, "image/") or _is_media(part, "application/pdf")):
    logger.warning("Claude takes no images or PDFs in assistant turns; one was left out of the request.")
    return True
  carries = (part.function_call, part.function_response, part.inline_data, part.file_data,
             part.executable_code, part.code_execution_result)
  if any(x is not None for x in carries) or part.text or (part.thought and part.thought_signature):
    return False
  return True


def _content_to_message(content: types.Content, ids: _ToolIds) -> dict[str, Any]:
  role = to_claude_role(content.role)
  parts = content.parts or []
  blocks = [_part_to_block(p, ids) for p in parts if not _skipped(p, role)]
  if not blocks and role == "user" and any(p.text == "" for p in parts):
    # An empty user turn (e.g. code that printed nothing) still needs a block; Anthropic refuses empty text.
    blocks = [{"type": "text", "text": "."}]
  return {"role": role, "content": blocks}


def part_to_message_block(part: types.Part) -> dict[str, Any]:
  """One genai Part as an Anthropic content block (text, thinking, tool_use, tool_result, image, document)."""
  return _part_to_block(part, _ToolIds())


def content_to_message_param(content: types.Content) -> dict[str, Any]:
  """One genai Content as an Anthropic message param `{"role": ..., "content": [blocks]}`."""
  return _content_to_message(content, _ToolIds())


def function_declaration_to_tool_param(function_declaration: types.FunctionDeclaration) -> dict[str, Any]:
  """A genai FunctionDeclaration as an Anthropic tool `{"name", "description", "input_schema"}`."""
  decl = function_declaration
  if not decl.name:
    raise ValueError(f"A function declaration sent to Claude needs a name: {decl!r}")
  if decl.parameters_json_schema is not None:
    schema = _lowercase_types(json.loads(json.dumps(decl.parameters_json_schema, default=str)))
  elif decl.parameters is not None:
    schema = schema_to_json(decl.parameters)
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
  else:
    schema = {"type": "object", "properties": {}}
  return {"name": decl.name, "description": decl.description or "", "input_schema": schema}


def _lowercase_types(schema: Any) -> Any:
  """A JSON schema with genai's upper-case type names ('OBJECT') in JSON schema's lower case."""
  if isinstance(schema, list):
    return [_lowercase_types(s) for s in schema]
  if not isinstance(schema, dict):
    return schema
  out = {}
  for key, value in schema.items():
    if key == "type" and isinstance(value, (str, list)):
      out[key] = value.lower() if isinstance(value, str) else [t.lower() if isinstance(t, str) else t for t in value]
    elif key in ("properties", "$defs", "definitions") and isinstance(value, dict):  # names stay as written
      out[key] = {name: _lowercase_types(s) for name, s in value.items()}
    else:
      out[key] = _lowercase_types(value)
  return out


# ---- response: Anthropic message -> LlmResponse -----------------------------------------------


def content_block_to_part(content_block: Any) -> types.Part:
  """One Anthropic response content block as a genai Part."""
  kind = getattr(content_block, "type", None)
  if kind == "text":
    return types.Part(text=content_block.text)
  if kind == "tool_use":
    return types.Part(function_call=types.FunctionCall(id=content_block.id, name=content_block.name,
                                                       args=dict(content_block.input or {})))
  if kind == "thinking":
    signature = content_block.signature.encode("utf-8") if content_block.signature else None
    return types.Part(text=content_block.thinking, thought=True, thought_signature=signature)
  if kind == "redacted_thinking":  # kept whole so it can go back to Claude on the next turn
    return types.Part(thought=True, thought_signature=content_block.data.encode("utf-8"))
  raise NotImplementedError(f"Claude answered with a content block adk_nb cannot read yet: {kind!r}")


def _usage(usage: Any, output_tokens: Optional[int] = None) -> types.GenerateContentResponseUsageMetadata:
  """genai usage from Anthropic's: cache reads and writes count as prompt tokens, as Gemini counts them."""
  def count(name: str) -> Optional[int]:
    value = getattr(usage, name, None)
    return value if isinstance(value, int) else None

  cached = count("cache_read_input_tokens")
  prompt = (count("input_tokens") or 0) + (cached or 0) + (count("cache_creation_input_tokens") or 0)
  output = output_tokens if isinstance(output_tokens, int) else (count("output_tokens") or 0)
  return types.GenerateContentResponseUsageMetadata(
      prompt_token_count=prompt, candidates_token_count=output, total_token_count=prompt + output,
      cached_content_token_count=cached)


def message_to_generate_content_response(message: Any) -> LlmResponse:
  """A whole Anthropic Message as an LlmResponse: parts, usage, finish reason and model version."""
  return _response([content_block_to_part(b) for b in message.content], _usage(message.usage),
                   message.stop_reason, message.model)


def _response(parts: list[types.Part], usage: Any, stop_reason: Optional[str], model: Optional[str]) -> LlmResponse:
  """The final LlmResponse; an answer with nothing in it that did not end normally is reported as an error."""
  finish = to_google_genai_finish_reason(stop_reason)
  if not parts and finish not in (None, types.FinishReason.STOP):
    return LlmResponse(error_code=finish.value, finish_reason=finish, usage_metadata=usage, model_version=model,
                       error_message=f"Claude stopped ({stop_reason}) without an answer.")
  return LlmResponse(content=types.Content(role="model", parts=parts), usage_metadata=usage, finish_reason=finish,
                     model_version=model)


@dataclass
class _Block:
  kind: str
  text: str = ""
  tool_id: str = ""
  name: str = ""
  signature: str = ""


@dataclass
class StreamAggregator:
  """Turns the Messages API's stream events into partial text LlmResponses and one final answer."""

  blocks: dict[int, _Block] = field(default_factory=dict)
  start_usage: Any = None
  output_tokens: Optional[int] = None
  stop_reason: Optional[str] = None
  model: Optional[str] = None

  def add(self, event: Any) -> Optional[LlmResponse]:
    """Absorbs one stream event; returns the partial response to show for it, if it carries text."""
    kind = event.type
    if kind == "message_start":
      model = getattr(event.message, "model", None)
      self.start_usage, self.model = event.message.usage, model if isinstance(model, str) else None
    elif kind == "content_block_start":
      self._start(event.index, event.content_block)
    elif kind == "content_block_delta":
      return self._delta(event.index, event.delta)
    elif kind == "message_delta":
      self.output_tokens = getattr(event.usage, "output_tokens", None)
      self.stop_reason = getattr(event.delta, "stop_reason", None) or self.stop_reason
    return None

  def _start(self, index: int, block: Any) -> None:
    kind = block.type
    if kind == "text":
      self.blocks[index] = _Block("text", text=block.text or "")
    elif kind == "tool_use":
      self.blocks[index] = _Block("tool_use", tool_id=block.id, name=block.name)
    elif kind == "thinking":
      self.blocks[index] = _Block("thinking", text=block.thinking or "", signature=block.signature or "")
    elif kind == "redacted_thinking":
      self.blocks[index] = _Block("redacted_thinking", signature=block.data)
    else:
      logger.warning("Claude streamed a content block adk_nb does not read yet (%s); it was left out.", kind)

  def _delta(self, index: int, delta: Any) -> Optional[LlmResponse]:
    block = self.blocks.get(index)
    if block is None:
      return None
    if delta.type == "text_delta":
      block.text += delta.text
      return self._partial(types.Part(text=delta.text))
    if delta.type == "thinking_delta":
      block.text += delta.thinking
      return self._partial(types.Part(text=delta.thinking, thought=True))
    if delta.type == "signature_delta":
      block.signature += delta.signature
    elif delta.type == "input_json_delta":
      block.text += delta.partial_json  # the tool's arguments, complete only at the end
    return None

  def _partial(self, part: types.Part) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=[part]), partial=True, model_version=self.model)

  def final(self) -> LlmResponse:
    """The whole answer: each block in order, tool arguments parsed, usage and finish reason."""
    parts = []
    for _, block in sorted(self.blocks.items()):
      if block.kind == "text":
        parts.append(types.Part(text=block.text))
      elif block.kind == "thinking":
        parts.append(types.Part(text=block.text, thought=True,
                                thought_signature=block.signature.encode("utf-8") if block.signature else None))
      elif block.kind == "redacted_thinking":
        parts.append(types.Part(thought=True, thought_signature=block.signature.encode("utf-8")))
      else:
        parts.append(types.Part(function_call=types.FunctionCall(
            id=block.tool_id, name=block.name, args=_tool_args(block.text))))
    final = _response(parts, _usage(self.start_usage, self.output_tokens), self.stop_reason, self.model)
    final.partial = False
    return final


def _tool_args(raw: str) -> dict[str, Any]:
  """Streamed tool input as a dict; text that is not a JSON object is kept where the flow reports it."""
  if not raw.strip():
    return {}
  from .lite_llm import MALFORMED_ARGUMENTS_KEY

  try:
    value = json.loads(raw)
  except ValueError as e:
    return {MALFORMED_ARGUMENTS_KEY: {"raw": raw, "error": str(e)}}
  if not isinstance(value, dict):
    return {MALFORMED_ARGUMENTS_KEY: {"raw": raw, "error": "the arguments are not a JSON object"}}
  return value


class AnthropicGenerateContentConfig(types.GenerateContentConfig):
  """A GenerateContentConfig with Claude's reasoning `effort` (google-adk's name and field)."""

  effort: Optional[Literal["low", "medium", "high", "xhigh", "max"]] = None
  """How hard Claude reasons (adaptive thinking); sent as output_config.effort."""

  @model_validator(mode="after")
  def _no_thinking_level(self) -> "AnthropicGenerateContentConfig":
    if self.thinking_config is not None and self.thinking_config.thinking_level is not None:
      raise ValueError("Claude has no thinking_level: set AnthropicGenerateContentConfig(effort=...) instead "
                       "('low', 'medium', 'high', 'xhigh' or 'max').")
    return self


# ---- the adapters ------------------------------------------------------------------------------


class AnthropicLlm(BaseLlm):
  """Runs an agent on Claude through the Anthropic API: `Agent(model=AnthropicLlm(model="claude-sonnet-4-5"))`.

  The key comes from ANTHROPIC_API_KEY (or `api_key=`); `base_url` points the client at another
  endpoint (a proxy, or a test server). A model name alone (`model="claude-..."`) resolves to
  `Claude`, the Vertex AI flavour, as in google-adk; build AnthropicLlm yourself for the Anthropic API.

  Beyond ADK: rate limits (429, 529 overloaded) and server errors (5xx) are retried with backoff and
  jitter (see `retry_options`) and end in adk_nb's ModelCallError family naming the fix.
  """

  model: str = "claude-sonnet-4-20250514"
  """The Claude model name."""
  max_tokens: int = 8192
  """The most tokens Claude may write in one answer (config.max_output_tokens takes precedence)."""
  client: Optional[Any] = Field(default=None, exclude=True, repr=False)
  """A ready AsyncAnthropic (or AsyncAnthropicVertex) client to use instead of building one."""
  api_key: Optional[str] = Field(default=None, exclude=True, repr=False)
  """The Anthropic API key (default: ANTHROPIC_API_KEY)."""
  base_url: Optional[str] = None
  """The API endpoint, e.g. 'http://127.0.0.1:8080' (default: the SDK's, ANTHROPIC_BASE_URL or Anthropic's)."""
  retry_options: Optional[_retry.RetryOptions] = None
  """How 429, 529, 5xx and timeouts are retried (default: RetryOptions(), 4 attempts)."""

  # One client per event loop: the SDK's httpx connection pool belongs to the loop that opened it.
  _clients: Any = PrivateAttr(default_factory=weakref.WeakKeyDictionary)

  @classmethod
  def supported_models(cls) -> list[str]:
    return [r"claude-.*"]

  @property
  def pairs_calls_by_id(self) -> bool:
    """Claude pairs each tool_result with its tool_use by id: the ids are kept."""
    return True

  async def generate_content_async(
      self, llm_request: LlmRequest, stream: bool = False
  ) -> AsyncGenerator[LlmResponse, None]:
    """Sends the request to Claude; with `stream=True` yields text as it arrives, then the whole answer."""
    client = self._client()
    kwargs, schema = self._request_kwargs(llm_request)
    retrying = dict(options=_retry.RetryOptions.coerce(self.retry_options), classify=_classify,
                    model=kwargs["model"], auth_fix=self._auth_fix)
    if not stream:
      message = await _retry.call_with_retries(lambda: client.messages.create(**kwargs), **retrying)
      response = message_to_generate_content_response(message)
      yield _schema_answer_as_text(response, nested=schema == "nested") if schema else response
      return
    aggregator = StreamAggregator()
    async for event in _retry.stream_with_retries(lambda: client.messages.create(stream=True, **kwargs),
                                                  **retrying):
      partial = aggregator.add(event)
      if partial is not None:
        yield partial
    final = aggregator.final()
    yield _schema_answer_as_text(final, nested=schema == "nested") if schema else final

  def _request_kwargs(self, llm_request: LlmRequest) -> tuple[dict[str, Any], Optional[str]]:
    """The arguments of messages.create, and how an output schema travels (None, 'object' or 'nested')."""
    ids = _ToolIds()
    messages = [m for m in (_content_to_message(c, ids) for c in with_user_turn(llm_request.contents))
                if m["content"]]
    config = llm_request.config
    # NOT_GIVEN (left out of the body by the SDK) keeps the call's shape the same as google-adk's.
    kwargs: dict[str, Any] = {"model": self._model_name(llm_request.model), "messages": messages,
                              "max_tokens": config.max_output_tokens or self.max_tokens,
                              "system": llm_request.system_instruction_text or NOT_GIVEN,
                              "tools": NOT_GIVEN, "tool_choice": NOT_GIVEN, "thinking": NOT_GIVEN}
    tools = [function_declaration_to_tool_param(d) for t in config.tools or []
             for d in getattr(t, "function_declarations", None) or []]
    if tools:
      kwargs["tools"] = tools
      kwargs["tool_choice"] = {"type": "auto"}
    thinking = _thinking(config)
    schema_tool, nested = _output_schema_tool(config)
    schema = None
    if schema_tool is not None and not tools:
      schema = "nested" if nested else "object"
      # Claude takes a schema as a tool's input: it is asked to call that one tool, and the call becomes the text.
      kwargs["tools"] = [schema_tool]
      forced = thinking is None or thinking["type"] == "disabled"  # Claude refuses a forced tool while thinking
      kwargs["tool_choice"] = ({"type": "tool", "name": _SCHEMA_TOOL, "disable_parallel_tool_use": True} if forced
                               else {"type": "auto", "disable_parallel_tool_use": True})
    if thinking is not None:
      kwargs["thinking"] = thinking
    effort = getattr(config, "effort", None)
    if not effort and config.thinking_config is not None and config.thinking_config.thinking_level is not None:
      warnings.warn("Claude has no thinking_level, so it was not sent: use AnthropicGenerateContentConfig(effort=...) "
                    "to set how hard Claude reasons.", UserWarning, stacklevel=3)
    if effort:
      kwargs["output_config"] = {"effort": effort}
    sampling = {k: getattr(config, k) for k in ("temperature", "top_p", "top_k") if getattr(config, k) is not None}
    if sampling and ((thinking is not None and thinking["type"] != "disabled") or effort):
      warnings.warn(f"Claude takes no {', '.join(sampling)} while it thinks (thinking or effort is set), so "
                    "they were not sent.", UserWarning, stacklevel=3)
    elif sampling:
      if "top_k" in sampling:
        sampling["top_k"] = int(sampling["top_k"])
      # Sent as extra body fields: the SDK's create() lost these keywords in 2.x, the API still takes them.
      kwargs["extra_body"] = sampling
    if config.stop_sequences:
      kwargs["stop_sequences"] = list(config.stop_sequences)
    return kwargs, schema

  def _model_name(self, model: Optional[str]) -> str:
    """The model id the API takes; a Vertex resource name is reduced to its model id."""
    model = model or self.model
    match = re.search(r"projects/[^/]+/locations/[^/]+/(?:publishers/anthropic/models|endpoints)/([^/:]+)", model)
    return match.group(1) if match else model

  @property
  def _auth_fix(self) -> str:
    return _AUTH_FIX

  def _client(self) -> Any:
    """The SDK client for the running event loop; fails before any network without a credential."""
    client = self.client if self.client is not None else self.__dict__.get("_anthropic_client")
    if client is None:  # (`_anthropic_client` is in __dict__ once read, or when a test patched it)
      loop = asyncio.get_running_loop()
      client = self._clients.get(loop)
      if client is None:
        self._check_credentials()
        client = self._clients[loop] = self._build_client()
    if isinstance(client, (AsyncAnthropic, AsyncAnthropicVertex)):  # a stand-in decides itself what it reaches
      check_real_call(self.model, str(client.base_url))
    return client

  @cached_property
  def _anthropic_client(self) -> Any:
    """google-adk's name for the client (cached on first read, as there)."""
    return self.client if self.client is not None else self._build_client()

  def _check_credentials(self) -> None:
    """Fails before any request when no key is set (the SDK would only fail at the first call)."""
    if not (self.api_key or os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN")):
      raise _retry.ModelAuthError(f"No API key for Claude model {self.model!r}: {_AUTH_FIX} To run Claude "
                                  "on Vertex AI instead, use Claude(model=...).", model=self.model)

  def _build_client(self) -> Any:
    base_url = self.base_url or os.environ.get("ANTHROPIC_BASE_URL")
    # Retries are ours (RetryOptions): the SDK must not retry underneath them.
    return AsyncAnthropic(api_key=self.api_key or os.environ.get("ANTHROPIC_API_KEY"), base_url=base_url,
                          max_retries=0)


class Claude(AnthropicLlm):
  """Runs an agent on Claude served from Vertex AI (google-adk's Claude): `Claude(model="claude-sonnet-4@20250514")`.

  The project and region come from GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or from a full
  resource name ('projects/P/locations/L/publishers/anthropic/models/M'); credentials are Google's
  application default credentials. For the Anthropic API with an ANTHROPIC_API_KEY use AnthropicLlm.
  """

  model: str = "claude-3-5-sonnet-v2@20241022"
  """The Claude model on Vertex AI, e.g. 'claude-sonnet-4@20250514'."""

  @property
  def _auth_fix(self) -> str:
    return _VERTEX_AUTH_FIX

  def _check_credentials(self) -> None:
    """Google's application default credentials are found by the SDK at the first request."""

  def _build_client(self) -> Any:
    if self.client is not None:
      if not isinstance(self.client, AsyncAnthropicVertex):
        raise ValueError("Claude (Vertex AI) needs an AsyncAnthropicVertex client; for an AsyncAnthropic "
                         "client use AnthropicLlm(client=...).")
      return self.client
    project = os.environ.get("GOOGLE_CLOUD_PROJECT")
    region = os.environ.get("GOOGLE_CLOUD_LOCATION")
    match = re.match(r"projects/([^/]+)/locations/([^/]+)/", self.model)
    if match:
      project, region = match.group(1), match.group(2)
    if not project or not region:
      raise ValueError(
          f"Model {self.model!r} resolves to Claude served from Vertex AI, which needs GOOGLE_CLOUD_PROJECT and "
          "GOOGLE_CLOUD_LOCATION set to the project and region serving it. To call the Anthropic API with an "
          f"ANTHROPIC_API_KEY instead, pass AnthropicLlm(model={self._model_name(None)!r}) as the agent's model.")
    base_url = self.base_url or os.environ.get("ANTHROPIC_VERTEX_BASE_URL")
    from .. import __version__

    agent = f"adk_nb/{__version__}"
    return AsyncAnthropicVertex(project_id=project, region=region, base_url=base_url, max_retries=0,
                                default_headers={"user-agent": agent, "x-goog-api-client": agent})


def _thinking(config: types.GenerateContentConfig) -> Optional[dict[str, Any]]:
  """Anthropic's `thinking` for a genai ThinkingConfig: 0 off, negative adaptive, positive a token budget."""
  if config.thinking_config is None:
    return None
  budget = config.thinking_config.thinking_budget
  if budget is None:
    raise ValueError("ThinkingConfig for Claude needs thinking_budget: 0 turns thinking off, -1 lets Claude "
                     "choose (adaptive), a number >= 1024 sets a token budget.")
  if budget == 0:
    return {"type": "disabled"}
  if budget < 0:
    return {"type": "adaptive", "display": "summarized"}
  return {"type": "enabled", "budget_tokens": budget}


_SCHEMA_TOOL = "structured_output"
_SCHEMA_VALUE = "response"


def _output_schema_tool(config: types.GenerateContentConfig) -> tuple[Optional[dict[str, Any]], bool]:
  """The tool that carries the config's response schema, and whether it had to be wrapped in an object."""
  if config.response_schema is None and config.response_json_schema is None:
    return None, False
  from .lite_llm import generation_args

  schema = generation_args(config)["response_format"]["json_schema"]["schema"]
  nested = schema.get("type") != "object"
  if nested:
    defs = schema.pop("$defs", None)  # $refs resolve from the root, so the definitions stay there
    schema = {"type": "object", "properties": {_SCHEMA_VALUE: schema}, "required": [_SCHEMA_VALUE],
              **({"$defs": defs} if defs else {})}
  return {"name": _SCHEMA_TOOL, "input_schema": schema,
          "description": "Give your final answer by calling this tool once; its input is the whole answer."}, nested


def _schema_answer_as_text(response: LlmResponse, *, nested: bool) -> LlmResponse:
  """The response with Claude's call of the schema tool turned into the JSON text the agent expects."""
  parts = response.content.parts if response.content else None
  call = next((p.function_call for p in parts or [] if p.function_call and p.function_call.name == _SCHEMA_TOOL),
              None)
  if call is None:
    return response
  args = call.args or {}
  value = args.get(_SCHEMA_VALUE) if nested else args
  kept = [p for p in parts if p.thought]  # narration before the call is not part of the answer
  response.content = types.Content(role="model", parts=[*kept, types.Part(text=json.dumps(value, ensure_ascii=False))])
  return response


def _build_anthropic_thinking_param(config: Optional[types.GenerateContentConfig]) -> Any:
  """google-adk's name: the `thinking` parameter for a config, or NOT_GIVEN when it sets none."""
  thinking = _thinking(config) if config is not None else None
  return NOT_GIVEN if thinking is None else thinking


def _classify(error: BaseException) -> Optional[_retry.Failure]:
  """What an anthropic SDK exception says about the attempt (None: not a provider failure)."""
  import anthropic

  if isinstance(error, anthropic.APITimeoutError):
    return _retry.Failure(None, f"timed out: {error}", transient=True)
  if isinstance(error, anthropic.APIConnectionError):
    return _retry.Failure(None, f"{type(error).__name__}: {error}", transient=True)
  if isinstance(error, anthropic.APIStatusError):
    headers = getattr(error.response, "headers", None) or {}
    # 529 is Anthropic's "overloaded": a server error worth retrying like 503.
    return _retry.Failure(error.status_code, _message(error), _retry.parse_retry_after(headers.get("retry-after")),
                          transient=error.status_code == 529)
  if isinstance(error, anthropic.AuthenticationError):  # pragma: no cover - an APIStatusError already
    return _retry.Failure(401, str(error))
  return None


def _message(error: Any) -> str:
  body = getattr(error, "body", None)
  if isinstance(body, dict):
    inner = body.get("error", body)
    if isinstance(inner, dict) and inner.get("message"):
      return f"{inner.get('type', 'error')}: {inner['message']}"
  return str(getattr(error, "message", None) or error)
