"""SaveFilesAsArtifactsPlugin: files a person attaches to a message are kept as artifacts.

At google-adk's path and with its constructor. Each inline file of the user's message (a `Part` with
`inline_data`) is saved as an artifact named by its `display_name` (a generated name otherwise; prefix it
`user:` to keep it across the user's sessions), and the message carries a short note naming the artifact
in its place, so the model knows where to find it (give the agent `load_artifacts`, or load it in a tool).
The saves are recorded in the `artifact_delta` of the first agent event of the turn. A file over
`max_file_bytes` is not saved: the note says it was too large.
"""

from __future__ import annotations

import logging
from typing import Optional

from google.genai import types

from .base_plugin import BasePlugin

logger = logging.getLogger(__name__)

MAX_FILE_BYTES = 20 * 1024 * 1024
"""The largest file saved (what Gemini accepts inline)."""


class SaveFilesAsArtifactsPlugin(BasePlugin):
  """Saves the files of each user message as artifacts and leaves a note naming each in its place."""

  def __init__(self, name: str = "save_files_as_artifacts_plugin", *, attach_file_reference: bool = True,
               max_file_bytes: int = MAX_FILE_BYTES):
    super().__init__(name)
    self.attach_file_reference = attach_file_reference
    """Kept for google-adk compatibility: a file reference is attached when the artifact store gives a
    URI the model can read (gs://, http(s)://); adk_nb's own stores (memory, files) give none."""
    self.max_file_bytes = max_file_bytes
    self._saved: dict[str, dict[str, int]] = {}  # invocation id -> artifact name -> version

  async def on_user_message_callback(self, *, invocation_context, user_message: types.Content):
    service = invocation_context.artifact_service
    parts = list(user_message.parts or ())
    if not any(p.inline_data is not None for p in parts):
      return None
    if service is None:
      logger.warning("%s: the Runner has no artifact_service, so attached files are left in the message.",
                     self.name)
      return None
    out, saved = [], {}
    for index, part in enumerate(parts):
      blob = part.inline_data
      if blob is None:
        out.append(part)
        continue
      filename = blob.display_name or f"upload_{invocation_context.invocation_id}_{index}"
      size = len(blob.data or b"")
      if size > self.max_file_bytes:
        out.append(types.Part(text=f"[File {filename!r} was not kept: {size / 2**20:.1f} MB is over the "
                                   f"{self.max_file_bytes / 2**20:.0f} MB limit]"))
        continue
      try:
        version = await service.save_artifact(
            app_name=invocation_context.app_name, user_id=invocation_context.user_id,
            session_id=invocation_context.session.id, filename=filename, artifact=part.model_copy())
      except Exception:  # noqa: BLE001 - the message keeps the file rather than losing it
        logger.exception("%s: saving %r failed; the file stays in the message", self.name, filename)
        out.append(part)
        continue
      saved[filename] = version
      out.append(types.Part(text=f'[File saved as artifact "{filename}"]'))
    if not saved and len(out) == len(parts) and all(a is b for a, b in zip(out, parts)):
      return None
    if saved:
      self._saved.setdefault(invocation_context.invocation_id, {}).update(saved)
    return types.Content(role=user_message.role, parts=out)

  async def before_agent_callback(self, *, agent, callback_context):
    saved = self._saved.pop(callback_context.invocation_id, None)
    if saved:
      callback_context.actions.artifact_delta.update(saved)
    return None

  async def after_run_callback(self, *, invocation_context):
    self._saved.pop(invocation_context.invocation_id, None)  # a run that ended before any agent step

  async def on_run_error_callback(self, *, invocation_context, error):
    self._saved.pop(invocation_context.invocation_id, None)
