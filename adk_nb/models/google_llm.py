"""Gemini: talks to Google's Gemini API (or Vertex AI) through google-genai's async client."""

from __future__ import annotations

import asyncio
import os
import weakref
from typing import Any, AsyncGenerator, ClassVar, Optional, Union

from google.genai import types
from pydantic import Field, PrivateAttr

from ..errors import codes
from . import _retry
from .base_llm import BaseLlm
from ._request_shape import with_user_turn
from .guard import check_real_call
from .llm_request import LlmRequest
from .registry import default_model_hint
from .llm_response import LlmResponse

_AUTH_FIX = ("Set GOOGLE_API_KEY (or GEMINI_API_KEY) to a key from https://aistudio.google.com/apikey, "
             "or pass Gemini(client_kwargs={'api_key': ...}).")


class Gemini(BaseLlm):
  """Runs an agent on a Gemini model: `Agent(model=Gemini(model="gemini-2.5-flash"))`.

  The API key comes from GOOGLE_API_KEY or GEMINI_API_KEY (or `client_kwargs={'api_key': ...}`);
  Vertex AI is used when `client_kwargs={'vertexai': True, ...}` or GOOGLE_GENAI_USE_VERTEXAI is
  set. `base_url` points the client at another endpoint (a proxy, or a test server).

  Beyond ADK: rate limits (429) and server errors (5xx) are retried with exponential backoff
  and full jitter (see `retry_options`); google-adk raises the first 429 out of the run.
  """

  model: str = "gemini-2.5-flash"
  """The Gemini model name."""
  client: Optional[Any] = Field(default=None, exclude=True, repr=False)
  """A ready google.genai.Client to use instead of building one (then `base_url` is ignored)."""
  client_kwargs: Optional[dict[str, Any]] = Field(default=None, exclude=True, repr=False)
  """Extra arguments for google.genai.Client (api_key, vertexai, project, location, http_options)."""
  base_url: Optional[str] = None
  """The API endpoint, e.g. 'http://127.0.0.1:8080' (default: Google's)."""
  api_version: Optional[str] = None
  """The API version, e.g. 'v1' (default: the client's, 'v1beta' for the Gemini API)."""
  retry_options: Optional[Union[_retry.RetryOptions, types.HttpRetryOptions]] = None
  """How 429, 5xx and timeouts are retried (default: RetryOptions(), 4 attempts)."""

  supports_context_cache: ClassVar[bool] = True
  """Requests carrying a ContextCacheConfig are cached (see gemini_context_cache_manager)."""

  # One client per event loop: google-genai's async sessions are bound to the loop that made them.
  _clients: Any = PrivateAttr(default_factory=weakref.WeakKeyDictionary)

  @classmethod
  def supported_models(cls) -> list[str]:
    return [
        r"gemini-.*",
        r"model-optimizer-.*",
        r"projects/.+/locations/.+/endpoints/.+",
        r"projects/.+/locations/.+/publishers/google/models/gemini.+",
    ]

  async def generate_content_async(
      self, llm_request: LlmRequest, stream: bool = False
  ) -> AsyncGenerator[LlmResponse, None]:
    """Sends the request to Gemini; with `stream=True` yields partial chunks as they arrive, then the whole answer."""
    model = llm_request.model or self.model
    client = self._api_client()
    api = client.aio.models
    check_real_call(model, self._effective_base_url())
    cache = None
    if llm_request.cache_config is not None:
      from .gemini_context_cache_manager import GeminiContextCacheManager

      # The manager rewrites the request (cache name in, cached parts out): a copy of it.
      llm_request = llm_request.model_copy(update={"model": model, "config": llm_request.config.model_copy()})
      cache = await GeminiContextCacheManager(client).handle_context_caching(llm_request)
    _refuse_search_with_functions(model, llm_request.config)
    contents = _without_client_call_ids(with_user_turn(llm_request.contents))
    config = llm_request.config
    if not getattr(getattr(client, "_api_client", None), "vertexai", False):  # the Gemini API (an API key)
      if config.labels:
        config = config.model_copy(update={"labels": None})  # it refuses labels
      contents = _without_display_names(contents)  # and the display names of media
    options = _retry.RetryOptions.coerce(self.retry_options)
    retrying = dict(options=options, classify=_classify, model=model, auth_fix=_AUTH_FIX)

    if not stream:
      response = await _retry.call_with_retries(
          lambda: api.generate_content(model=model, contents=contents, config=config), **retrying)
      final = LlmResponse.create(response)
    else:
      aggregator = StreamAggregator()
      opened = lambda: api.generate_content_stream(model=model, contents=contents, config=config)  # noqa: E731
      async for chunk in _retry.stream_with_retries(opened, **retrying):
        for partial in aggregator.add(chunk):
          yield partial
      final = aggregator.final()
    if cache is not None:
      final.cache_metadata = cache
    yield final

  def _api_client(self):
    """The google.genai.Client for the running event loop; fails before any network without a key."""
    if self.client is not None:
      return self.client
    loop = asyncio.get_running_loop()
    client = self._clients.get(loop)
    if client is None:
      client = self._clients[loop] = self._build_client()
    return client

  def _build_client(self):
    from google import genai

    kwargs = dict(self.client_kwargs or {})
    vertex = kwargs.get("vertexai")
    if vertex is None:
      vertex = os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in ("1", "true", "yes")
    if not vertex and not kwargs.get("api_key"):
      key = os.environ.get("GOOGLE_API_KEY") or os.environ.get("GEMINI_API_KEY")
      if not key:
        raise _retry.ModelAuthError(
            f"No API key for Gemini model {self.model!r}: set GOOGLE_API_KEY (or GEMINI_API_KEY) to a key "
            "from https://aistudio.google.com/apikey, pass Gemini(client_kwargs={'api_key': ...}), or "
            "use Vertex AI with GOOGLE_GENAI_USE_VERTEXAI=true." + default_model_hint(self), model=self.model)
      kwargs["api_key"] = key
    http_options = kwargs.get("http_options") or types.HttpOptions()
    if isinstance(http_options, dict):
      http_options = types.HttpOptions(**http_options)
    update: dict[str, Any] = {}
    if self.base_url:
      update["base_url"] = self.base_url
    if self.api_version:
      update["api_version"] = self.api_version
    # Retries are ours (RetryOptions): the client must not retry underneath them.
    update["retry_options"] = None
    kwargs["http_options"] = http_options.model_copy(update=update)
    return genai.Client(**kwargs)

  def _effective_base_url(self) -> Optional[str]:
    if self.client is not None:
      options = getattr(getattr(self.client, "_api_client", None), "_http_options", None)
      return getattr(options, "base_url", None)
    if self.base_url:
      return self.base_url
    http_options = (self.client_kwargs or {}).get("http_options")
    if isinstance(http_options, dict):
      return http_options.get("base_url")
    return getattr(http_options, "base_url", None)


