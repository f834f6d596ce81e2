"""google-adk's HTTP API (`adk api_server`) over adk_nb, on Starlette and uvicorn (`pip install "adk_nb[server]"`).

Same paths, request bodies (camelCase or snake_case) and JSON as google-adk's server, so ADK clients
work unchanged:

    GET  /health, /version, /list-apps[?detailed=true], /docs (a page listing every endpoint), /openapi.json
    GET|POST /apps/{app}/users/{user}/sessions                    list / create ({sessionId?, state?, events?})
    GET|POST|PATCH|DELETE /apps/{app}/users/{user}/sessions/{id}  get / create with id / {stateDelta} / delete
    POST /apps/{app}/users/{user}/sessions/{id}/rewind  {rewindBeforeInvocationId} -> the rewound session
    .../sessions/{id}/artifacts [GET list, POST {filename, artifact}], /artifacts/{name}[?version=N] [GET, DELETE],
    /artifacts/{name}/versions [GET], /artifacts/{name}/versions/{n|latest} [GET],
    /artifacts/{name}/versions/metadata, /artifacts/{name}/versions/{n|latest}/metadata [GET]
    POST /run       {appName, userId, sessionId, newMessage, stateDelta?, invocationId?} -> [Event, ...]
    POST /run_sse   same body plus `streaming`; answers `text/event-stream`, one `data: {Event}` per event
    dev UI: the agent graph (DOT) and eval sets, at /dev/apps/{app}/... and /apps/{app}/... (server/dev.py)
    WS   /run_live  not supported (no live models): closed with code 1011 and the reason; plain HTTP gets 501

A confirmation (or a `RequestInput`) is answered as ADK clients do: a `/run` whose `newMessage` holds the
FunctionResponse. Errors answer `{"detail": ..., "error_code": ...}` with the status from `server.errors`.

Who may call it (server/guard.py): on a loopback bind only requests addressed to a loopback host (no DNS
rebinding); a browser page only from an origin listed in `allow_origins` (or the server's own), as
google-adk 2.13; JSON endpoints take only `Content-Type: application/json` (415 otherwise). Session
creation refuses client events that carry actions, long-running ids or protocol calls (400), so a pause
is always one the runtime recorded.

A client that disconnects mid-run does not cancel it: the run goes on in the server and commits every
event, so a client reconnecting reads the whole outcome from GET session (a tool that was approved runs
to completion exactly once).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import socket
import sys
import uuid
from dataclasses import dataclass, field, replace
from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, ValidationError, alias_generators
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from ..cli.agent_loader import iter_agents, load_agent_folder
from ..events import Event, EventActions
from ..events.protocol import PROTOCOL_CALLS, is_start_marker
from ..errors import AdkNbError, SessionNotFoundError, codes
from .dev import AddSessionRequest, CreateEvalSetRequest, DevEndpoints, RunEvalRequest
from .channel import EventChannel
from .docs import DocsEndpoints
from .guard import middleware
from .errors import STATUS_BY_TYPE, HttpError, UnknownAppError, error_body, status_of


class _Body(BaseModel):
  model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True, extra="ignore")


class RunAgentRequest(_Body):
  """The body of /run and /run_sse (google-adk's field names)."""

  app_name: Optional[str] = None
  user_id: str
  session_id: str
  new_message: Optional[types.Content] = None
  streaming: bool = False
  state_delta: Optional[dict[str, Any]] = None
  invocation_id: Optional[str] = None


class CreateSessionRequest(_Body):
  """The optional body of POST .../sessions."""

  session_id: Optional[str] = None
  state: Optional[dict[str, Any]] = None
  events: Optional[list[Event]] = None


class UpdateSessionRequest(_Body):
  """The body of PATCH .../sessions/{id}."""

  state_delta: dict[str, Any]


class RewindSessionRequest(_Body):
  """The body of POST .../sessions/{id}/rewind (google-adk PR #7178)."""

  rewind_before_invocation_id: str


class SaveArtifactRequest(_Body):
  """The body of POST .../artifacts."""

  filename: str
  artifact: types.Part
  custom_metadata: Optional[dict[str, Any]] = None


LIVE_MESSAGE = "adk_nb does not support live (bidi-streaming) models; use /run_sse for streamed text."
"""What /run_live answers (the WebSocket close reason, the 501 body); its error_code is codes.LIVE_NOT_SUPPORTED."""


@dataclass
class ServerConfig:
  """What `adk-nb api_server` serves and where it keeps sessions and artifacts."""

  agents_dirs: list[str]
  """Agent folders, or folders of agent folders (one app each)."""
  session_service_uri: Optional[str] = None
  """Default: SQLite at the folder's .adk_nb/sessions.db (the store `adk-nb run` and `adk-nb web` use)."""
  artifact_service_uri: str = "memory://"
  max_body_bytes: int = 10 * 1024 * 1024
  """Largest request body accepted; larger ones get 413."""
  host: str = "127.0.0.1"
  """The address the server binds; on a loopback address only loopback `Host` names are answered (server.guard)."""
  allow_origins: list[str] = field(default_factory=list)
  """Web origins whose pages may call the server (`https://app.example`, `*`, `regex:PATTERN`); see server.guard."""


def _dump(model: Any) -> Any:
  return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def _require_json_type(content_type: Optional[str]) -> None:
  """Refuses a body not declared as JSON (415): a web page can send text/plain cross-site without asking first."""
  media = (content_type or "").split(";", 1)[0].strip().lower()
  if media == "application/json" or (media.startswith("application/") and media.endswith("+json")):
    return
  said = f"Content-Type {media!r}" if media else "no Content-Type"
  raise HttpError(415, f"This endpoint takes a JSON body sent with Content-Type: application/json; the request had "
                       f"{said}. Nothing was run or written.", codes.UNSUPPORTED_MEDIA_TYPE)


def _check_client_events(events: list[Event]) -> None:
  """Refuses session-creation events that only the runtime may write (400), as google-adk 2.13 does.

  A client may seed a session with the conversation itself: messages, tool calls and their
  results. It may not hand in what would make the runtime act: actions (state, transfers,
  confirmations), long-running call ids, the protocol calls `adk_request_confirmation` /
  `adk_request_input` / `adk_request_credential` (an approval request for a call no model
  made), or adk_nb's own markers in `customMetadata` (`adk_nb_*`: nested pauses, started tools).
  """
  default = EventActions()
  for index, event in enumerate(events):
    refused = None
    if event.long_running_tool_ids:
      refused = "long-running tool IDs"
    elif event.actions != default:
      refused = "event actions"
    elif any(name in PROTOCOL_CALLS for name in [c.name for c in event.get_function_calls()]
             + [r.name for r in event.get_function_responses()]):
      refused = "ADK protocol function calls"
    elif any(str(key).startswith("adk_nb_") for key in (event.custom_metadata or {})):
      refused = "customMetadata keys starting with adk_nb_ (adk_nb's own markers)"
    if refused:
      raise HttpError(400, f"Session initialization event {index} cannot include {refused}: only the runtime "
                           "records those. Seed a session with messages, tool calls and results; put initial "
                           "values in 'state'. Nothing was created.", codes.BAD_REQUEST)


async def _client_input(awaitable: Any) -> Any:
  """Awaits a store call; a ValueError/TypeError it raises about the request's values is answered 400."""
  try:
    return await awaitable
  except (ValueError, TypeError) as exc:
    if status_of(exc) is not None:
      raise
    raise HttpError(400, str(exc), codes.BAD_REQUEST) from exc


def _storable_state(state: Optional[dict[str, Any]]) -> None:
  """400 (nothing written) for state values no store can hold: too deep, no JSON form."""
  if state:
    from ..sessions.json_form import convert_state_delta

    try:
      convert_state_delta(state)
    except ValueError as exc:
      raise HttpError(400, str(exc), codes.BAD_REQUEST) from None


def _check_artifact_name(name: str) -> str:
  """Refuses artifact names that could leave their folder in a file store (`..`, absolute, NUL, backslash)."""
  parts = name.replace("\\", "/").split("/")
  if not name or name.startswith("/") or "\\" in name or "\x00" in name or ".." in parts:
    raise HttpError(400, f"Artifact name {name!r} is not allowed: use a plain file name without '..', '/' at the "
                         "start or backslashes.", codes.UNSAFE_ARTIFACT_PATH)
  return name


class AdkApiServer:
  """The served apps (one Runner each, sharing the session and artifact services) and the routes."""

  def __init__(self, config: ServerConfig):
    from ..cli.run import default_session_uri
    from ..runners import Runner
    from ..services import artifact_service_from_uri, session_service_from_uri

    self.config = config
    folders = list(iter_agents(config.agents_dirs))
    self.loaded = {}
    for folder in folders:
      loaded = load_agent_folder(folder)
      self.loaded[loaded.name] = loaded
    base = folders[0] if len(folders) == 1 else folders[0].parent
    self.session_uri = config.session_service_uri or default_session_uri(base)
    """Where sessions are stored (the default: the folder's .adk_nb/sessions.db)."""
    self.session_service = session_service_from_uri(self.session_uri)
    self.artifact_service = artifact_service_from_uri(config.artifact_service_uri)
    self.runners = {}
    for name, loaded in self.loaded.items():
      common = dict(app_name=name, session_service=self.session_service, artifact_service=self.artifact_service)
      self.runners[name] = (Runner(app=loaded.app, **common) if loaded.app is not None
                            else Runner(agent=loaded.agent, **common))
    self.background: set[asyncio.Task] = set()

  # ---- plumbing ------------------------------------------------------------------------------

  def runner(self, app_name: Optional[str]):
    if not app_name:
      raise HttpError(400, "appName is required in the request body.", codes.BAD_REQUEST)
    runner = self.runners.get(app_name)
    if runner is None:
      raise UnknownAppError(app_name, sorted(self.runners))
    return runner

  async def body(self, request: Request, model: Optional[type[BaseModel]], required: bool = True) -> Any:
    """The request's JSON body validated against `model`; 400 / 413 / 422 with a message otherwise."""
    limit = self.config.max_body_bytes
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
      raise HttpError(413, f"Request body of {declared} bytes exceeds the limit of {limit} bytes "
                           "(adk-nb api_server --max_body_bytes).", codes.BODY_TOO_LARGE)
    chunks, size = [], 0
    async for chunk in request.stream():
      size += len(chunk)
      if size > limit:
        raise HttpError(413, f"Request body exceeds the limit of {limit} bytes (adk-nb api_server --max_body_bytes).",
                        codes.BODY_TOO_LARGE)
      chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
      if required:
        raise HttpError(400, "This endpoint needs a JSON body.", codes.BAD_REQUEST)
      return None
    _require_json_type(request.headers.get("content-type"))
    try:
      data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
      raise HttpError(400, f"Malformed JSON body: {exc}.", codes.MALFORMED_JSON) from exc
    except RecursionError:
      raise HttpError(400, "The JSON body is nested too deeply to parse (about 1,000 levels or more); flatten it. "
                           "Nothing was run or written.", codes.MALFORMED_JSON) from None
    if model is None:
      return data
    try:
      return model.model_validate(data)
    except ValidationError as exc:
      problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}" for e in exc.errors())
      raise HttpError(422, f"Invalid request body: {problems}.", codes.INVALID_REQUEST) from exc

  async def session_or_404(self, app: str, user: str, session_id: str):
    self.runner(app)
    session = await self.session_service.get_session(app_name=app, user_id=user, session_id=session_id)
    if session is None:
      raise HttpError(404, f"Session not found: {session_id!r} (app {app!r}, user {user!r}).", codes.SESSION_NOT_FOUND)
    return session

  # ---- meta ------------------------------------------------------------------------------------

  async def health(self, request: Request) -> Response:
    return JSONResponse({"status": "ok"})

  async def version(self, request: Request) -> Response:
    from importlib.metadata import PackageNotFoundError, version

    try:
      ours = version("adk_nb")
    except PackageNotFoundError:
      ours = "unknown"
    v = sys.version_info
    return JSONResponse({"version": ours, "language": "python", "language_version": f"{v.major}.{v.minor}.{v.micro}"})

  async def list_apps(self, request: Request) -> Response:
    names = sorted(self.runners)
    if request.query_params.get("detailed", "").lower() in ("1", "true"):
      return JSONResponse({"apps": [{"name": n, "rootAgentName": self.loaded[n].agent.name,
                                     "description": getattr(self.loaded[n].agent, "description", "") or "",
                                     "language": "python"} for n in names]})
    return JSONResponse(names)

  # ---- sessions --------------------------------------------------------------------------------

  async def list_sessions(self, request: Request) -> Response:
    app, user = request.path_params["app_name"], request.path_params["user_id"]
    self.runner(app)
    listed = await self.session_service.list_sessions(app_name=app, user_id=user)
    return JSONResponse([_dump(s) for s in listed.sessions])

  async def create_session(self, request: Request) -> Response:
    app, user = request.path_params["app_name"], request.path_params["user_id"]
    self.runner(app)
    req = await self.body(request, CreateSessionRequest, required=False) or CreateSessionRequest()
    _check_client_events(req.events or [])
    _storable_state(req.state)
    session_id = request.path_params.get("session_id") or req.session_id
    session = await _client_input(self.session_service.create_session(app_name=app, user_id=user, state=req.state,
                                                                      session_id=session_id))
    try:
      for event in req.events or []:
        await self.session_service.append_event(session, event)
    except Exception as exc:  # a half-seeded session is worse than none: remove it, then report why
      await self.session_service.delete_session(app_name=app, user_id=user, session_id=session.id)
      if isinstance(exc, (ValueError, TypeError)) and status_of(exc) is None:
        raise HttpError(400, f"{exc} The session was not created.", codes.BAD_REQUEST) from exc
      raise
    return JSONResponse(_dump(session))

  async def create_session_with_id(self, request: Request) -> Response:
    # ADK's deprecated form: the body is the initial state itself.
    app, user = request.path_params["app_name"], request.path_params["user_id"]
    self.runner(app)
    state = await self.body(request, None, required=False)
    if state is not None and not isinstance(state, dict):
      raise HttpError(422, "The body of POST .../sessions/{id} is the initial state: a JSON object.", codes.INVALID_REQUEST)
    _storable_state(state)
    session = await _client_input(self.session_service.create_session(
        app_name=app, user_id=user, state=state, session_id=request.path_params["session_id"]))
    return JSONResponse(_dump(session))

  async def get_session(self, request: Request) -> Response:
    p = request.path_params
    return JSONResponse(_dump(await self.session_or_404(p["app_name"], p["user_id"], p["session_id"])))

  async def delete_session(self, request: Request) -> Response:
    p = request.path_params
    self.runner(p["app_name"])
    await self.session_service.delete_session(app_name=p["app_name"], user_id=p["user_id"],
                                              session_id=p["session_id"])
    return JSONResponse(None)

  async def update_session(self, request: Request) -> Response:
    p = request.path_params
    req = await self.body(request, UpdateSessionRequest)
    _storable_state(req.state_delta)
    session = await self.session_or_404(p["app_name"], p["user_id"], p["session_id"])
    event = Event(invocation_id=f"p-{uuid.uuid4()}", author="user", actions=EventActions(state_delta=req.state_delta))
    await self.session_service.append_event(session, event)
    return JSONResponse(_dump(session))

  async def rewind_session(self, request: Request) -> Response:
    """Rewinds the session to before an invocation (Runner.rewind_async) and answers the session."""
    p = request.path_params
    req = await self.body(request, RewindSessionRequest)
    await self.session_or_404(p["app_name"], p["user_id"], p["session_id"])
    runner = self.runner(p["app_name"])
    # An unknown invocation raises InvocationNotFoundError (a NotFoundError): 404, nothing written.
    await runner.rewind_async(user_id=p["user_id"], session_id=p["session_id"],
                              rewind_before_invocation_id=req.rewind_before_invocation_id)
    return JSONResponse(_dump(await self.session_or_404(p["app_name"], p["user_id"], p["session_id"])))

  # ---- artifacts -------------------------------------------------------------------------------

  def _where(self, request: Request) -> dict:
    p = request.path_params
    self.runner(p["app_name"])
    return dict(app_name=p["app_name"], user_id=p["user_id"], session_id=p["session_id"])

  async def list_artifacts(self, request: Request) -> Response:
    return JSONResponse(await self.artifact_service.list_artifact_keys(**self._where(request)))

  async def save_artifact(self, request: Request) -> Response:
    where = self._where(request)
    req = await self.body(request, SaveArtifactRequest)
    name = _check_artifact_name(req.filename)
    version = await _client_input(self.artifact_service.save_artifact(filename=name, artifact=req.artifact,
                                                                      custom_metadata=req.custom_metadata, **where))
    meta = await self.artifact_service.get_artifact_version(filename=name, version=version, **where)
    return JSONResponse(_dump(meta) if meta is not None else {"version": version})

  def _version(self, text: Optional[str]) -> Optional[int]:
    if text in (None, "", "latest"):
      return None
    try:
      return int(text)
    except ValueError:
      raise HttpError(422, f"Invalid version {text!r}: use a number or 'latest'.", codes.INVALID_REQUEST) from None

  async def load_artifact(self, request: Request) -> Response:
    where = self._where(request)
    name = _check_artifact_name(request.path_params["artifact_name"])
    version = self._version(request.path_params.get("version_id") or request.query_params.get("version"))
    part = await self.artifact_service.load_artifact(filename=name, version=version, **where)
    if part is None:
      raise HttpError(404, f"Artifact {name!r} not found" + (f" at version {version}." if version is not None else "."),
                      codes.NOT_FOUND)
    return JSONResponse(_dump(part))

  async def list_artifact_versions(self, request: Request) -> Response:
    where = self._where(request)
    name = _check_artifact_name(request.path_params["artifact_name"])
    return JSONResponse(await self.artifact_service.list_versions(filename=name, **where))

  async def list_artifact_versions_metadata(self, request: Request) -> Response:
    where = self._where(request)
    name = _check_artifact_name(request.path_params["artifact_name"])
    return JSONResponse([_dump(v) for v in await self.artifact_service.list_artifact_versions(filename=name, **where)])

  async def artifact_version_metadata(self, request: Request) -> Response:
    where = self._where(request)
    name = _check_artifact_name(request.path_params["artifact_name"])
    version = self._version(request.path_params["version_id"])
    meta = await self.artifact_service.get_artifact_version(filename=name, version=version, **where)
    if meta is None:
      raise HttpError(404, f"Artifact {name!r} has no version {request.path_params['version_id']}.", codes.NOT_FOUND)
    return JSONResponse(_dump(meta))

  async def delete_artifact(self, request: Request) -> Response:
    where = self._where(request)
    name = _check_artifact_name(request.path_params["artifact_name"])
    await self.artifact_service.delete_artifact(filename=name, **where)
    return JSONResponse(None)

  # ---- runs ------------------------------------------------------------------------------------

  async def _start(self, request: Request) -> tuple[RunAgentRequest, EventChannel]:
    """Validates a run request and starts the run as a task that outlives the HTTP request.

    The session is not read here: the Runner reads it anyway and raises SessionNotFoundError
    (answered 404 before any byte of the response), which saves one read per request.
    """
    from ..agents.run_config import RunConfig, StreamingMode

    req = await self.body(request, RunAgentRequest)
    runner = self.runner(req.app_name)
    _storable_state(req.state_delta)
    channel = EventChannel()
    if req.new_message is None and not req.invocation_id:
      # Nothing new to answer: no model call, nothing written (google-adk 2.13 would call the model again).
      if req.state_delta:
        raise HttpError(400, "stateDelta without newMessage changes nothing here; change state alone with PATCH "
                             f"/apps/{req.app_name}/users/{req.user_id}/sessions/{req.session_id} "
                             "{\"stateDelta\": {...}}. Nothing was written.", codes.BAD_REQUEST)
      await self.session_or_404(req.app_name, req.user_id, req.session_id)
      channel.close()
      return req, channel
    config = RunConfig(streaming_mode=StreamingMode.SSE if req.streaming else StreamingMode.NONE)

    async def produce() -> None:
      try:
        async for event in runner.run_async(user_id=req.user_id, session_id=req.session_id,
                                            new_message=req.new_message, state_delta=req.state_delta,
                                            invocation_id=req.invocation_id, run_config=config):
          if not is_start_marker(event):  # stored bookkeeping (at-most-once), not an event clients expect
            await channel.put(event)  # waits while the client is behind (server.channel's policy)
      except BaseException as exc:  # noqa: BLE001 - handed to the response, which reports it
        channel.close(exc)
        if not isinstance(exc, Exception):
          raise
      else:
        channel.close()

    task = asyncio.create_task(produce())
    self.background.add(task)
    task.add_done_callback(self.background.discard)
    return req, channel

  def _failure(self, req: RunAgentRequest, exc: BaseException) -> Response:
    """The error response for a run that failed before anything was sent."""
    if isinstance(exc, SessionNotFoundError):
      exc = HttpError(404, f"Session not found: {req.session_id!r} (app {req.app_name!r}, user {req.user_id!r}); "
                           f"create it with POST /apps/{req.app_name}/users/{req.user_id}/sessions.",
                      codes.SESSION_NOT_FOUND)
    return JSONResponse(error_body(exc), status_code=status_of(exc) or 500)

  async def run(self, request: Request) -> Response:
    req, channel = await self._start(request)
    events = []
    try:
      while (item := await channel.get()) is not None:
        if isinstance(item, BaseException):
          return self._failure(req, item)
        events.append(_dump(item))
    finally:
      channel.abandon()  # a request cancelled mid-run must not leave the run waiting on a full channel
    return JSONResponse(events)

  async def run_sse(self, request: Request) -> Response:
    req, channel = await self._start(request)
    first = await channel.get()  # a run that fails before its first event gets a real status, not a 200 stream
    if isinstance(first, BaseException):
      channel.abandon()
      return self._failure(req, first)

    async def stream():
      item = first
      try:
        while item is not None:
          if isinstance(item, BaseException):
            body = error_body(item)
            yield f"data: {json.dumps({'error': f'{type(item).__name__}: {item}', **body})}\n\n"
          else:
            yield f"data: {item.model_dump_json(by_alias=True, exclude_none=True)}\n\n"
          item = await channel.get()
      finally:  # ended, or the client disconnected: the run goes on unbuffered, its events stored
        channel.abandon()

    return StreamingResponse(stream(), media_type="text/event-stream")

  # ---- live (not supported) -------------------------------------------------------------------

  async def run_live(self, websocket: WebSocket) -> None:
    """ADK's /run_live WebSocket, answered with a close that says live models are not supported.

    Answers as google-adk's route does the same request problems (the handshake refused without
    app_name; 1002 "Session not found"), and closes a valid request with 1011 and the reason, as
    google-adk reports a live run that fails.
    """
    q = websocket.query_params
    app, user, session_id = q.get("app_name"), q.get("user_id"), q.get("session_id")
    if not app:  # refused before the handshake completes, as google-adk does
      await websocket.close(code=1008, reason="app_name query parameter is required")
      return
    await websocket.accept()
    if app not in self.runners:
      await websocket.close(code=1008, reason=_ws_reason(f"App {app!r} not found"))
      return
    session = None
    if user and session_id:
      session = await self.session_service.get_session(app_name=app, user_id=user, session_id=session_id)
    if session is None:
      await websocket.close(code=1002, reason="Session not found")
      return
    await websocket.close(code=1011, reason=_ws_reason(LIVE_MESSAGE))

  async def run_live_http(self, request: Request) -> Response:
    raise HttpError(501, f"{LIVE_MESSAGE} /run_live is a WebSocket endpoint in google-adk.", codes.LIVE_NOT_SUPPORTED)

  # ---- the app ---------------------------------------------------------------------------------

  async def close(self) -> None:
    """Waits for runs still going (a disconnected client's), then closes runners and stores."""
    if self.background:
      await asyncio.gather(*list(self.background), return_exceptions=True)
    for runner in self.runners.values():
      await runner.close()
    close = getattr(self.session_service, "close", None)
    if close is not None:
      await close()


