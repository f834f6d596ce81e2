"""The artifacts tab: the files a run's session holds, every version, previewed safely on demand.

Text is shown as text (SVG too: it can carry scripts, so its source is shown, never drawn),
images of common raster types inline by MIME type, anything else as a download link. Payloads travel only
when a person opens a version, as one message to that view, never in the widget state.
"""

from __future__ import annotations

import base64
from html import escape
from typing import TYPE_CHECKING, Any, Optional

import anywidget
import traitlets

from ._loop import call_in_loop, spawn
from .views import _asset, _with_html

if TYPE_CHECKING:
  from .live_run import LiveRun

INLINE_IMAGES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp")
"""Image types drawn inline; every other binary type is offered as a download."""
TEXT_LIMIT = 100_000
"""Characters of a text artifact shown; the rest is cut with a note."""
SEND_LIMIT = 20 * 1024 * 1024
"""Bytes sent to the browser for one image or download; larger ones name the call that loads them."""


def _is_text(mime: str) -> bool:
  return mime.startswith("text/") or mime in ("application/json", "application/xml", "application/x-yaml",
                                               "application/yaml") or mime.endswith(("+json", "+xml"))


def preview(name: str, version: Optional[int], part: Any) -> dict[str, Any]:
  """The message that shows one artifact version: {'kind': 'text' | 'image' | 'file' | 'missing', ...}."""
  base = {"type": "content", "name": name, "version": version}
  if part is None:
    return {**base, "kind": "missing", "text": f"{name} has no version {version}."}
  if part.text is not None:
    text = part.text
    return {**base, "kind": "text", "mime": "text/plain", "size": len(text), "text": text[:TEXT_LIMIT],
            "cut": max(0, len(text) - TEXT_LIMIT)}
  if part.file_data is not None:
    return {**base, "kind": "text", "mime": part.file_data.mime_type or "", "size": 0, "cut": 0,
            "text": f"stored outside the session at {part.file_data.file_uri}"}
  blob = part.inline_data
  data = (blob.data or b"") if blob is not None else b""
  mime = (blob.mime_type or "application/octet-stream") if blob is not None else "application/octet-stream"
  if _is_text(mime):
    text = data.decode("utf-8", errors="replace")
    return {**base, "kind": "text", "mime": mime, "size": len(data), "text": text[:TEXT_LIMIT],
            "cut": max(0, len(text) - TEXT_LIMIT)}
  if len(data) > SEND_LIMIT:
    return {**base, "kind": "missing", "mime": mime, "size": len(data),
            "text": f"{len(data):,} bytes: too large to send here; load it with "
                    f"`await run.load_artifact({name!r}, {version})`."}
  kind = "image" if mime in INLINE_IMAGES else "file"
  return {**base, "kind": kind, "mime": mime, "size": len(data), "data": base64.b64encode(data).decode("ascii")}


class ArtifactsView(anywidget.AnyWidget):
  """The session's artifacts with their versions; opening a version previews it."""

  _esm = _asset("artifacts_view.js")
  _css = _asset("artifacts_view.css")
  items = traitlets.List().tag(sync=True)
  """[{'name', 'versions': [{'version', 'mime_type', 'create_time'}]}] (no payloads)."""

  def __init__(self, run: "LiveRun", **kwargs: Any):
    super().__init__(**kwargs)
    self._run = run
    self.on_msg(self._on_browser_msg)

  async def content(self, name: str, version: Optional[int]) -> dict[str, Any]:
    """The preview message of one version (what the browser is sent when a person opens it)."""
    try:
      part = await self._run.load_artifact(name, version)
    except Exception as exc:  # noqa: BLE001 - shown in the tab
      return {"type": "content", "name": name, "version": version, "kind": "missing",
              "text": f"Could not load {name}: {type(exc).__name__}: {exc}"}
    return preview(name, version, part)

  def _on_browser_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
    if not isinstance(content, dict) or content.get("type") != "open":
      return
    name = str(content.get("name", ""))
    version = content.get("version")
    version = version if isinstance(version, int) else None
    loop = self._run.loop

    def start() -> None:
      if loop is not None and loop.is_running():
        spawn(loop, self._send_preview(name, version), f"Preview of artifact {name}")
    call_in_loop(loop, start)

  async def _send_preview(self, name: str, version: Optional[int]) -> None:
    self.send(await self.content(name, version))

  def _repr_mimebundle_(self, **kwargs: Any):
    return _with_html(super()._repr_mimebundle_(**kwargs), artifacts_html(self.items))


def artifacts_html(items: list[dict[str, Any]]) -> str:
  """The artifact list as static HTML (names, versions, types), escaped."""
  if not items:
    return ""
  rows = "".join(
      f"<li>{escape(item['name'])}: "
      + ", ".join(f"v{v['version']} ({escape(v.get('mime_type') or '?')})" for v in item["versions"]) + "</li>"
      for item in items)
  return f"<div class='adknb-static'><b>Artifacts</b><ul>{rows}</ul></div>"