def _refuse_search_with_functions(model: str, config: types.GenerateContentConfig) -> None:
  """Gemini before 3 rejects built-in search beside function declarations: say how to fix it first."""
  tools = [t for t in config.tools or [] if isinstance(t, types.Tool)]
  if not any(t.google_search is not None for t in tools) or not any(t.function_declarations for t in tools):
    return
  version = model.rsplit("/", 1)[-1].removeprefix("gemini-").split("-")[0].split(".")[0]
  if version.isdigit() and int(version) >= 3:
    return
  raise ValueError(f"{model} does not accept google_search together with function tools (Gemini 3 does). Use "
                   "GoogleSearchTool(bypass_multi_tools_limit=True), which runs the search in an agent of its own, "
                   "or a Gemini 3 model.")


def _without_client_call_ids(contents: list[types.Content]) -> list[types.Content]:
  """The contents with adk_nb's own 'adk-...' call ids removed: Gemini never issued them (as ADK does)."""

  def has_client_id(part: types.Part) -> bool:
    item = part.function_call or part.function_response
    return item is not None and bool(item.id) and item.id.startswith("adk-")

  out = []
  for content in contents:
    if any(has_client_id(p) for p in content.parts or []):
      parts = []
      for p in content.parts:
        if has_client_id(p):
          key = "function_call" if p.function_call is not None else "function_response"
          p = p.model_copy(update={key: getattr(p, key).model_copy(update={"id": None})})
        parts.append(p)
      content = content.model_copy(update={"parts": parts})
    out.append(content)
  return out


def _without_display_names(contents: list[types.Content]) -> list[types.Content]:
  """The contents without the `display_name` of inline or file data, which only Vertex AI takes (as
  google-adk sends them to the Gemini API). Unchanged, and not copied, when none has one."""

  def named(part: types.Part) -> bool:
    return ((part.inline_data is not None and part.inline_data.display_name is not None)
            or (part.file_data is not None and part.file_data.display_name is not None))

  out = []
  for content in contents:
    if any(named(p) for p in content.parts or []):
      parts = []
      for p in content.parts:
        if named(p):
          update = {key: getattr(p, key).model_copy(update={"display_name": None})
                    for key in ("inline_data", "file_data") if getattr(p, key) is not None}
          p = p.model_copy(update=update)
        parts.append(p)
      content = content.model_copy(update={"parts": parts})
    out.append(content)
  return out