WS_REASON_BYTES = 123
"""A WebSocket close reason holds at most 123 bytes."""


def _ws_reason(text: str) -> str:
  """`text` cut to fit a WebSocket close reason (123 bytes of UTF-8)."""
  return text.encode()[:WS_REASON_BYTES].decode(errors="ignore")


async def _answer_error(conn: Any, exc: Exception) -> Optional[Response]:
  """The JSON error body and the status from the one table in `server.errors` (a WebSocket is closed, 1011)."""
  if isinstance(conn, WebSocket):
    await conn.close(code=1011, reason=_ws_reason(error_body(exc)["detail"]))
    return None
  return JSONResponse(error_body(exc), status_code=status_of(exc) or 500)


def exception_handlers() -> dict[Any, Any]:
  """Starlette's exception handlers: each class of the status table, and Exception for the rest (500).

  The table's classes are answered inside the middleware (CORS headers included) and not logged:
  they are the client's or a provider's problem. Anything else is a bug in the server or an agent:
  Starlette answers it from its outermost layer (500, the same JSON body) and re-raises it, so the
  server logs the traceback.
  """
  handlers: dict[Any, Any] = {kind: _answer_error for kind, _ in STATUS_BY_TYPE}
  handlers[Exception] = _answer_error
  return handlers


