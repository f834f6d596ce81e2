"""The chat view: talk to an agent from a message box, watch each turn live, switch sessions.

    from adk_nb.notebook.chat import chat
    chat(agent)            # history, a message box and Send, the live RunView of the turn

It is the notebook's counterpart of ADK's dev UI. Each Send starts the turn as a task on
the kernel's loop and returns at once: the kernel stays idle while the agent works, so
other cells, and the Approve / Reject buttons of a paused turn, keep working.
"""

from __future__ import annotations

import asyncio
import uuid
from html import escape
from typing import Any, Awaitable, Optional

import ipywidgets as widgets
from google.genai import types

from ..agents.run_config import RunConfig
from ._loop import call_in_loop, logger, run_sync, running_loop, spawn
from ._policy import resolve_policy
from ._sessions import DEFAULT_USER, NotebookAgent, SessionBusyError, registry
from .live_run import LiveRun
from .views import MessageBox

_WHO_CSS = {"user": "adknb-chat-user", "error": "adknb-chat-error"}
_STYLE = ("<style>.adknb-chat-log{font:13px/1.45 var(--jp-ui-font-family,system-ui,sans-serif);max-height:22em;"
          "overflow-y:auto;color:var(--jp-ui-font-color1,inherit);border:1px solid var(--jp-border-color2,#ddd);"
          "padding:4px 8px}.adknb-chat-log p{margin:3px 0;white-space:pre-wrap}.adknb-chat-log b{margin-right:6px}"
          ".adknb-chat-user b{color:var(--jp-success-color0,#1a6)}.adknb-chat-error{color:var(--jp-error-color0,#b00)}"
          ".adknb-chat-log i{color:var(--jp-ui-font-color2,#777)}</style>")


ChatTurn = LiveRun
"""One turn of a chat is a LiveRun; the chat subscribes to it (name kept for code that imports it)."""