class StreamAggregator:
  """Turns streamed GenerateContentResponse chunks into partial LlmResponses and one final answer."""

  def __init__(self) -> None:
    self._parts: list[types.Part] = []
    self._usage: Optional[types.GenerateContentResponseUsageMetadata] = None
    self._finish: Optional[types.FinishReason] = None
    self._model_version: Optional[str] = None
    self._grounding: Optional[types.GroundingMetadata] = None
    self._citation: Optional[types.CitationMetadata] = None
    self._error: Optional[LlmResponse] = None
    self._seen = False

  def add(self, chunk: types.GenerateContentResponse) -> list[LlmResponse]:
    """Absorbs one chunk; returns the partial response to show for it (empty when it adds no content)."""
    self._seen = True
    self._usage = chunk.usage_metadata or self._usage
    self._model_version = chunk.model_version or self._model_version
    candidate = chunk.candidates[0] if chunk.candidates else None
    if candidate is None:
      if chunk.prompt_feedback and chunk.prompt_feedback.block_reason:
        self._error = LlmResponse.create(chunk)
      return []
    self._finish = candidate.finish_reason or self._finish
    self._grounding = candidate.grounding_metadata or self._grounding
    self._citation = candidate.citation_metadata or self._citation
    parts = list(candidate.content.parts or []) if candidate.content else []
    for part in parts:
      self._absorb(part)
    if not parts:
      return []
    return [LlmResponse(content=types.Content(role="model", parts=parts), partial=True,
                        model_version=chunk.model_version)]

  def _absorb(self, part: types.Part) -> None:
    last = self._parts[-1] if self._parts else None
    mergeable = (part.text is not None and last is not None and last.text is not None
                 and bool(last.thought) == bool(part.thought) and part.function_call is None)
    if mergeable:
      self._parts[-1] = last.model_copy(update={
          "text": last.text + part.text,
          "thought_signature": part.thought_signature or last.thought_signature,
      })
    else:
      self._parts.append(part)

  def final(self) -> LlmResponse:
    """The whole answer: all text merged, every function call, last usage and finish reason."""
    common = dict(usage_metadata=self._usage, model_version=self._model_version,
                  grounding_metadata=self._grounding, citation_metadata=self._citation,
                  finish_reason=self._finish)
    content = types.Content(role="model", parts=self._parts) if self._parts else None
    if self._error is not None:
      return self._error.model_copy(update={"content": content, **{k: v for k, v in common.items() if v}})
    if content is None and self._finish not in (None, types.FinishReason.STOP):
      reason = self._finish.value if hasattr(self._finish, "value") else str(self._finish)
      return LlmResponse(error_code=str(reason),
                         error_message=f"The model stopped with {reason} and no content.", **common)
    if not self._seen:
      return LlmResponse(error_code=codes.UNKNOWN_ERROR, error_message="The model returned an empty stream.")
    return LlmResponse(content=content or types.Content(role="model", parts=[]), **common)


def _classify(error: BaseException) -> Optional[_retry.Failure]:
  """What a google-genai or transport exception says about the attempt (None: not a provider failure)."""
  from google.genai import errors

  if isinstance(error, errors.APIError):
    headers = getattr(getattr(error, "response", None), "headers", None) or {}
    retry_after = _retry.parse_retry_after(headers.get("Retry-After") if hasattr(headers, "get") else None)
    if retry_after is None:
      retry_after = _retry_info_delay(error.details)
    return _retry.Failure(error.code, error.message or str(error), retry_after)
  import httpx

  if isinstance(error, httpx.TimeoutException):
    return _retry.Failure(None, f"timed out ({type(error).__name__})", transient=True)
  if isinstance(error, httpx.TransportError):
    return _retry.Failure(None, f"{type(error).__name__}: {error}", transient=True)
  try:
    import aiohttp
  except ImportError:  # pragma: no cover - aiohttp is optional for google-genai
    return None
  if isinstance(error, aiohttp.ClientError):
    return _retry.Failure(None, f"{type(error).__name__}: {error}", transient=True)
  return None


def _retry_info_delay(details: Any) -> Optional[float]:
  """The retryDelay of a google.rpc.RetryInfo in a Gemini error body, if any."""
  try:
    entries = details.get("error", details).get("details") or []
  except AttributeError:
    return None
  for entry in entries:
    if isinstance(entry, dict) and str(entry.get("@type", "")).endswith("RetryInfo"):
      return _retry.parse_duration(entry.get("retryDelay"))
  return None