def build_app(config: ServerConfig) -> Starlette:
  """The Starlette application for `config` (agents are loaded now, so a bad folder fails at start)."""
  server = AdkApiServer(config)
  s = "/apps/{app_name}/users/{user_id}/sessions"
  a = s + "/{session_id}/artifacts"
  table = [
      ("/health", server.health, ["GET"]),
      ("/version", server.version, ["GET"]),
      ("/list-apps", server.list_apps, ["GET"]),
      (s, server.list_sessions, ["GET"]),
      (s, server.create_session, ["POST"]),
      (s + "/{session_id}", server.get_session, ["GET"]),
      (s + "/{session_id}", server.create_session_with_id, ["POST"]),
      (s + "/{session_id}", server.delete_session, ["DELETE"]),
      (s + "/{session_id}", server.update_session, ["PATCH"]),
      (s + "/{session_id}/rewind", server.rewind_session, ["POST"]),
      (a, server.list_artifacts, ["GET"]),
      (a, server.save_artifact, ["POST"]),
      (a + "/{artifact_name:path}/versions/metadata", server.list_artifact_versions_metadata, ["GET"]),
      (a + "/{artifact_name:path}/versions/{version_id}/metadata", server.artifact_version_metadata, ["GET"]),
      (a + "/{artifact_name:path}/versions/{version_id}", server.load_artifact, ["GET"]),
      (a + "/{artifact_name:path}/versions", server.list_artifact_versions, ["GET"]),
      (a + "/{artifact_name:path}", server.load_artifact, ["GET"]),
      (a + "/{artifact_name:path}", server.delete_artifact, ["DELETE"]),
      ("/run", server.run, ["POST"]),
      ("/run_sse", server.run_sse, ["POST"]),
      ("/run_live", server.run_live_http, ["GET", "POST"]),
      *DevEndpoints(server).routes(),
  ]
  bodies = {"create_session": CreateSessionRequest, "update_session": UpdateSessionRequest,
            "save_artifact": SaveArtifactRequest, "run": RunAgentRequest, "run_sse": RunAgentRequest,
            "create_eval_set": CreateEvalSetRequest, "add_session": AddSessionRequest,
            "run_eval": RunEvalRequest, "run_eval_legacy": RunEvalRequest}  # handler name -> body, for /docs
  table += DocsEndpoints(list(table), bodies).routes()
  routes = [Route(path, handler, methods=methods) for path, handler, methods in table]
  routes.insert(0, WebSocketRoute("/run_live", server.run_live))

  @contextlib.asynccontextmanager
  async def lifespan(app):
    yield
    await server.close()

  app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware(config.allow_origins, config.host),
                  exception_handlers=exception_handlers())
  app.state.adk = server
  return app


