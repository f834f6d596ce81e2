"""`LlmEventSummarizer`: a model writes the summary of older events."""

from __future__ import annotations

from typing import Optional

from google.genai import types

from ..events.event import Event
from ..events.event_actions import EventActions, EventCompaction
from ..models.base_llm import BaseLlm
from ..models.llm_request import LlmRequest
from .base_events_summarizer import BaseEventsSummarizer

DEFAULT_PROMPT_TEMPLATE = (
    "Below is part of a conversation in which a user works with an AI agent; a summary of what came "
    "before may open it. Write a summary that replaces it for the agent. Restate what the user wants, "
    "the facts and decisions so far, what the tools returned that still matters, and what is still "
    "open. Start with the language the user writes in (e.g. 'Conversation language: English') and "
    "name every tool the agent called, exactly as spelled. Be brief.\n\n{conversation_history}")

MAX_TOOL_CHARS = 2000
"""Tool arguments and results longer than this are cut in the prompt (a summary must stay small)."""


def _cut(text: str) -> str:
  if len(text) <= MAX_TOOL_CHARS:
    return text
  return f"{text[:MAX_TOOL_CHARS]}... [{len(text) - MAX_TOOL_CHARS} more characters cut]"


class LlmEventSummarizer(BaseEventsSummarizer):
  """Asks `llm` for a summary of the events (their text, thoughts, tool calls and results).

  `prompt_template` must contain `{conversation_history}`. The summary comes back as an event by
  'user' whose `actions.compaction` holds it with the events' first and last timestamps, as in
  google-adk; None when the model answered nothing.
  """

  def __init__(self, llm: BaseLlm, prompt_template: Optional[str] = None):
    template = prompt_template or DEFAULT_PROMPT_TEMPLATE
    if "{conversation_history}" not in template:
      raise ValueError("prompt_template must contain '{conversation_history}' where the events go.")
    self._llm = llm
    self._prompt_template = template

  def _format_events_for_prompt(self, events: list[Event]) -> str:
    lines = []
    for event in events:
      if not (event.content and event.content.parts):
        continue
      summary = event.actions.compaction is not None
      for part in event.content.parts:
        if part.text and part.thought:
          if not summary:
            lines.append(f"{event.author} (thought): {part.text}")
        elif part.text:
          lines.append(f"{event.author}: {part.text}")
        if part.function_call:
          lines.append(f"{event.author} called tool: {part.function_call.name}({_cut(str(part.function_call.args))})")
        if part.function_response:
          lines.append(f"Tool response from {part.function_response.name}: "
                       f"{_cut(str(part.function_response.response))}")
    return "\n".join(lines)

  async def maybe_summarize_events(self, *, events: list[Event]) -> Optional[Event]:
    if not events:
      return None
    prompt = self._prompt_template.format(conversation_history=self._format_events_for_prompt(events))
    request = LlmRequest(model=self._llm.model, contents=[types.Content(role="user", parts=[types.Part(text=prompt)])])
    summary, usage = None, None
    async for response in self._llm.generate_content_async(request, stream=False):
      if response.content:
        summary, usage = response.content, response.usage_metadata
        break
    if summary is None:
      return None
    summary = summary.model_copy(update={"role": "model"})
    compaction = EventCompaction(start_timestamp=events[0].timestamp, end_timestamp=events[-1].timestamp,
                                 compacted_content=summary)
    return Event(author="user", invocation_id=Event.new_id(), actions=EventActions(compaction=compaction),
                 usage_metadata=usage)


__all__ = ["LlmEventSummarizer"]
