"""The sessions view (`%agent sessions AGENT`): a user's sessions as `adk web` lists them, managed from the notebook.

Each row shows the session's name (a display name, see `_session_names`), id, user, last activity,
events, status (paused / done / error / new) and lineage (the session a fork came from). A person can
open one (its run view shows below the list, with its buttons when it is paused; the list follows
the opened run's status), rename it, delete
it (the browser asks first), export it as google-adk's session JSON (a file in the working folder
and a download link) and import such a file (a path in the working folder, or a file picked in the
browser; a session id already taken is imported as `ID-copy`). The browser only draws and sends requests; every action runs here, in the kernel's loop,
and its outcome is written in `notice`.
"""

from __future__ import annotations

import asyncio
import os
from html import escape
from typing import Any, Optional

import anywidget
import ipywidgets as widgets
import traitlets

from . import _session_admin as admin
from ._loop import call_in_loop, running_loop, spawn
from ._sessions import NotebookAgent, SessionBusyError
from .views import _asset, _with_html

IMPORT_LIMIT = 50 * 1024 * 1024
"""Characters of session JSON the file picker may send (a larger file: import it by path)."""


class SessionList(anywidget.AnyWidget):
  """The browser side of the sessions view: the table, its buttons, the import form."""

  _esm = _asset("sessions_view.js")
  _css = _asset("sessions_view.css")
  agent = traitlets.Unicode("").tag(sync=True)
  """The agent's (app's) name."""
  rows = traitlets.List().tag(sync=True)
  """[{session, name, user, current, last_update (s since the epoch), events, status, forked_from, forked_at}]."""
  notice = traitlets.Dict().tag(sync=True)
  """The outcome of the last action: {'text', 'error': bool}. An export's file is sent as a message
  ({'type': 'download', 'file', 'text'}), which the browser offers as a download link."""
  opened = traitlets.Unicode("").tag(sync=True)
  """The id of the session shown below the list ("" when none)."""
  user = traitlets.Unicode("").tag(sync=True)
  """The user whose sessions are listed ("" when every user's are)."""