class AddressUnavailableError(AdkNbError, OSError):
  """The server cannot listen on the address asked for (port in use, not permitted, not this machine's)."""


def bind(host: str, port: int) -> socket.socket:
  """A listening socket on host:port; AddressUnavailableError naming the fix when the port is taken."""
  import errno

  sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
  sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
  try:
    sock.bind((host, port))
  except OSError as exc:
    sock.close()
    where = f"{host}:{port}"
    if exc.errno == errno.EADDRINUSE:
      why = (f"port {port} on {host} is already in use (another server, maybe an earlier api_server, listens "
             "there); stop it, or choose another port with --port N (--port 0 picks a free one)")
    elif exc.errno == errno.EACCES:
      why = f"not permitted to listen on {where} (ports below 1024 need privileges); choose --port 8000 or above"
    elif exc.errno == errno.EADDRNOTAVAIL:
      why = f"{host} is not an address of this machine; use --host 127.0.0.1 (or 0.0.0.0 for every interface)"
    else:
      why = f"cannot listen on {where}: {exc.strerror or exc}"
    raise AddressUnavailableError(why) from None
  sock.listen(2048)  # connections wait in the backlog until uvicorn accepts them, so "listening" is true
  return sock


def check_session_store(uri: str) -> None:
  """Opens the session store once before serving: an unreachable database fails at start (SessionStorageError,
  whose message names the fix), not as a 503 on every request later."""
  from ..services import session_service_from_uri

  async def probe() -> None:
    service = session_service_from_uri(uri)
    try:
      await service.list_sessions(app_name="adk_nb_startup_check", user_id="adk_nb_startup_check")
    finally:
      close = getattr(service, "close", None)
      if close is not None:
        await close()

  asyncio.run(probe())