class ChatView(widgets.VBox):
  """A chat with an agent: history above, a message box and Send, the live RunView of the current turn below.

  Send starts the turn as a task on the kernel's loop and returns at once (nothing ever
  waits inside a click handler). A session menu switches sessions; "New session" starts
  one. The same methods drive it from code: `send("...")`, `switch("id")`,
  `new_session()`, and `await view.idle()` waits for the turn to end or pause.
  """

  def __init__(self, target: Any, *, session: Optional[str] = None, store: Optional[str] = None,
               user: Optional[str] = None, approve: Optional[str] = None,
               run_config: Optional[RunConfig] = None):
    self.entry: NotebookAgent = registry.get(target, store)
    """The notebook's runner for this agent (shared with `%%agent` cells on the same agent and store)."""
    self.user_id: str = user or self.entry.user_id or DEFAULT_USER
    """Whose sessions the chat shows."""
    self.session_id: str = session or (self.entry.session_id if self.entry.user_id == self.user_id else None) \
        or _new_id()
    """The session the next message goes to."""
    self.policy = resolve_policy(approve)
    """Who answers tool confirmations when nobody clicks ('ask', 'auto', 'deny')."""
    self.run_config = run_config
    self.turn: Optional[ChatTurn] = None
    """The current (latest) turn; `await view.turn` waits for its current step."""
    self.turns: list[ChatTurn] = []
    """Every turn sent from this view."""
    self.messages: list[tuple[str, str]] = []
    """The current session's conversation as (author, text): 'user' for the user, else the agent's name."""
    self._seen: dict[int, int] = {}  # turn id -> events already copied into the history
    self._parked: dict[str, ChatTurn] = {}  # session id -> its paused turn, shown again on switching back
    self._jobs: list[asyncio.Task] = []
    self._loop = running_loop()
    self._switching = False

    self.sessions = widgets.Dropdown(description="Session", options=[self.session_id], value=self.session_id,
                                     layout=widgets.Layout(width="auto"))
    """The session menu: choosing one shows its history and sends the next message there."""
    self.new_button = widgets.Button(description="New session", icon="plus", tooltip="Start a new session")
    self.status = widgets.Label(value="")
    """One line: what the chat is doing, or why a message was not sent."""
    self.history = widgets.HTML(value="")
    """The conversation so far (every text escaped)."""
    self.input = MessageBox(placeholder=f"Message {self.entry.name}… (Enter sends, Shift+Enter: new line)",
                            on_send=lambda text: self._from_click(lambda: self._send_typed(text)))
    """The message box: Enter sends, Shift+Enter starts a new line; `input.value` is its text."""
    self.send_button = widgets.Button(description="Send", button_style="primary", icon="paper-plane")
    self.run_box = widgets.VBox()
    """Holds the RunView of the current turn."""
    self.sessions.observe(self._on_session_chosen, names="value")
    self.new_button.on_click(lambda _b: self._from_click(self.new_session))
    self.send_button.on_click(lambda _b: self._from_click(self._send_from_box))
    header = widgets.HBox([self.sessions, self.new_button, self.status])
    composer = widgets.HBox([self.input, self.send_button], layout=widgets.Layout(align_items="flex-end"))
    super().__init__(children=[header, self.history, composer, self.run_box])
    self.add_class("adknb-chat")
    self._render_history()
    self._job(self._open(self.session_id, refresh_list=True), "Opening the chat session")

  # ---- what users call -----------------------------------------------------------------------

  def send(self, text: str) -> Optional[ChatTurn]:
    """Sends `text` as the user's next message and returns the turn at once (None if it was refused).

    In a kernel the turn runs as a task on the kernel's loop; outside one it runs to its
    end or pause first. A message is refused (see `status`) while a turn runs or waits
    for an answer: answer the pending call in the view below first.
    """
    if not isinstance(text, str) or not text.strip():
      self.status.value = "Write a message first."
      return None
    if self.turn is not None and self.turn.status in ("running", "paused"):
      self.status.value = ("The agent is still answering; wait for it to finish." if self.turn.status == "running"
                           else "The agent waits for an answer to a tool call: use the buttons below first.")
      return None
    entry, session_id, user_id = self.entry, self.session_id, self.user_id
    try:
      entry.refuse_if_running(session_id, user_id)  # e.g. a `%%agent --background` cell on this session
    except SessionBusyError as exc:
      self.status.value = str(exc)
      return None
    entry.session_id, entry.user_id = session_id, user_id  # %%agent cells continue the same session
    turn = LiveRun(entry.runner, user_id=user_id, session_id=session_id, approve=self.policy,
                   run_config=self.run_config, view=True, label=entry.name)
    turn.subscribe(self._on_turn_change)
    entry.runs.append(turn)
    self._show_turn(turn)
    self.turns.append(turn)
    self._seen[id(turn)] = 0
    self.messages.append(("user", text))
    self._render_history()
    message = types.Content(role="user", parts=[types.Part(text=text)])
    return turn.start(message, prepare=lambda: entry.create_if_missing(session_id, user_id, False))

  def new_session(self, session_id: Optional[str] = None) -> None:
    """Starts a new, empty session and makes it current (it appears in the session menu)."""
    if self._busy():
      return
    session_id = session_id or _new_id()
    self._job(self._open(session_id, refresh_list=True, clear=True), f"Creating session {session_id}")

  def switch(self, session_id: str) -> None:
    """Shows the history of session `session_id` and sends the next message there (created if new)."""
    if self._busy():
      return
    self._job(self._open(session_id, refresh_list=session_id not in self.sessions.options, clear=True),
              f"Opening session {session_id}")

  async def idle(self, timeout: Optional[float] = None) -> "ChatView":
    """Waits until sessions are loaded and the current turn has ended or paused.

    On timeout it raises asyncio.TimeoutError and the turn keeps running.
    """
    # asyncio.wait, not gather: on timeout wait_for cancels settle(), and gather would pass
    # that cancel on to the turn itself.
    async def settle() -> None:
      while True:
        jobs = [j for j in self._jobs if not j.done()]
        if jobs:
          await asyncio.wait(jobs)
        elif self.turn is not None and self.turn.running:
          await self.turn.settled()
        else:
          return

    await asyncio.wait_for(settle(), timeout)
    return self

  # ---- inside ----------------------------------------------------------------------------------

  def _from_click(self, action) -> None:
    # A click may arrive on another thread (ipykernel subshells): act on the chat's loop.
    loop = self._loop
    if loop is not None and loop.is_running() and running_loop() is not loop:
      call_in_loop(loop, action)
    else:
      action()

  def _send_typed(self, text: str) -> None:
    # Enter in the box: the text as the browser had it when Enter was pressed (the browser emptied the
    # box then); a refused message goes back into the box.
    if self.send(text) is None:
      self.input.restore(text)
    else:
      self.input.value = ""

  def _send_from_box(self) -> None:
    text = self.input.value
    if self.send(text) is not None:
      self.input.clear()

  def _busy(self) -> bool:
    if self.turn is not None and self.turn.status == "running":
      self.status.value = "Wait for the current turn to finish before changing session."
      return True
    return False

  def _set_busy(self, busy: bool) -> None:
    self.send_button.disabled = busy
    self.sessions.disabled = busy
    self.new_button.disabled = busy

  def _job(self, coro: Awaitable[Any], what: str) -> None:
    """Runs a store operation: as a task on the kernel's loop, or to completion outside a kernel."""
    loop = running_loop()
    if loop is None:
      run_sync(coro)
      return
    self._jobs = [j for j in self._jobs if not j.done()] + [spawn(loop, coro, what)]

  def _open(self, session_id: str, refresh_list: bool, clear: bool = False) -> Awaitable[None]:
    # Counted now, not when the task starts: a message sent meanwhile (e.g. in the cell that
    # made the chat) must keep its place in the history.
    return self._load(session_id, refresh_list, clear, turns_before=len(self.turns))

  async def _load(self, session_id: str, refresh_list: bool, clear: bool, turns_before: int) -> None:
    runner = self.entry.runner
    try:
      await self.entry.create_if_missing(session_id, self.user_id, False)
      session = await runner.session_service.get_session(app_name=runner.app_name, user_id=self.user_id,
                                                         session_id=session_id)
      listed = None
      if refresh_list:
        listed = await runner.session_service.list_sessions(app_name=runner.app_name, user_id=self.user_id)
    except Exception as exc:  # noqa: BLE001 - shown in the view; the chat stays on its session
      self.status.value = f"Could not open session {session_id!r}: {type(exc).__name__}: {exc}"
      logger.warning("adk_nb chat: %s", self.status.value)
      return
    if len(self.turns) == turns_before:
      self.session_id = session_id
      self.entry.session_id, self.entry.user_id = session_id, self.user_id
      self.messages = _conversation(session.events if session is not None else [])
      if clear:
        self._show_turn(self._parked.pop(session_id, None))
    names = list(self.sessions.options)
    if listed is not None:
      names = [s.id for s in sorted(listed.sessions, key=lambda s: s.last_update_time or 0)]
      if session_id not in names:
        names.append(session_id)
    elif session_id not in names:
      names.append(session_id)
    self._switching = True
    try:
      self.sessions.options = names
      self.sessions.value = self.session_id
    finally:
      self._switching = False
    if len(self.turns) == turns_before:
      self.status.value = f"{len(self.messages)} messages in session {session_id}" if self.messages else \
          f"New session {session_id}"
      if self.turn is not None and self.turn.status == "paused":
        self.status.value += "; a tool call waits for an answer: use the buttons below."
      self._render_history()

  def _show_turn(self, turn: Optional[ChatTurn]) -> None:
    """Makes `turn` the current turn under the box; the one it replaces is parked if paused, else closed."""
    old = self.turn
    if old is not None and old is not turn:
      if old.status in ("paused", "running"):
        self._parked[old.session_id] = old  # its buttons come back when the chat returns to its session
      else:
        old.view.close()  # its widgets are open comms; `turn.view` makes a fresh one if shown again
    self.turn = turn
    self.run_box.children = [turn.view] if turn is not None else []
    self._set_busy(turn is not None and turn.status == "running")

  def _on_session_chosen(self, change: dict[str, Any]) -> None:
    if self._switching or change.get("new") in (None, self.session_id):
      return
    self._from_click(lambda: self.switch(change["new"]))

  def _on_turn_change(self, change) -> None:
    if change.what == "started":
      self._step_started(change.run)
    elif change.final:
      self._step_ended(change.run)

  def _step_started(self, turn: ChatTurn) -> None:
    if turn is self.turn:
      self._set_busy(True)
      self.status.value = f"{self.entry.name} is answering…"

  def _step_ended(self, turn: ChatTurn) -> None:
    """Called on the loop when a turn's run (or resume) ends: copies its replies into the history."""
    if turn is not self.turn:
      return
    start = self._seen.get(id(turn), 0)
    self.messages.extend(_conversation(turn.events[start:], with_user=False))
    self._seen[id(turn)] = len(turn.events)
    if turn.status == "error":
      self.messages.append(("error", turn.error or "The turn failed."))
    self._render_history()
    self.status.value = {"done": "", "error": "The turn failed; see the event tree below.",
                         "paused": "Waiting for an answer: use the buttons below."}.get(turn.status, "")
    self._set_busy(turn.status == "running")

  def _render_history(self) -> None:
    self.history.value = history_html(self.messages, self.entry.name)

  def _repr_mimebundle_(self, **kwargs: Any):
    from .views import _with_html

    static = f"<div><b>Chat with {escape(self.entry.name)}</b> · session {escape(self.session_id)}</div>"
    return _with_html(super()._repr_mimebundle_(**kwargs), static + history_html(self.messages, self.entry.name))


