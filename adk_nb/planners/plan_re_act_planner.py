"""`PlanReActPlanner`: plan, then act and reason in tagged text, then answer (any model)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from google.genai import types

from .base_planner import BasePlanner

if TYPE_CHECKING:
  from ..agents.callback_context import CallbackContext
  from ..agents.readonly_context import ReadonlyContext
  from ..models.llm_request import LlmRequest

PLANNING_TAG = "/*PLANNING*/"
REPLANNING_TAG = "/*REPLANNING*/"
REASONING_TAG = "/*REASONING*/"
ACTION_TAG = "/*ACTION*/"
FINAL_ANSWER_TAG = "/*FINAL_ANSWER*/"

_THOUGHT_TAGS = (PLANNING_TAG, REASONING_TAG, ACTION_TAG, REPLANNING_TAG)

_INSTRUCTION = f"""\
Gather what you need with the tools you have rather than from memory.

Work in three stages: (1) write a plan in plain language; (2) carry it out with tool calls, and \
between calls write a short reasoning note that sums up where you are and what comes next; \
(3) give one final answer.

Mark each stage with its tag: the plan goes under {PLANNING_TAG}, tool code under {ACTION_TAG}, \
reasoning notes under {REASONING_TAG}, and the final answer under {FINAL_ANSWER_TAG}.

The plan: a numbered list of steps that, followed in order, answers the whole request; each step \
uses one or more of the tools you actually have, so that reading the plan tells which tools run \
and why. If the plan fails, learn from the results, write a revised plan under {REPLANNING_TAG} \
and follow it.

Reasoning notes: summarise what the request and the tool results so far establish, and say what \
the next step is, so that each step moves closer to the answer.

The final answer: precise, in the format the request asks for. If the request cannot be answered \
with the tools and information you have, say why and ask for what is missing.

Tool code: use only the tools described to you, with only the parameters they declare, as short \
self-contained calls (no imports, no other libraries), calling each tool as library.function() \
when it belongs to a library. Write no code other than tool calls.

Above all: ask for clarification when you need more information, and prefer what the \
conversation already holds over calling a tool again."""


class PlanReActPlanner(BasePlanner):
  """Makes the model plan before acting, with no built-in thinking needed.

  The planning instruction asks for text tagged `/*PLANNING*/`, `/*ACTION*/`, `/*REASONING*/`,
  `/*REPLANNING*/` and `/*FINAL_ANSWER*/`. Each answer is then rewritten: text that starts with a
  planning, reasoning, action or replanning tag becomes a thought part (tags removed); text holding
  `/*FINAL_ANSWER*/` is split at its last occurrence into a thought (before) and the answer (after);
  the first group of function calls is kept and anything after it is dropped, so the tools run
  and the model continues. Thought parts are kept on events (`event.text` leaves them out) and
  never sent to a model again.
  """

  def build_planning_instruction(self, readonly_context: "ReadonlyContext",
                                 llm_request: "LlmRequest") -> str:
    return _INSTRUCTION

  def process_planning_response(self, callback_context: "CallbackContext",
                                response_parts: list[types.Part]) -> Optional[list[types.Part]]:
    if not response_parts:
      return None
    kept: list[types.Part] = []
    calls_from: Optional[int] = None
    for index, part in enumerate(response_parts):
      if part.function_call is not None:
        if not part.function_call.name:
          continue  # a call without a name cannot run
        calls_from = index
        break
      kept.extend(_split_text_part(part))
    if calls_from is not None:
      for part in response_parts[calls_from:]:
        if part.function_call is None:
          break
        kept.append(part)
    return kept


def _strip_tags(text: str) -> str:
  for tag in _THOUGHT_TAGS:
    text = text.replace(tag, "")
  return text


def _split_text_part(part: types.Part) -> list[types.Part]:
  """One non-call part as thought and/or answer parts (new Part objects; `part` is not changed)."""
  text = part.text
  if text and FINAL_ANSWER_TAG in text:
    at = text.rfind(FINAL_ANSWER_TAG)
    reasoning = _strip_tags(text[:at])
    answer = text[at + len(FINAL_ANSWER_TAG):]
    out = []
    if reasoning:
      out.append(types.Part(text=reasoning, thought=True))
    if answer:
      out.append(types.Part(text=answer))
    return out
  if text and text.startswith(_THOUGHT_TAGS):
    return [part.model_copy(update={"text": _strip_tags(text), "thought": True})]
  return [part]


__all__ = ["ACTION_TAG", "FINAL_ANSWER_TAG", "PLANNING_TAG", "PlanReActPlanner", "REASONING_TAG",
           "REPLANNING_TAG"]