def serve(config: ServerConfig, host: Optional[str] = None, port: int = 8000, log_level: str = "warning") -> int:
  """Serves until interrupted; prints `adk-nb api_server listening on http://HOST:PORT` once bound.

  The port is bound before the agents are loaded, so a busy port is reported at once.
  """
  import uvicorn

  host = host or config.host
  sock = bind(host, port)
  try:
    app = build_app(replace(config, host=host))
    check_session_store(app.state.adk.session_uri)
  except BaseException:
    sock.close()
    raise
  bound = sock.getsockname()[1]
  line = f"adk-nb api_server listening on http://{host}:{bound} (apps: {', '.join(sorted(app.state.adk.runners))})"

  class AnnouncingServer(uvicorn.Server):
    """Prints the line once uvicorn has started, i.e. after it took over Ctrl-C: a Ctrl-C right after the
    line then stops the server gracefully (before, one that came between the line and uvicorn's signal
    handlers cancelled the startup, and uvicorn logged a CancelledError traceback). Remembers the signal
    that stopped it."""

    stopped_by: Optional[int] = None

    def handle_exit(self, sig: int, frame: Any) -> None:
      self.stopped_by = sig
      super().handle_exit(sig, frame)

    async def startup(self, sockets=None) -> None:
      await super().startup(sockets=sockets)
      if not self.should_exit:
        print(line, flush=True)

  server = AnnouncingServer(uvicorn.Config(app, log_level=log_level, lifespan="on"))
  asyncio.run(server.serve(sockets=[sock]))
  if server.stopped_by == signal.SIGINT:
    # uvicorn shut down gracefully, then re-raised Ctrl-C as it exited; asyncio.run can lose that re-raise (it
    # turns it into a cancel of a task that is already returning), so Ctrl-C is reported from here.
    raise KeyboardInterrupt
  return 0
