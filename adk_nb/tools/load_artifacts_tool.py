"""`load_artifacts`: lets the model see the session's artifacts and load the ones it asks for.

Before each model call the tool tells the model which artifacts exist; when the model calls
`load_artifacts(artifact_names=[...])`, the next request carries those artifacts' contents (text
artifacts as text, images, audio, video and PDFs as inline data).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

from .base_tool import BaseTool

if TYPE_CHECKING:
  from ..models.llm_request import LlmRequest
  from .tool_context import ToolContext

_INLINE_PREFIXES = ("image/", "audio/", "video/")


def _as_model_part(part: types.Part) -> types.Part:
  """Text-like inline data becomes text (models reject most non-media inline types)."""
  blob = part.inline_data
  if blob is None or blob.data is None:
    return part
  mime = (blob.mime_type or "").lower()
  if mime.startswith(_INLINE_PREFIXES) or mime == "application/pdf":
    return part
  try:
    return types.Part(text=blob.data.decode("utf-8"))
  except UnicodeDecodeError:
    return types.Part(text=f"[binary artifact of type {mime or 'unknown'}, {len(blob.data)} bytes]")


class LoadArtifactsTool(BaseTool):
  """Lists the session's artifacts to the model and loads the ones it names."""

  def __init__(self):
    super().__init__(name="load_artifacts", description="Fetches the named artifacts of this session so you can read them.")

  def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
    return types.FunctionDeclaration(
        name=self.name, description=self.description,
        parameters=types.Schema(type=types.Type.OBJECT, properties={
            "artifact_names": types.Schema(type=types.Type.ARRAY, items=types.Schema(type=types.Type.STRING))}))

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    names = args.get("artifact_names") or []
    return {"artifact_names": names,
            "status": "The artifacts are attached to the next message; answer from their contents."}

  async def process_llm_request(self, *, tool_context: "ToolContext", llm_request: "LlmRequest") -> None:
    await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
    names = await tool_context.list_artifacts()
    if not names:
      return
    llm_request.append_instructions([
        f"You have these artifacts: {json.dumps(names)}. When the user asks about one of them, or you need "
        "its contents, call `load_artifacts` with its name; the contents follow in the next message."])
    last = llm_request.contents[-1] if llm_request.contents else None
    for part in (last.parts or []) if last else []:
      response = part.function_response
      if response is None or response.name != self.name:
        continue
      for name in (response.response or {}).get("artifact_names", []):
        artifact = await tool_context.load_artifact(name)
        parts = ([types.Part(text=f"Artifact {name} is:"), _as_model_part(artifact)] if artifact is not None
                 else [types.Part(text=f"Artifact {name} does not exist.")])
        llm_request.contents.append(types.Content(role="user", parts=parts))


load_artifacts_tool = LoadArtifactsTool()
"""The ready-made instance; `from adk_nb.tools import load_artifacts` is the same object."""

__all__ = ["LoadArtifactsTool", "load_artifacts_tool"]
