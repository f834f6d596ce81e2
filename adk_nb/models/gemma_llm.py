"""Gemma on the Gemini API, at google-adk's path: `Agent(model=Gemma(model="gemma-3-27b-it"))`.

The Gemini API serves Gemma without function declarations or a system instruction, so this adapter
rewrites each request before it is sent, and the answer after:
- the agent's instruction and the tools' declarations (as JSON, with how to call one) go into the
  first user message;
- earlier calls are sent as the model's own JSON text, and tool results as user text;
- an answer whose last JSON object names a declared function (`{"name": ..., "parameters": {...}}`,
  in a ```json fence or not) comes back as that function call, so tools run as with any model.
Streaming yields the whole answer once (a call cannot be told from text until it is complete).
`Gemma3Ollama` runs Gemma 3 locally through Ollama via LiteLlm (needs `adk_nb[litellm]`), which
supports function calling natively.
"""

from __future__ import annotations

import json
from typing import Any, AsyncGenerator, Optional

from google.genai import types

from .google_llm import Gemini
from .llm_request import LlmRequest
from .llm_response import LlmResponse

CALLING_CONVENTION = (
    "You can call these functions. To call one, reply with only a JSON object of the form "
    '{"name": "<function name>", "parameters": {<arguments>}} and nothing else. '
    "Otherwise answer in plain text.\nFunctions:\n")


def _declarations(config: types.GenerateContentConfig) -> list[types.FunctionDeclaration]:
  return [d for tool in config.tools or () for d in (getattr(tool, "function_declarations", None) or ())]


def _as_text(part: types.Part) -> types.Part:
  """A part of an earlier turn in the form Gemma reads: calls and results as text."""
  if part.function_call:
    call = {"name": part.function_call.name, "parameters": part.function_call.args or {}}
    return types.Part(text=json.dumps(call))
  if part.function_response:
    result = json.dumps(part.function_response.response, default=str)
    return types.Part(text=f"Result of {part.function_response.name}: {result}")
  return part


def gemma_request(request: LlmRequest) -> tuple[LlmRequest, set[str]]:
  """The request as Gemma takes it, and the names of the functions it may call."""
  declarations = _declarations(request.config)
  preamble = []
  if request.config.system_instruction:
    instruction = request.config.system_instruction
    preamble.append(instruction if isinstance(instruction, str) else
                    " ".join(p.text or "" for p in getattr(instruction, "parts", None) or ()))
  if declarations:
    listed = [d.model_dump(mode="json", exclude_none=True) for d in declarations]
    preamble.append(CALLING_CONVENTION + json.dumps(listed, indent=1))
  contents = [types.Content(role=c.role, parts=[_as_text(p) for p in c.parts or ()])
              for c in request.contents]
  if preamble:
    lead = types.Part(text="\n\n".join(preamble))
    if contents and contents[0].role == "user":
      contents[0] = types.Content(role="user", parts=[lead, *contents[0].parts])
    else:
      contents.insert(0, types.Content(role="user", parts=[lead]))
  tools = [t for t in request.config.tools or () if not getattr(t, "function_declarations", None)]
  config = request.config.model_copy(update={"system_instruction": None, "tools": tools or None})
  return request.model_copy(update={"contents": contents, "config": config}), {d.name for d in declarations}


def _json_objects(text: str):
  """Every JSON object in `text`, last first."""
  decoder = json.JSONDecoder()
  found, index = [], text.find("{")
  while index != -1:
    try:
      value, end = decoder.raw_decode(text, index)
    except ValueError:
      index = text.find("{", index + 1)
      continue
    if isinstance(value, dict):
      found.append(value)
    index = text.find("{", end)
  return reversed(found)


def function_call_in(text: str, names: set[str]) -> Optional[types.FunctionCall]:
  """The call an answer's text makes: its last JSON object naming a declared function."""
  for value in _json_objects(text):
    arguments = value.get("parameters", value.get("args", {}))
    if value.get("name") in names and isinstance(arguments, dict):
      return types.FunctionCall(name=value["name"], args=arguments)
  return None


class Gemma(Gemini):
  """Gemma 3 through the Gemini API, with function calling done in text (see the module docstring)."""

  model: str = "gemma-3-27b-it"
  """The Gemma model name on the Gemini API."""

  @classmethod
  def supported_models(cls) -> list[str]:
    return [r"gemma-3.*"]

  async def generate_content_async(self, llm_request: LlmRequest,
                                   stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
    request, names = gemma_request(llm_request)
    async for response in super().generate_content_async(request, stream=False):
      text = "".join(p.text or "" for p in (response.content.parts if response.content else ()))
      call = function_call_in(text, names) if names else None
      if call is not None:
        response.content = types.Content(role="model", parts=[types.Part(function_call=call)])
      yield response


def Gemma3Ollama(model: str = "ollama/gemma3:12b", **kwargs: Any):
  """Gemma 3 served by a local Ollama, through LiteLlm (google-adk's class of this name)."""
  from .lite_llm import LiteLlm

  return LiteLlm(model=model, **kwargs)


__all__ = ["Gemma", "Gemma3Ollama"]
