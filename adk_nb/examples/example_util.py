"""Few-shot examples as system-instruction text, in google-adk's layout.

The layout (`<EXAMPLES>`, `EXAMPLE n:`, `Begin example` / `End example`, `[user]` / `[model]`
turns, function calls written as `name(arg='value')` in a fenced block) is google-adk's, so an
agent's prompt reads the same on both. Differences: function responses are written as JSON
(`{"name": ..., "response": ...}`) where google-adk prints the Python object's `__dict__`, and
argument values use Python's repr, so quotes inside strings are escaped.
"""

from __future__ import annotations

import json
from typing import Optional, Union

from .base_example_provider import BaseExampleProvider
from .example import Example

_HEADER = ("<EXAMPLES>\nBegin few-shot\nEach example below shows a user query and how the model answered it, "
           "including the tools it used.\n\n")
_FOOTER = "End few-shot\n<EXAMPLES>"


def _call_text(call, fence: str) -> str:
  args = call.args if isinstance(call.args, dict) else {}
  rendered = ", ".join(f"{key}={value!r}" for key, value in args.items())
  return f"{fence}{call.name}({rendered})\n```\n"


def _response_text(response, fence: str) -> str:
  body = json.dumps({"name": response.name, "response": response.response}, default=str, ensure_ascii=False)
  return f"{fence}{body}\n```\n"


def convert_examples_to_text(examples: list[Example], model: Optional[str]) -> str:
  """The examples as one instruction text (Gemini models get plain fences, others `tool_code` /
  `tool_outputs` fences, as in google-adk)."""
  gemini = model is None or "gemini-" in model
  call_fence = "```\n" if gemini else "```tool_code\n"
  response_fence = "```\n" if gemini else "```tool_outputs\n"
  blocks = []
  for number, example in enumerate(examples, start=1):
    lines = [f"EXAMPLE {number}:\nBegin example\n[user]\n"]
    texts = [p.text for p in example.input.parts or [] if p.text] if example.input else []
    if texts:
      lines.append("\n".join(texts) + "\n")
    speaker = None
    for content in example.output:
      role = "[model]\n" if content.role == "model" else "[user]\n"
      if role != speaker:
        lines.append(role)
        speaker = role
      for part in content.parts or []:
        if part.function_call:
          lines.append(_call_text(part.function_call, call_fence))
        elif part.function_response:
          lines.append(_response_text(part.function_response, response_fence))
        elif part.text:
          lines.append(part.text + "\n")
    lines.append("End example\n\n")
    blocks.append("".join(lines))
  return _HEADER + "".join(blocks) + _FOOTER


def build_example_si(examples: Union[list[Example], BaseExampleProvider], query: str, model: Optional[str]) -> str:
  """The instruction text for `examples` (a list, or a provider asked with `query`)."""
  if isinstance(examples, BaseExampleProvider):
    return convert_examples_to_text(examples.get_examples(query), model)
  if isinstance(examples, list):
    return convert_examples_to_text(examples, model)
  raise ValueError(f"examples must be a list of Example or a BaseExampleProvider, got {type(examples).__name__}.")


__all__ = ["build_example_si", "convert_examples_to_text"]
