"""google-adk's private LiteLLM helper names, at `adk_nb.models.lite_llm` (re-exported there).

Google's `tests/unittests/models/test_litellm.py` and code written against google-adk import these
from `google.adk.models.lite_llm`. Where adk_nb's adapter converts the same thing, the name is a thin
wrapper over its codecs in `lite_llm.py` (one converter, two spellings). Where google-adk does
something adk_nb does not (read tool calls out of plain text, upload files for OpenAI, carry
Anthropic thinking signatures and Gemini thought signatures through tool-call ids, rewrite schemas
for OpenAI's strict mode), the name raises `NotImplementedError` saying so; the README's
"Compatibility" section lists each with the reason.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator, Optional, Union
from urllib.parse import urlparse

from google.genai import types
from pydantic import BaseModel

from ._request_shape import with_user_turn
from .lite_llm import (_FINISH_REASONS, _json, _lowercase_types, _parameters, _rename_schema_keys, cached_prompt_tokens,
                       content_to_messages, from_model_response, generation_args, parse_arguments, schema_to_json,
                       to_messages, to_tools, usage_metadata, user_content)
from .lite_llm import GOOGLE_ADK_NAMES
from .llm_request import LlmRequest
from .llm_response import LlmResponse

__all__ = list(GOOGLE_ADK_NAMES)

_FINISH_REASON_MAPPING = _FINISH_REASONS
"""google-adk's name for the finish-reason table (OpenAI finish_reason -> genai FinishReason)."""


def _to_litellm_role(role: Optional[str]) -> str:
  """The chat role for a genai role: 'model' (or 'assistant') is the assistant, anything else the user."""
  return "assistant" if role in ("model", "assistant") else "user"


def _safe_json_serialize(obj: Any) -> str:
  """`obj` as JSON text, or `str(obj)` when it is not JSON-serialisable."""
  try:
    return json.dumps(obj, ensure_ascii=False)
  except (TypeError, ValueError, OverflowError, RecursionError):
    return str(obj)


def _get_provider_from_model(model: str) -> str:
  """The provider of a LiteLLM model name ('openai/gpt-4o' -> 'openai'), or '' when the name does not say."""
  if not model:
    return ""
  if model.startswith("litellm_proxy/"):
    model = model.split("/", 1)[1]
  if "/" in model:
    return model.split("/", 1)[0].lower()
  lower = model.lower()
  if "azure" in lower:
    return "azure"
  return "openai" if lower.startswith(("gpt-", "o1")) else ""


async def _content_to_message_param(content: types.Content, **_provider_options: Any) -> Any:
  """One Content as a chat message, a list of them (several tool results), or None when it has none.

  google-adk's keyword arguments (provider, model, upload_params, ...) are accepted and not needed:
  adk_nb sends media inline rather than uploading files.
  """
  messages = content_to_messages(content)
  if not messages:
    return None
  return messages[0] if len(messages) == 1 else messages


async def _get_content(parts: Any, **_provider_options: Any) -> Any:
  """The `content` of a user message for these parts: the text alone, or a list of content items.

  As in google-adk, thought parts are not filtered here (the message builders leave them out).
  """
  return user_content(list(parts))


def _schema_to_dict(schema: Union[types.Schema, dict[str, Any]]) -> dict[str, Any]:
  """A genai Schema (or a Gemini-style schema dict) as a plain JSON schema dict."""
  if isinstance(schema, types.Schema):
    return schema_to_json(schema)
  return _lowercase_types(_rename_schema_keys(json.loads(_json(schema))))


def _function_declaration_to_tool_param(function_declaration: types.FunctionDeclaration) -> dict[str, Any]:
  """One FunctionDeclaration as an OpenAI `tools` entry."""
  decl = function_declaration
  return {"type": "function", "function": {"name": decl.name, "description": decl.description or "",
                                           "parameters": _parameters(decl)}}


def _model_response_to_generate_content_response(response: Any) -> LlmResponse:
  """google-adk's name for `from_model_response`."""
  return from_model_response(response)


