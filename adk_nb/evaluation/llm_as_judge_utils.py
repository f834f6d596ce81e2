"""Helpers shared by judge-model metrics (google-adk's module: `Label`, `get_text_from_content`, `get_eval_status`)."""

from __future__ import annotations

import enum
from typing import Optional, Union

from google.genai import types

from .eval_case import Invocation, InvocationEvents
from .eval_metrics import EvalStatus


class Label(enum.Enum):
  """What a judge's reply may say; PARTIALLY_VALID has three spellings."""

  TRUE = "true"
  INVALID = "invalid"
  VALID = "valid"
  PARTIALLY_VALID = "partially_valid", "partially valid", "partially"
  ALMOST = "almost"
  FALSE = "false"
  NOT_FOUND = "label field not found"


def get_text_from_content(content: Union[types.Content, Invocation, None], *,
                          include_intermediate_responses_in_final: bool = False) -> Optional[str]:
  """The text of a Content (its text parts joined by newlines), or of an Invocation's final answer; None
  when there is no text part list. With `include_intermediate_responses_in_final`, the text the agent wrote
  before its final answer comes first."""
  if isinstance(content, Invocation):
    if not include_intermediate_responses_in_final:
      return get_text_from_content(content.final_response)
    texts = []
    if isinstance(content.intermediate_data, InvocationEvents):
      texts = [get_text_from_content(e.content) for e in content.intermediate_data.invocation_events]
    elif content.intermediate_data is not None:
      texts = [get_text_from_content(types.Content(parts=parts))
               for _, parts in content.intermediate_data.intermediate_responses]
    texts.append(get_text_from_content(content.final_response))
    kept = [t for t in texts if t]
    return "\n".join(kept) if kept else None
  if content is not None and content.parts:
    return "\n".join(p.text for p in content.parts if p.text)
  return None


def get_eval_status(score: Optional[float], threshold: float) -> EvalStatus:
  """PASSED when score >= threshold, FAILED below, NOT_EVALUATED without a score."""
  if score is None:
    return EvalStatus.NOT_EVALUATED
  return EvalStatus.PASSED if score >= threshold else EvalStatus.FAILED


__all__ = ["Label", "get_eval_status", "get_text_from_content"]