def history_html(messages: list[tuple[str, str]], agent_name: str = "") -> str:
  """The conversation as HTML, every author and text escaped (model and tool text is never markup)."""
  if not messages:
    return (_STYLE + f"<div class='adknb-chat-log'><i>No messages yet. Say something to "
            f"{escape(agent_name or 'the agent')} below.</i></div>")
  rows = "".join(
      f"<p class='{_WHO_CSS.get(who, 'adknb-chat-agent')}'><b>{escape('you' if who == 'user' else who)}</b>"
      f"{escape(text)}</p>" for who, text in messages)
  return f"{_STYLE}<div class='adknb-chat-log'>{rows}</div>"


def _conversation(events: list, with_user: bool = True) -> list[tuple[str, str]]:
  """The user's messages and the agents' texts in `events`, as (author, text)."""
  out: list[tuple[str, str]] = []
  for event in events:
    if event.partial:
      continue
    text = event.text
    if not text:
      continue
    if event.author == "user":
      if with_user:
        out.append(("user", text))
    else:
      out.append((event.author, text))
  return out


def _new_id() -> str:
  return f"chat-{uuid.uuid4().hex[:8]}"


def chat(agent_or_runner: Any, *, session: Optional[str] = None, store: Optional[str] = None,
         user: Optional[str] = None, approve: Optional[str] = None,
         run_config: Optional[RunConfig] = None) -> ChatView:
  """Opens a chat with an agent (or App, or Runner) in the notebook and returns its view.

  Type a message and press Send: the turn runs as a task on the kernel's loop, its live
  RunView appears under the box, and the reply joins the history when the turn ends. The
  session menu switches sessions, "New session" starts one.

  Args:
    agent_or_runner: an agent, an App or a Runner.
    session: the session to open (default: the agent's current notebook session, else a new one).
    store: 'memory://' or a database URL (default: SQLite under .adk_nb/, as `%%agent`);
      not for a Runner, which has its own session service.
    user: the user id (default 'user').
    approve: who answers tool confirmations: 'ask' (buttons), 'auto', 'deny'
      (default: $ADK_NB_APPROVE, else 'ask').
    run_config: a RunConfig for every turn (e.g. streaming).
  """
  return ChatView(agent_or_runner, session=session, store=store, user=user, approve=approve, run_config=run_config)