def _message_to_generate_content_response(message: Any, *, is_partial: bool = False,
                                          model_version: Optional[str] = None,
                                          thought_parts: Optional[list[types.Part]] = None) -> LlmResponse:
  """One chat message (litellm Message or dict) as an LlmResponse: thoughts, text, then tool calls."""
  get = message.get if hasattr(message, "get") else (lambda k, d=None: getattr(message, k, d))
  parts = list(thought_parts or [])
  reasoning = get("reasoning_content", None)
  if not parts and isinstance(reasoning, str) and reasoning:
    parts.append(types.Part(text=reasoning, thought=True))
  if get("content", None):
    parts.append(types.Part(text=get("content")))
  for call in get("tool_calls", None) or []:
    fn = call.get("function") if isinstance(call, dict) else call.function
    name = fn.get("name") if isinstance(fn, dict) else fn.name
    arguments = fn.get("arguments") if isinstance(fn, dict) else fn.arguments
    call_id = call.get("id") if isinstance(call, dict) else call.id
    parts.append(types.Part(function_call=types.FunctionCall(id=call_id, name=name,
                                                             args=parse_arguments(arguments))))
  return LlmResponse(content=types.Content(role="model", parts=parts), partial=is_partial or None,
                     model_version=model_version)


async def _get_completion_inputs(llm_request: LlmRequest, model: str = "", upload_params: Any = None,
                                 **_provider_options: Any) -> tuple[Any, Any, Any, Any]:
  """(messages, tools or None, response_format or None, the other generation arguments or None)."""
  args = generation_args(llm_request.config)
  response_format = args.pop("response_format", None)
  return to_messages(llm_request), to_tools(llm_request.config) or None, response_format, args or None


def _get(obj: Any, key: str, default: Any = None) -> Any:
  """`obj[key]` for dicts and litellm's dict-like objects, `obj.key` otherwise."""
  if obj is None:
    return default
  if isinstance(obj, dict):
    return obj.get(key, default)
  getter = getattr(obj, "get", None)
  if callable(getter):
    try:
      return getter(key, default)
    except TypeError:
      pass
  return getattr(obj, key, default)


# ---- streamed chunks, read one at a time (adk_nb's StreamAggregator reads the same fields) -----------


class FunctionChunk(BaseModel):
  """A tool-call fragment of one streamed chunk: id and name come once, args arrive in pieces."""

  id: Optional[str]
  name: Optional[str]
  args: Optional[str]
  index: Optional[int] = 0
  thought_signature: Optional[bytes] = None


class TextChunk(BaseModel):
  """Answer text of one chunk."""

  text: str


class ReasoningChunk(BaseModel):
  """The model's reasoning in one chunk, as thought parts."""

  parts: list[types.Part]


class UsageMetadataChunk(BaseModel):
  """Token counts (usually on the last chunk)."""

  prompt_tokens: int
  completion_tokens: int
  total_tokens: int
  cached_prompt_tokens: int = 0
  reasoning_tokens: int = 0
  cache_creation_tokens: Optional[int] = None


Chunk = Union[TextChunk, FunctionChunk, ReasoningChunk, UsageMetadataChunk]


def _model_response_to_chunk(response: Any) -> Iterator[tuple[Optional[Chunk], Optional[str]]]:
  """What one litellm response or stream chunk says, piece by piece, each with the choice's finish reason.

  Reasoning first, then text, then each tool call, then `(None, finish_reason)` when the chunk only
  ends the answer, and the usage last (with no finish reason). Only the first candidate is read.
  """
  choices = _get(response, "choices") or []
  choice = next((c for c in choices if not _get(c, "index")), None)
  if choice is None:
    yield None, None
  else:
    finish = _get(choice, "finish_reason")
    message = _get(choice, "delta") if _get(choice, "delta") is not None else _get(choice, "message")
    reasoning = _convert_reasoning_value_to_parts(_extract_reasoning_value(message)) if message is not None else []
    content, calls = _split_message_content_and_tool_calls(message) if message is not None else (None, [])
    if reasoning:
      yield ReasoningChunk(parts=reasoning), finish
    if content:
      yield TextChunk(text=content), finish
    for i, call in enumerate(calls):
      fn = _get(call, "function")
      name, args = _get(fn, "name"), _get(fn, "arguments")
      if fn is None or (not name and not args):
        continue
      index = _get(call, "index")
      yield FunctionChunk(id=_get(call, "id"), name=name, args=args, index=i if index is None else index), finish
    if finish and not (content or calls or reasoning):
      yield None, finish
  usage = _get(response, "usage")
  if usage:
    counted = usage_metadata(usage)
    yield UsageMetadataChunk(
        prompt_tokens=_get(usage, "prompt_tokens") or 0, completion_tokens=_get(usage, "completion_tokens") or 0,
        total_tokens=_get(usage, "total_tokens") or 0,
        cached_prompt_tokens=cached_prompt_tokens(usage),
        reasoning_tokens=(counted.thoughts_token_count or 0) if counted else 0), None


