"""The api_server's own description: `GET /openapi.json` (OpenAPI 3.1) and `GET /docs` (a page listing it).

Built from the route table and the pydantic request models, so it lists exactly what is served.
The page is self-contained HTML (no script from a CDN, unlike FastAPI's Swagger UI), so it works offline.
"""

from __future__ import annotations

import html
import re
from typing import Any, Callable, Optional

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

SUMMARIES = {
    "health": "Liveness: {\"status\": \"ok\"}.",
    "version": "adk_nb's version and the Python version.",
    "list_apps": "The served apps (?detailed=true: name, root agent, description).",
    "list_sessions": "A user's sessions of an app.",
    "create_session": "Create a session: optional sessionId, state, and events (messages and tool calls only).",
    "get_session": "A session with its events and state.",
    "create_session_with_id": "Create a session with this id; the body is its initial state (google-adk's older form).",
    "delete_session": "Delete a session.",
    "update_session": "Change a session's state ({\"stateDelta\": {...}}), recorded as an event.",
    "list_artifacts": "The session's artifact names.",
    "save_artifact": "Save a new version of an artifact ({filename, artifact: Part}).",
    "list_artifact_versions_metadata": "Metadata of every version of an artifact.",
    "artifact_version_metadata": "Metadata of one version (a number or 'latest').",
    "load_artifact": "An artifact's content (latest, ?version=N, or /versions/N).",
    "list_artifact_versions": "An artifact's version numbers.",
    "delete_artifact": "Delete an artifact and its versions.",
    "run": "Run one turn: the events it produced, as a JSON list. No newMessage (and no invocationId): [] and "
           "nothing runs. A newMessage holding an adk_request_confirmation FunctionResponse answers a pause.",
    "run_sse": "Run one turn as Server-Sent Events (one `data: {Event}` per event; partial text with streaming).",
    "run_live_http": "Live (bidi-streaming) models are not supported: 501 over HTTP; the WebSocket closes with 1011.",
}


def _summary(handler: Callable) -> str:
  name = handler.__name__
  if name in SUMMARIES:
    return SUMMARIES[name]
  doc = (handler.__doc__ or "").strip().splitlines()
  return doc[0] if doc else name.replace("_", " ").capitalize() + " (dev UI)."


def openapi(table: list[tuple[str, Callable, list[str]]], bodies: dict[str, type[BaseModel]], version: str) -> dict:
  """The OpenAPI 3.1 document for the route table; `bodies` maps handler names to request models."""
  from pydantic.json_schema import models_json_schema

  models = sorted(set(bodies.values()), key=lambda m: m.__name__)
  refs, components = models_json_schema([(m, "validation") for m in models], by_alias=True,
                                        ref_template="#/components/schemas/{model}")
  paths: dict[str, dict] = {}
  for path, handler, methods in table:
    clean = re.sub(r"\{(\w+):\w+\}", r"{\1}", path)
    params = [{"name": n, "in": "path", "required": True, "schema": {"type": "string"}}
              for n in re.findall(r"\{(\w+)", path)]
    for method in methods:
      op: dict[str, Any] = {"summary": _summary(handler), "operationId": f"{handler.__name__}_{method.lower()}",
                            "responses": {"200": {"description": "OK"}, "4XX": {"description": "{detail, error_code}"}}}
      if params:
        op["parameters"] = params
      model = bodies.get(handler.__name__)
      if model is not None and method in ("POST", "PUT", "PATCH"):
        op["requestBody"] = {"required": True, "content": {"application/json": {
            "schema": refs[(model, "validation")]}}}
      paths.setdefault(clean, {})[method.lower()] = op
  return {"openapi": "3.1.0", "info": {"title": "adk_nb api_server (google-adk's HTTP API)", "version": version},
          "paths": paths, "components": {"schemas": components.get("$defs", {})}}


def page(doc: dict) -> str:
  """The /docs page: every endpoint with its summary and request body schema."""
  rows = []
  for path, ops in doc["paths"].items():
    for method, op in ops.items():
      ref = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {}).get("$ref")
      body = doc["components"]["schemas"].get(ref.rsplit("/", 1)[1]) if ref else None
      fields = ", ".join(f"{k}{'' if k in body.get('required', []) else '?'}"
                         for k in body.get("properties", {})) if body else ""
      schema = f"<br>body: <code>{{{html.escape(fields)}}}</code>" if body else ""
      rows.append(f"<tr><td><b>{method.upper()}</b></td><td><code>{html.escape(path)}</code></td>"
                  f"<td>{html.escape(op['summary'])}{schema}</td></tr>")
  return ("<!doctype html><html><head><meta charset='utf-8'><title>adk_nb api_server</title><style>"
          "body{font-family:sans-serif;margin:2em}td{vertical-align:top;padding:4px 8px;border-bottom:1px solid #ddd}"
          "pre{max-height:30em;overflow:auto;background:#f6f6f6}</style></head><body>"
          f"<h1>{html.escape(doc['info']['title'])}</h1><p>Version {html.escape(doc['info']['version'])}. "
          "Machine-readable: <a href='openapi.json'>/openapi.json</a>. JSON bodies need "
          "<code>Content-Type: application/json</code>; errors answer <code>{\"detail\", \"error_code\"}</code>."
          "</p><table>" + "".join(rows) + "</table></body></html>")


class DocsEndpoints:
  """GET /openapi.json and GET /docs for a route table."""

  def __init__(self, table: list[tuple[str, Callable, list[str]]], bodies: dict[str, type[BaseModel]]):
    self.table, self.bodies = table, bodies
    self._doc: Optional[dict] = None

  def document(self) -> dict:
    if self._doc is None:
      from importlib.metadata import PackageNotFoundError, version

      try:
        ours = version("adk_nb")
      except PackageNotFoundError:
        ours = "unknown"
      self._doc = openapi(self.table, self.bodies, ours)
    return self._doc

  async def openapi_json(self, request: Request) -> Response:
    return JSONResponse(self.document())

  async def docs(self, request: Request) -> Response:
    return HTMLResponse(page(self.document()))

  def routes(self) -> list[tuple[str, Callable, list[str]]]:
    return [("/openapi.json", self.openapi_json, ["GET"]), ("/docs", self.docs, ["GET"])]