class SessionsView(widgets.VBox):
  """A user's sessions with their status and lineage; open, rename, delete, export, import.

  In code: `await view.refresh()`, and `await view.act({...})` with the same requests the browser
  sends (`{'type': 'open' | 'rename' | 'delete' | 'export' | 'import', 'session', 'user', ...}`).
  """

  def __init__(self, entry: NotebookAgent, shown: str = "", user: Optional[str] = None, **kwargs: Any):
    self.entry = entry
    self.shown = shown or entry.name
    self.user = user
    """The user whose sessions are listed (None: every user's)."""
    self.list = SessionList(agent=entry.name, user=user or "")
    self.below = widgets.VBox()
    """Holds the opened session's run view."""
    self.run = None
    """The LiveRun of the opened session (None until one is opened)."""
    self._loop = running_loop()
    self._tasks: set[asyncio.Task] = set()
    self._unfollow: Any = None  # unsubscribes from the opened run
    super().__init__(children=[self.list, self.below], **kwargs)
    self.list.on_msg(self._on_browser_msg)

  async def refresh(self) -> list[dict[str, Any]]:
    """Reads the store again; returns the rows shown."""
    self.list.rows = await admin.session_rows(self.entry, self.user)
    return self.list.rows

  async def settled(self) -> None:
    """Waits until every request the browser sent has been carried out."""
    while self._tasks:
      await asyncio.gather(*list(self._tasks), return_exceptions=True)

  def _on_browser_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
    if not isinstance(content, dict) or not isinstance(content.get("type"), str):
      return
    loop = self._loop

    def start() -> None:
      target = loop if loop is not None and loop.is_running() else running_loop()
      if target is None:
        return
      self._track(spawn(target, self.act(content), f"Sessions view: {content['type']}"))
    call_in_loop(loop, start)

  async def act(self, request: dict[str, Any]) -> dict[str, Any]:
    """Carries out one request and shows its outcome in `notice`; refreshes the list.

    Returns the notice, with an export's {'file', 'text'} under 'download'.
    """
    kind = request.get("type")
    session = str(request.get("session") or "")
    user = request.get("user") if isinstance(request.get("user"), str) else None
    download = None
    try:
      if kind == "refresh":
        text = ""
      elif kind == "open":
        text = await self._open(session, user)
      elif kind == "rename":
        name = request.get("name", "")
        await admin.rename_session(self.entry, session, name, self.shown, user)
        name = name.strip() if isinstance(name, str) else name
        text = f"Session {session} is now named {name!r}." if name else f"Session {session} has no name now."
      elif kind == "delete":
        if request.get("confirmed") is not True:
          raise ValueError(f"Deleting {session} needs confirmed=True (the view asks first); nothing was deleted.")
        owner = await admin.delete_session(self.entry, session, self.shown, user)
        if self.list.opened == session:
          self._close_opened()
        text = f"Deleted session {session} of user {owner}."
      elif kind == "export":
        found = await admin.find_session(self.entry, session, self.shown, user)
        path = request.get("path") or f"{found.id}.session.json"
        existed = os.path.exists(path)
        target = await admin.export_session(self.entry, session, path, self.shown, found.user_id)
        text = (f"Exported session {session} to {target} (google-adk's session JSON"
                + ("; the file there before was replaced)." if existed else ")."))
        download = {"file": target.name, "text": admin.session_json(found)}
      elif kind == "import":
        imported = await self._import(request)
        text = (f"Imported session {imported.id} of user {imported.user_id} "
                f"({len((await admin.find_session(self.entry, imported.id, self.shown, imported.user_id)).events)} events).")
      else:
        raise ValueError(f"Unknown request {kind!r}; the view sends open, rename, delete, export or import.")
      error = False
    except (ValueError, SessionBusyError) as exc:  # what a person can fix: the message names the fix
      text, error = str(exc), True
    except Exception as exc:  # noqa: BLE001 - anything else (a file, the store) is shown in the view, not lost in a log
      text, error = f"{type(exc).__name__}: {exc}", True
    await self.refresh()
    self.list.notice = {"text": text, "error": error}
    if download:  # the file's text travels as one message, never in the widget state (saved with the notebook)
      self.list.send({"type": "download", **download})
    return {"text": text, "error": error, **({"download": download} if download else {})}

  async def _open(self, session: str, user: Optional[str]) -> str:
    from .live_run import LiveRun

    found = await admin.find_session(self.entry, session, self.shown, user)
    run = await LiveRun.attach(self.entry.runner, session_id=found.id, user_id=found.user_id, label=self.entry.name)
    self.entry.session_id, self.entry.user_id = found.id, found.user_id
    self.entry.runs.append(run)
    self._close_opened()
    self.run = run
    self._unfollow = run.subscribe(self._on_run_change)
    self.below.children = [run.view] if run.view is not None else []
    self.list.opened = found.id
    return (f"Opened session {found.id}: the next %%agent {self.shown} cell continues it"
            + (f"; it waits for {len(run.pending)} answer(s) below." if run.pending else "."))

  def _on_run_change(self, change: Any) -> None:
    """When a step of the opened run ends (approved and done, paused again, failed), the list says so."""
    if change.final:
      self._track(spawn(change.run.loop or asyncio.get_running_loop(), self.refresh(), "Sessions view: refresh"))

  def _track(self, task: "asyncio.Task") -> None:
    self._tasks.add(task)
    task.add_done_callback(self._tasks.discard)

  def _close_opened(self) -> None:
    if self._unfollow is not None:
      self._unfollow()
      self._unfollow = None
    self.below.children = []
    self.run = None
    self.list.opened = ""

  async def _import(self, request: dict[str, Any]):
    new_id = request.get("session") or None
    if isinstance(request.get("text"), str):
      text = request["text"]
      if len(text) > IMPORT_LIMIT:
        raise ValueError(f"The file has {len(text):,} characters (more than {IMPORT_LIMIT:,}); put it in the "
                         "working folder and import it by path. Nothing was imported.")
      return await admin.import_session_text(self.entry, text, str(request.get("file") or "the file"), new_id,
                                             self.user, free_id=True)
    path = request.get("path")
    if not isinstance(path, str) or not path.strip():
      raise ValueError("Name the file to import (a path in the working folder) or pick one; nothing was imported.")
    return await admin.import_session(self.entry, path.strip(), new_id, self.user, free_id=True)

  def _repr_mimebundle_(self, **kwargs: Any):
    return _with_html(super()._repr_mimebundle_(**kwargs), sessions_html(self.list.agent, self.list.rows))


def sessions_html(agent: str, rows: list[dict[str, Any]]) -> str:
  """The sessions as a static HTML table (a saved notebook), every value escaped."""
  import datetime

  def when(seconds: Any) -> str:
    return datetime.datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M:%S") if seconds else ""

  head = "".join(f"<th>{h}</th>" for h in ("name", "session", "user", "last activity", "events", "status",
                                             "forked from"))
  body = "".join(
      "<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in (
          r.get("name") or "", r["session"], r["user"], when(r.get("last_update")), r["events"], r["status"],
          f"{r['forked_from']} @ {r['forked_at']}" if r.get("forked_from") else "")) + "</tr>"
      for r in rows)
  return (f"<div class='adknb-static'><b>Sessions of {escape(agent)}</b><table><thead><tr>{head}</tr></thead>"
          f"<tbody>{body}</tbody></table></div>")


async def sessions_view(entry: NotebookAgent, shown: str = "", user: Optional[str] = None) -> SessionsView:
  """The sessions view of a notebook agent (one user's sessions, or every user's), filled from its store."""
  view = SessionsView(entry, shown, user)
  await view.refresh()
  return view