def _split_message_content_and_tool_calls(message: Any) -> tuple[Any, list[Any]]:
  """(content, tool_calls) of a chat message. Text stays text: adk_nb reads no tool calls out of it."""
  return _get(message, "content"), list(_get(message, "tool_calls") or [])


_extract_cached_prompt_tokens = cached_prompt_tokens
"""google-adk's name for `lite_llm.cached_prompt_tokens`."""


# ---- reasoning -------------------------------------------------------------------------------------


def _extract_reasoning_value(message: Any) -> Any:
  """The reasoning a message carries: `thinking_blocks`, else `reasoning_content`, else `reasoning`."""
  if message is None:
    return None
  for key in ("thinking_blocks", "reasoning_content", "reasoning"):
    value = _get(message, key)
    if value is not None:
      return value
  return None


def _reasoning_texts(value: Any) -> Iterator[str]:
  if isinstance(value, str):
    yield value
  elif isinstance(value, dict):
    for key in ("thinking", "text", "content", "reasoning"):
      if isinstance(value.get(key), str):
        yield value[key]
        return
  elif isinstance(value, (list, tuple)):
    for item in value:
      yield from _reasoning_texts(item)


def _convert_reasoning_value_to_parts(reasoning_value: Any) -> list[types.Part]:
  """Reasoning (a string, text blocks, Anthropic thinking blocks) as thought parts; redacted blocks are left out.

  adk_nb keeps the text only: a thinking block's signature is not carried into the next request.
  """
  if isinstance(reasoning_value, list):
    reasoning_value = [b for b in reasoning_value if not (isinstance(b, dict) and b.get("type") == "redacted")]
  return [types.Part(text=text, thought=True) for text in _reasoning_texts(reasoning_value) if text]


def _aggregate_streaming_thought_parts(thought_parts: Iterable[types.Part]) -> list[types.Part]:
  """Streamed thought fragments joined into whole parts: a part with a signature closes the text before it."""
  out: list[types.Part] = []
  texts: list[str] = []
  for part in thought_parts:
    if part.text:
      texts.append(part.text)
    if part.thought_signature:
      out.append(types.Part(text="".join(texts), thought=True, thought_signature=part.thought_signature))
      texts = []
  if texts:
    out.append(types.Part(text="".join(texts), thought=True))
  return out


# ---- request shaping ---------------------------------------------------------------------------------


def _append_fallback_user_content_if_missing(llm_request: LlmRequest) -> None:
  """Makes the request end with a user turn, as chat models expect (the turn `to_messages` sends).

  google-adk's text differs ("Handle the requests as specified in the System Instruction."), and it
  fills an empty last user turn in place; adk_nb adds its own turn after a model turn instead.
  """
  llm_request.contents[:] = with_user_turn(list(llm_request.contents))


def _to_litellm_response_format(response_schema: Any, model: str = "") -> Optional[dict[str, Any]]:
  """The `response_format` LiteLlm sends for this response schema (OpenAI's json_schema form, for every model)."""
  config = types.GenerateContentConfig(response_schema=response_schema) if not isinstance(
      response_schema, dict) else None
  if config is None:  # a JSON-schema dict: GenerateContentConfig would coerce it into a Schema
    body = _lowercase_types(_rename_schema_keys(json.loads(_json(response_schema))))
    return {"type": "json_schema", "json_schema": {"name": str(response_schema.get("title", "response")),
                                                   "schema": body}}
  return generation_args(config).get("response_format")


# ---- names of providers and files -------------------------------------------------------------------

_THOUGHT_SIGNATURE_SEPARATOR = "__thought__"
"""How litellm joins a Gemini thought signature to a tool-call id (adk_nb does not split it off)."""

_FILE_ID_REQUIRED_PROVIDERS = frozenset({"openai", "azure"})
"""Providers whose file parts google-adk uploads for a file id; adk_nb sends file data inline to every provider."""

_MISSING_TOOL_RESULT_MESSAGE = ("Error: this tool call has no result (it was interrupted before one was "
                                "recorded).")
"""What google-adk sends for a call with no result. adk_nb never needs it: the Runner records an explicit
answer for every interrupted call, so each call in the history has its result."""

