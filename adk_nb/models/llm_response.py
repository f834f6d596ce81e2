"""One answer (or one streamed chunk of an answer) from a model."""

from __future__ import annotations

from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, alias_generators

from .cache_metadata import CacheMetadata



class LlmResponse(BaseModel):
  """A model's answer as adk_nb sees it: content plus metadata and error fields."""

  model_config = ConfigDict(
      extra="forbid",
      ser_json_bytes="base64",
      val_json_bytes="base64",
      alias_generator=alias_generators.to_camel,
      populate_by_name=True,
  )

  model_version: Optional[str] = None
  """The model version that produced the answer."""
  content: Optional[types.Content] = None
  """Text, function calls or other parts of the answer."""
  grounding_metadata: Optional[types.GroundingMetadata] = None
  """Search grounding, when the provider returned it."""
  partial: Optional[bool] = None
  """True for a streamed chunk; the aggregated answer follows as a non-partial response."""
  turn_complete: Optional[bool] = None
  """True when the model finished its turn (live/streaming APIs)."""
  finish_reason: Optional[types.FinishReason] = None
  """Why the model stopped."""
  error_code: Optional[str] = None
  """A short error code when the call failed or was blocked."""
  error_message: Optional[str] = None
  """A human-readable error, naming the fix where there is one."""
  interrupted: Optional[bool] = None
  """True when a live answer was cut off."""
  custom_metadata: Optional[dict[str, Any]] = None
  """Free-form JSON metadata for callbacks and plugins."""
  usage_metadata: Optional[types.GenerateContentResponseUsageMetadata] = None
  """Token counts."""
  input_transcription: Optional[types.Transcription] = None
  output_transcription: Optional[types.Transcription] = None
  avg_logprobs: Optional[float] = None
  logprobs_result: Optional[types.LogprobsResult] = None
  citation_metadata: Optional[types.CitationMetadata] = None
  cache_metadata: Optional[CacheMetadata] = None
  """The Gemini context cache state after this call (with ContextCacheConfig)."""
  interaction_id: Optional[str] = None

  @staticmethod
  def create(generate_content_response: types.GenerateContentResponse) -> "LlmResponse":
    """Builds a response from google-genai's GenerateContentResponse (first candidate)."""
    resp = generate_content_response
    usage = resp.usage_metadata
    if resp.candidates:
      cand = resp.candidates[0]
      # Grounding, citations and log-probabilities are kept whatever the outcome, as in ADK.
      kept = dict(citation_metadata=cand.citation_metadata, avg_logprobs=cand.avg_logprobs,
                  logprobs_result=cand.logprobs_result, usage_metadata=usage,
                  finish_reason=cand.finish_reason, model_version=resp.model_version)
      if (cand.content and cand.content.parts) or cand.finish_reason == types.FinishReason.STOP:
        return LlmResponse(content=cand.content or types.Content(role="model", parts=[]),
                           grounding_metadata=cand.grounding_metadata, **kept)
      return LlmResponse(
          error_code=str(cand.finish_reason.value if cand.finish_reason else "UNKNOWN"),
          error_message=cand.finish_message or f"The model stopped with {cand.finish_reason} and no content.",
          **kept,
      )
    if resp.prompt_feedback:
      fb = resp.prompt_feedback
      return LlmResponse(
          error_code=str(fb.block_reason.value if fb.block_reason else "BLOCKED"),
          error_message=fb.block_reason_message or "The prompt was blocked by the provider's safety filters.",
          usage_metadata=usage,
          model_version=resp.model_version,
      )
    # No candidates and no block reason: some backends end a turn that way (e.g. after a tool
    # call with nothing to add); an empty answer, as in google-adk 2.x.
    return LlmResponse(content=types.Content(role="model", parts=[]), usage_metadata=usage,
                       model_version=resp.model_version)