_ANTHROPIC_PROVIDERS = frozenset({"anthropic", "bedrock", "vertex_ai"})


def _without_proxy(model: str) -> str:
  return model.split("/", 1)[1] if model.lower().startswith("litellm_proxy/") else model


def _is_anthropic_model(model_string: str) -> bool:
  """True for a Claude model name: `anthropic/...`, `bedrock/...anthropic...|claude...`, `vertex_ai/...claude...`."""
  lower = _without_proxy(model_string.lower())
  provider, _, rest = lower.partition("/")
  if provider == "anthropic":
    return True
  if provider == "bedrock":
    return "anthropic" in rest or "claude" in rest
  if provider == "vertex_ai":
    return "claude" in rest
  return False


def _is_anthropic_provider(provider: str) -> bool:
  """True for a provider that can serve a Claude model (anthropic, bedrock, vertex_ai)."""
  return bool(provider) and provider.lower() in _ANTHROPIC_PROVIDERS


def _is_anthropic_route(provider: str, model: str) -> bool:
  """True when this provider and model reach a Claude model (on bedrock and vertex_ai the model name decides)."""
  if not _is_anthropic_provider(provider):
    return False
  if provider.lower() not in ("bedrock", "vertex_ai"):
    return True
  name = _without_proxy(model or "")
  return _is_anthropic_model(name if "/" in name else f"{provider.lower()}/{name}")


def _looks_like_openai_file_id(file_uri: str) -> bool:
  """True for an OpenAI / Azure file id (`file-...`, `assistant-...`)."""
  return file_uri.startswith(("file-", "assistant-"))


def _redact_file_uri_for_log(file_uri: str, *, display_name: Optional[str] = None) -> str:
  """A file URI as logs may show it: the display name, or the scheme and the last path segment only."""
  if display_name:
    return display_name
  if _looks_like_openai_file_id(file_uri):
    return file_uri.split("-", 1)[0] + "-<redacted>"
  try:
    parsed = urlparse(file_uri)
  except ValueError:
    return "<unparseable>"
  if not parsed.scheme:
    return "<unknown>"
  tail = [segment for segment in parsed.path.split("/") if segment][-1:]
  return f"{parsed.scheme}://<redacted>" + (f"/{tail[0]}" if tail else "")


# ---- what google-adk does and adk_nb does not (README "Compatibility": LiteLLM) ----------------------


def _not_in_adk_nb(what: str) -> NotImplementedError:
  return NotImplementedError(f"adk_nb's LiteLlm does not {what}; see the README's Compatibility section (LiteLLM).")


def _parse_tool_calls_from_text(text: str) -> Any:
  """google-adk reads JSON tool calls out of a model's plain text; adk_nb keeps text as text."""
  raise _not_in_adk_nb("read tool calls out of plain text (only structured tool_calls are calls)")


def _parse_deepseek_tool_calls_from_text(text: str) -> Any:
  """google-adk reads DeepSeek's text-encoded tool calls; adk_nb keeps text as text."""
  raise _not_in_adk_nb("read DeepSeek's text-encoded tool calls")


def _extract_json_from_deepseek_args(text: str) -> Any:
  """Part of google-adk's DeepSeek text parser (see _parse_deepseek_tool_calls_from_text)."""
  raise _not_in_adk_nb("read DeepSeek's text-encoded tool calls")


class _BraceDepthTracker:
  """Part of google-adk's text tool-call parser (see _parse_tool_calls_from_text)."""

  def __init__(self, *args: Any, **kwargs: Any) -> None:
    raise _not_in_adk_nb("read tool calls out of plain text")


def _enforce_strict_openai_schema(schema: Any) -> Any:
  """google-adk rewrites schemas for OpenAI's strict mode; adk_nb sends the schema as the tool declares it."""
  raise _not_in_adk_nb("rewrite tool schemas for OpenAI's strict mode")


def _extract_thought_signature_from_tool_call(tool_call: Any) -> Any:
  """google-adk carries Gemini thought signatures through litellm tool-call ids; adk_nb keeps the id whole."""
  raise _not_in_adk_nb("carry Gemini thought signatures through tool-call ids")


def _redirect_litellm_loggers_to_stdout() -> None:
  """google-adk moves litellm's log handlers to stdout; adk_nb leaves litellm's logging as litellm sets it."""
  raise _not_in_adk_nb("move litellm's log handlers")
