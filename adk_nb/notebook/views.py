"""The views a run shows: event tree, state scopes and confirmation panel, composed into RunView."""

from __future__ import annotations

import asyncio
import html
import json
import pathlib
import time
from typing import TYPE_CHECKING, Any, Callable, Optional

import anywidget
import ipywidgets as widgets
import traitlets

from ..errors import SessionBusyError
from ..events.protocol import REQUEST_INPUT, node_confirmation
from ..inspect.details import DETAIL_LIMIT, step_details
from ..inspect import LABELS, STATUS_TEXT
from ..inspect.step import vocabulary
from ..inspect.timeline import Trace, steps_of_nodes, trace
from ..inspect.text import jsonable, readable_hint, to_json_text
from . import _parent_guard
from .step_edit import actions_for, event_of, replacement
from ._loop import call_in_loop, logger, running_loop
from ._static import run_view_html, state_html, tree_html

if TYPE_CHECKING:
  from .live_run import LiveRun, RunChange

WIDGETS_DIR = pathlib.Path(__file__).parent / "_widgets"
"""The browser side (ES modules and CSS): top-level `widgets/`, shipped inside the wheel."""

MAX_UPDATES_PER_SECOND = 15
"""Widget updates are coalesced to at most this many per second, whatever the event rate."""


def _with_html(bundle: Any, html: str) -> Any:
  """Adds the static HTML form to a widget's MIME bundle (a dict, or a (data, metadata) pair)."""
  if isinstance(bundle, tuple):
    data, metadata = bundle
    return {**(data or {}), "text/html": html}, metadata
  return {**(bundle or {}), "text/html": html}


def close_widgets(widget: widgets.Widget) -> None:
  """Closes `widget`, every widget inside it, and their layouts and styles (each one is an open comm)."""
  for child in getattr(widget, "children", ()):
    close_widgets(child)
  for name in ("layout", "style"):
    part = getattr(widget, name, None)
    if isinstance(part, widgets.Widget):
      part.close()
  widgets.Widget.close(widget)


def _text(value: str = "") -> widgets.HTML:
  """A line of plain text shown as written: a Label would typeset `$...$` in model or tool text as LaTeX."""
  return widgets.HTML(value=_escaped(value))


def _escaped(text: str) -> str:
  return html.escape(text, quote=False)


def _asset(name: str) -> pathlib.Path:
  path = WIDGETS_DIR / name
  if not path.is_file():
    raise FileNotFoundError(f"adk_nb's widget file {path} is missing; reinstall adk_nb (pip install -e .).")
  return path


class EventTree(anywidget.AnyWidget):
  """The live event tree: invocations, agents, model turns, tool calls and results, pauses and errors.

  New nodes travel as small append-only messages; `nodes` holds the full snapshot (set when
  a run step ends) so a reloaded notebook shows the whole tree.
  """

  _esm = _asset("event_tree.js")
  _css = _asset("event_tree.css")
  nodes = traitlets.List().tag(sync=True)
  """Snapshot of every node (`Step.as_node()` of `adk_nb.inspect`)."""
  seq = traitlets.Int(0).tag(sync=True)
  """Number of update batches the snapshot includes."""
  status = traitlets.Unicode("").tag(sync=True)
  """The run's status shown in the header."""
  title = traitlets.Unicode("").tag(sync=True)
  """The run's title: the agent's name."""
  labels = traitlets.Dict(dict(LABELS)).tag(sync=True)
  """How each kind of step is named (the one table every view uses)."""
  status_text = traitlets.Dict(dict(STATUS_TEXT)).tag(sync=True)
  """How each status reads (a symbol and a word: never colour alone)."""
  vocabulary = traitlets.Dict(vocabulary()).tag(sync=True)
  """Which kinds hold other steps and which statuses and kinds are errors (`adk_nb.inspect.step.vocabulary()`):
  the browser declares no kind or status of its own."""
  filter = traitlets.Unicode("").tag(sync=True)
  """Text the tree is filtered by (set by clicking a node of the graph; the filter box edits it too)."""
  timeline = traitlets.Bool(False).tag(sync=True)
  """True while the timeline tab is open (its button sets it; a view re-rendered when a step ends keeps it)."""
  # What a person opened in the tree, written by the browser: the cell's display is refreshed when a run
  # step ends, which draws the view anew, and every drawing starts from these. Step ids only, at most
  # 500 per trait (widgets/event_tree.js), so the widget state stays small whatever the run's size.
  opened = traitlets.Dict().tag(sync=True)
  """Steps a person opened (true) or folded (false), by id; the others show as they start."""
  tracebacks = traitlets.Dict().tag(sync=True)
  """Steps whose folded traceback a person opened: {id: true}."""
  selected = traitlets.Unicode("").tag(sync=True)
  """The step whose details show in the panel beside the tree ('' when the panel is closed); payloads are never kept."""
  selected_full = traitlets.Bool(False).tag(sync=True)
  """True once "show all" was clicked for the selected step's cut sections."""
  expanded = traitlets.Bool(False).tag(sync=True)
  """True once "expand all" was clicked: every step shows open, the ones arriving later too, unless folded since."""
  errors_only = traitlets.Bool(False).tag(sync=True)
  """True while "errors only" is ticked."""

  TRACE_EVERY = 0.25
  """Seconds between two timelines pushed after tree batches (at least; more when computing one costs more)."""

  def __init__(self, source: Optional[Callable[[], list]] = None,
               loop: Optional[Callable[[], Any]] = None,
               detail: Optional[Callable[[str, bool], dict]] = None,
               trace_of: Optional[Callable[[], Trace]] = None,
               on_step_action: Optional[Callable[[dict], None]] = None, **kwargs: Any):
    super().__init__(**kwargs)
    self._source = source or (lambda: list(self.nodes))
    self._loop_of = loop or (lambda: None)
    self._detail = detail
    self._trace_of = trace_of or (lambda: trace(steps_of_nodes(self._source())))
    self._trace_due = 0.0
    self._on_step_action = on_step_action
    _parent_guard.install()  # its first message to the kernel arrives mid-cell
    self._sent_seq = 0
    self.messages_sent = 0
    """Custom messages sent to the browser (for tests and the benchmark)."""
    self.on_msg(self._on_browser_msg)

  def send_ops(self, ops: list) -> None:
    """Sends one batch of tree operations to every open view."""
    self._sent_seq += 1
    self.messages_sent += 1
    self.send({"type": "ops", "seq": self._sent_seq, "ops": ops})

  def snapshot(self) -> None:
    """Stores the full tree in the widget state (what a reloaded notebook shows)."""
    with self.hold_sync():  # nodes and seq reach the browser together
      self.nodes = [dict(n) for n in self._source()]
      self.seq = self._sent_seq

  def send_trace(self, *, throttled: bool = False, asked: bool = False) -> None:
    """Sends the timeline's rows (`adk_nb.inspect.timeline.trace`) to every open view, computed here only
    while the timeline tab is open (or when a view `asked`, as it opens the tab). `throttled`: skipped when
    one was sent less than TRACE_EVERY seconds ago (or 20 times what computing the last one took)."""
    if not (self.timeline or asked):
      return
    now = time.monotonic()
    if throttled and now < self._trace_due:
      return
    message = self._trace_of().as_message()
    spent = time.monotonic() - now
    self._trace_due = time.monotonic() + max(self.TRACE_EVERY, 20 * spent)
    self.messages_sent += 1
    self.send(message)

  def _on_browser_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
    if not isinstance(content, dict):
      return
    if content.get("type") == "hello":
      call_in_loop(self._loop_of(), self._send_everything)
    elif content.get("type") == "trace":
      call_in_loop(self._loop_of(), lambda: self.send_trace(asked=True))
    elif content.get("type") in ("fork", "edit") and self._on_step_action is not None:
      call_in_loop(self._loop_of(), lambda: self._on_step_action(content))
    elif content.get("type") == "detail":
      node_id, full = str(content.get("id", "")), bool(content.get("full"))
      call_in_loop(self._loop_of(), lambda: self._send_detail(node_id, full))

  def _send_detail(self, node_id: str, full: bool) -> None:
    # Payloads travel as one message to the view that asked, never in the widget state.
    try:
      detail = self._detail(node_id, full) if self._detail is not None else None
    except Exception as exc:  # noqa: BLE001 - shown in the panel
      detail = {"id": node_id, "sections": [{"title": "error", "text": f"{type(exc).__name__}: {exc}", "cut": 0}]}
    if detail is None:
      detail = {"id": node_id, "sections": [{"title": "details", "text": "No details for this step.", "cut": 0}]}
    self.messages_sent += 1
    self.send({"type": "detail", **detail})

  def _send_everything(self) -> None:
    # A view rendered mid-run: send it everything so far.
    self.messages_sent += 1
    self.send({"type": "reset", "seq": self._sent_seq, "nodes": [dict(n) for n in self._source()]})

  def _repr_mimebundle_(self, **kwargs: Any):
    return _with_html(super()._repr_mimebundle_(**kwargs), tree_html(self._source(), self.status, self.title))


class StateView(anywidget.AnyWidget):
  """The state scopes side by side (app, user, session, temp); edits between turns become state-delta events."""

  _esm = _asset("state_view.js")
  _css = _asset("state_view.css")
  scopes = traitlets.Dict().tag(sync=True)
  """{'app': {...}, 'user': {...}, 'session': {...}, 'temp': {...}}."""
  changed = traitlets.List().tag(sync=True)
  """Keys changed by the latest event that changed state (highlighted)."""
  editable = traitlets.Bool(False).tag(sync=True)
  """True between turns: values can be edited."""
  error = traitlets.Unicode("").tag(sync=True)
  """The last edit's problem, shown under the table."""

  def __init__(self, on_edit: Optional[Callable[[str, Any], None]] = None,
               loop: Optional[Callable[[], Any]] = None, **kwargs: Any):
    super().__init__(**kwargs)
    self._on_edit = on_edit
    self._loop_of = loop or (lambda: None)
    self.on_msg(self._on_browser_msg)

  def _on_browser_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
    # The message may arrive on another thread (ipykernel subshells): edit on the run's loop.
    if isinstance(content, dict) and content.get("type") == "edit":
      call_in_loop(self._loop_of(), lambda: self._edit(content))

  def _edit(self, content: dict) -> None:
    key, text = str(content.get("key", "")), content.get("value", "")
    try:
      value = json.loads(text) if isinstance(text, str) else text
    except ValueError:
      self.error = f"{key}: not valid JSON (strings need quotes, e.g. \"text\"). Nothing was changed."
      return
    self.error = ""
    if self._on_edit is not None:
      try:
        self._on_edit(key, value)
      except (ValueError, SessionBusyError) as exc:  # a temp: key; the run is running
        self.error = str(exc)

  def _repr_mimebundle_(self, **kwargs: Any):
    return _with_html(super()._repr_mimebundle_(**kwargs), f"<div class='adknb-static'>{state_html(self.scopes)}</div>")


class MessageBox(anywidget.AnyWidget):
  """A message box for the chat: Enter sends (`on_send(text)`), Shift+Enter starts a new line, as in JupyterLab's chat."""

  _esm = _asset("message_box.js")
  _css = _asset("message_box.css")
  value = traitlets.Unicode("").tag(sync=True)
  """The text in the box."""
  placeholder = traitlets.Unicode("").tag(sync=True)
  disabled = traitlets.Bool(False).tag(sync=True)
  """True while a turn runs: the box is greyed out and Enter sends nothing."""

  def __init__(self, on_send: Optional[Callable[[str], None]] = None, **kwargs: Any):
    super().__init__(**kwargs)
    self._on_send = on_send
    self.on_msg(self._on_browser_msg)

  def clear(self) -> None:
    """Empties the box after its text was sent.

    Also told to the browser as a message of its own: a trait update alone can be dropped there while
    the box's own last keystroke is still waiting for its echo (ipywidgets keeps the local value then).
    """
    self.value = ""
    self.send({"type": "sent"})

  def restore(self, text: str) -> None:
    """Puts back text that was sent from the box but refused (the browser empties the box on Enter)."""
    self.value = text
    self.send({"type": "restore", "text": text})

  def _on_browser_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
    # The handler may run on another thread (ipykernel subshells): `on_send` hands over to the loop.
    if isinstance(content, dict) and content.get("type") == "send" and self._on_send is not None:
      text = content.get("text")
      self._on_send(text if isinstance(text, str) else self.value)


class ConfirmationPanel(widgets.VBox):
  """Each pending call with Approve, Reject (with a reason) and Edit arguments; or a result box for long-running calls."""

  def __init__(self, run: "LiveRun", **kwargs: Any):
    super().__init__(**kwargs)
    self._run = run
    self._rows: dict[str, dict[str, Any]] = {}
    self._shown: tuple = ()

  def refresh(self) -> None:
    """Shows the run's pending items; answered ones disappear."""
    key = tuple(p.call_id for p in self._run.pending)
    if key == self._shown:
      return
    self._shown = key
    self._rows = {}
    old, self.children = self.children, [self._row(item) for item in self._run.pending]
    for row in old:  # answered rows: nothing shows them any more
      close_widgets(row)

  def show_error(self, call_id: str, message: str) -> None:
    """Shows why an answer was not sent next to its buttons, and enables them again."""
    row = self._rows.get(call_id)
    if row is None:
      return
    row["error"].value = _escaped(message)
    for button in row["buttons"]:
      button.disabled = False

  def _row(self, item) -> widgets.Widget:
    error = _text()
    buttons: list[widgets.Button] = []

    def clicked(action: str, value: Callable[[], Any] = lambda: None):
      def act() -> None:
        run = self._run
        if not run.answerable(item):
          return  # a double click, or a second button: the first answer stands, buttons stay disabled
        for b in buttons:
          b.disabled = True
        error.value = ""
        try:
          run.decide(item, action, value(), by="button")
        except (ValueError, RuntimeError) as exc:  # shown next to the buttons; the run is unchanged
          self.show_error(item.call_id, str(exc))

      def handler(_button: Any) -> None:
        # A click may arrive on another thread (ipykernel subshells): widgets change on the run's loop only.
        call_in_loop(self._run.loop, act)
      return handler

    if item.tool == REQUEST_INPUT:
      parts, args = self._input_form(item, clicked, buttons)
    else:
      parts, args = self._call_form(item, clicked, buttons)
    if item.may_have_run:
      warning = _text("⚠ may have run: an earlier run of this call was interrupted while the tool ran, so its "
                      "effect may already exist. Check before approving; approving it again tells the model it "
                      "may have run and does not run it a second time.")
      warning.add_class("adknb-may-have-run")
      parts.insert(1, warning)
    self._rows[item.call_id] = {"buttons": buttons, "error": error, "args": args}
    row = widgets.VBox([*parts, error])
    row.add_class("adknb-pending")
    return row

  def _call_form(self, item, clicked, buttons: list) -> tuple[list, widgets.Textarea]:
    """A tool call waiting for approval (Approve, Reject with a reason, Approve with edits) or for its result."""
    title = _text(f"{item.agent} wants to run {item.tool}" if item.kind == "confirmation"
                  else f"{item.agent} waits for the result of {item.tool}")
    hint = _text(readable_hint(item.hint))
    shown = to_json_text(item.args, indent=2)
    args = widgets.Textarea(value=shown, rows=min(12, shown.count("\n") + 2), layout=widgets.Layout(width="100%"))

    def parsed_args() -> Any:
      try:
        return json.loads(args.value)
      except ValueError as exc:
        raise ValueError(f"The arguments are not valid JSON ({exc}); fix them and click again.") from None

    if item.kind == "confirmation":
      reason = widgets.Text(placeholder="reason (optional)")
      approve = widgets.Button(description="Approve", button_style="success")
      reject = widgets.Button(description="Reject", button_style="danger")
      edit = widgets.Button(description="Approve with edits", tooltip="Approve with the arguments as edited above",
                            layout=widgets.Layout(width="auto"))
      approve.on_click(clicked("approve"))
      reject.on_click(clicked("reject", lambda: reason.value))
      edit.on_click(clicked("edit", parsed_args))
      buttons += [approve, reject, edit]
      controls = widgets.HBox([approve, reject, reason, edit])
    else:
      result = widgets.Textarea(placeholder='result as JSON, e.g. {"status": "approved"}')
      send = widgets.Button(description="Send result", button_style="primary")
      send.on_click(clicked("respond", lambda: _json_or_text(result.value)))
      buttons.append(send)
      controls = widgets.HBox([result, send])
    return [title, hint, args, controls], args

  def _input_form(self, item, clicked, buttons: list) -> tuple[list, widgets.Textarea]:
    """A workflow's `RequestInput`: its question, what it shows for context, and a box for the answer."""
    gated = node_confirmation(item.call_id, item.args)
    if gated is not None:
      return self._node_confirmation_form(item, gated, clicked, buttons)
    message = item.args.get("message") or "A workflow node asks for input."
    where = item.agent + (f" ({item.branch})" if item.branch else "")
    title = _text(f"{where} asks: {message}")
    title.add_class("adknb-input-question")
    parts: list = [title]
    payload = item.args.get("payload")
    if payload is not None:
      parts.append(_text("It shows you:"))
      shown = widgets.HTML(value=f"<pre class='adknb-input-payload'>{_escaped(to_json_text(payload, indent=2))}</pre>")
      parts.append(shown)
    schema = item.args.get("response_schema")
    placeholder = "your answer: JSON (e.g. {\"approved\": true}) or plain text"
    if schema:
      parts.append(_text("The answer should follow this schema: " + to_json_text(schema)))
    answer = widgets.Textarea(placeholder=placeholder, rows=3, layout=widgets.Layout(width="100%"))
    answer.add_class("adknb-input-answer")
    send = widgets.Button(description="Send answer", button_style="primary")
    send.add_class("adknb-input-send")
    send.on_click(clicked("respond", lambda: _json_or_text(answer.value)))
    buttons.append(send)
    parts += [answer, send]
    return parts, answer


  def _node_confirmation_form(self, item, gated: tuple[str, dict], clicked, buttons: list
                              ) -> tuple[list, widgets.Textarea]:
    """A workflow node that needs approval to run: its arguments, Approve and Reject (a ToolConfirmation)."""
    tool, node_args = gated
    where = item.agent + (f" ({item.branch})" if item.branch else "")
    title = _text(f"{where} wants to run the node {tool}")
    shown = to_json_text(node_args, indent=2)
    args = widgets.Textarea(value=shown, rows=min(12, shown.count("\n") + 2), disabled=True,
                            layout=widgets.Layout(width="100%"))
    approve = widgets.Button(description="Approve", button_style="success")
    reject = widgets.Button(description="Reject", button_style="danger")
    approve.on_click(clicked("respond", lambda: {"confirmed": True}))
    reject.on_click(clicked("respond", lambda: {"confirmed": False}))
    buttons += [approve, reject]
    return [title, _text(item.args.get("message") or ""), args, widgets.HBox([approve, reject])], args


def _json_or_text(text: str) -> Any:
  """What a person typed as an answer: JSON when it parses, else the text itself."""
  try:
    return json.loads(text)
  except ValueError:
    return text


class RunView(widgets.VBox):
  """What a `%%agent` cell shows: the live event tree, the state scopes and the confirmation panel.

  It subscribes to its LiveRun and reads only the run's public fields; the run does not know it.
  """

  def __init__(self, run: "LiveRun", **kwargs: Any):
    self.run = run
    self._seq: Optional[int] = run.steps.follow()  # this view's cursor in the step log (see StepLog)
    self.tree = EventTree(source=run.steps.nodes, loop=lambda: run.loop, detail=self._detail, title=run.label,
                          trace_of=lambda: trace(run.steps), on_step_action=self._continue, nodes=run.steps.nodes())
    self.continued: list["LiveRun"] = []
    """Runs continued from a step of this one ("fork here", "edit & continue"), each shown below as its own view."""
    self.state = StateView(on_edit=self._edit_state, loop=lambda: run.loop)
    self.panel = ConfirmationPanel(run)
    self.graph = _graph_for(run, self._select)
    """The run's agent tree or workflow graph with live node status (None for a single agent)."""
    from .artifacts import ArtifactsView

    self.artifacts = ArtifactsView(run, items=list(run.artifacts))
    """The session's artifacts and their versions (hidden while there are none)."""
    parts = [self.tree, self.state, self.panel, self.artifacts]
    super().__init__(children=parts if self.graph is None else [self.graph, *parts], **kwargs)
    self.add_class("adknb-runview")
    self.display_handle = None
    """The display this view was shown with (`display(view, display_id=True)`), refreshed when a step ends."""
    self._handle = None
    self._last_flush = 0.0
    self._state_key: Any = None
    self._unsubscribe = run.subscribe(self._on_change)
    # However the view is closed (its close(), a container's close_widgets, ipywidgets' Widget.close,
    # close_all), its comm goes: then it stops reading the run.
    self.observe(self._on_comm, names="comm")
    self.tree.on_msg(self._on_tree_msg)
    if self.graph is not None:
      self.graph.follow(run.steps.steps, list(run.steps.steps))
    self.flush()  # a view made later (a finished or re-opened run) starts complete, with its buttons
    self.panel.refresh()

  def _on_tree_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
    # The tree says "hello" once a front end drew it: from now on a person can answer with the buttons.
    if isinstance(content, dict) and content.get("type") == "hello":
      call_in_loop(self.run.loop, self.run.shown_in_front_end)

  def _select(self, label: str) -> None:
    """A graph node was clicked: the tree shows that node's steps (and what is inside them)."""
    self.tree.filter = label

  def _on_comm(self, change: Any) -> None:
    if change["new"] is None:
      self._let_go()

  def _let_go(self) -> None:
    """Stops reading the run: no more changes, no cursor in its step log, no flush pending (idempotent)."""
    self._unsubscribe()
    if self._seq is not None:
      self.run.steps.unfollow(self._seq)
      self._seq = None
    if self._handle is not None:
      self._handle.cancel()
      self._handle = None

  def close(self) -> None:
    """Closes the view and every widget in it, e.g. when the chat shows the next turn in its place.
    A view closed another way (inside a container that closes its children, or by ipywidgets'
    `Widget.close`) also stops reading its run."""
    self._let_go()
    for child in self.children:
      if isinstance(child, RunView):  # a run continued from a step of this one: its view goes too
        child.close()
    close_widgets(self)

  def _detail(self, node_id: str, full: bool) -> Optional[dict]:
    step = self.run.steps.steps.get(node_id)
    if step is None:
      return None
    detail = step_details(step, self.run.events, limit=None if full else DETAIL_LIMIT)
    actions = actions_for(self.run, step)
    return detail if actions is None else {**detail, "actions": actions}

  def _continue(self, content: dict) -> None:
    """"fork here" or "edit & continue" on a step: `run.edit(step, ...)` continues in a new run shown below."""
    node_id = str(content.get("id", ""))
    step = self.run.steps.steps.get(node_id)
    try:
      if step is None or actions_for(self.run, step) is None:
        raise ValueError("Only a finished model or tool step of a run that is not running can be continued from; "
                         "nothing was sent.")
      if content.get("type") == "fork":
        replace_with = event_of(self.run, step)
      else:
        value = content.get("value")
        replace_with = replacement(self.run, step, value if isinstance(value, str) else json.dumps(value))
      new = self.run.edit(step, replace_with)
    except (ValueError, TypeError) as exc:  # shown in the details panel; nothing was forked
      self.tree.send({"type": "step_error", "id": node_id, "message": str(exc)})
      return
    self.continued.append(new)
    self.tree.send({"type": "continued", "id": node_id, "session": new.session_id})
    self.children = (*self.children, new.view)

  def _on_change(self, change: "RunChange") -> None:
    self.changed(final=change.final)
    if change.final:
      self.finish()

  # ---- coalesced updates ---------------------------------------------------------------------

  def changed(self, final: bool = False) -> None:
    """Called for every change: schedules one flush (at most MAX_UPDATES_PER_SECOND), or flushes now when final."""
    if final:
      self.flush()
      return
    if self._handle is not None:
      return
    loop = running_loop()
    if loop is None:
      return  # no loop: flushed when the step ends
    delay = max(0.0, self._last_flush + 1.0 / MAX_UPDATES_PER_SECOND - time.monotonic())
    self._handle = loop.call_later(delay, self.flush)

  def flush(self) -> None:
    """Sends the tree operations and state changes gathered since the last flush, as one batch."""
    if self._handle is not None:
      self._handle.cancel()
      self._handle = None
    self._last_flush = time.monotonic()
    run = self.run
    ops: list = []
    if self._seq is not None:
      ops, self._seq = run.steps.take_ops(self._seq)
    scopes = None
    state_key = (len(run.events), run.status, tuple(run.changed_keys))
    if state_key != self._state_key:
      self._state_key = state_key
      scopes = jsonable({**_split(run.state), "temp": run.temp_state})
    with self.tree.hold_sync(), self.state.hold_sync():
      if ops:
        self.tree.send_ops(ops)
        if self.graph is not None:
          self.graph.follow(run.steps.steps, [op[1]["id"] if op[0] == "add" else op[1] for op in ops])
      if self.tree.status != run.status:
        self.tree.status = run.status
      if ops and self.tree.timeline:  # only while the timeline tab is open
        self.tree.send_trace(throttled=True)
      if scopes is not None and scopes != self.state.scopes:
        self.state.scopes = scopes
        self.state.changed = list(run.changed_keys)
      editable = run.status != "running"
      if self.state.editable != editable:
        self.state.editable = editable

  def finish(self) -> None:
    """Ends a run step: last flush, full snapshot in the widget state, panel refreshed, display refreshed."""
    self.flush()
    self.tree.snapshot()
    self.tree.send_trace()
    self.panel.refresh()
    if self.artifacts.items != self.run.artifacts:
      self.artifacts.items = list(self.run.artifacts)
    if self.display_handle is not None:
      # The saved notebook keeps the last bundle sent: refresh it so its static HTML is final.
      try:
        self.display_handle.update(self)
      except Exception as exc:  # noqa: BLE001 - a display refresh must never break a run
        logger.debug("adk_nb: could not refresh the run's display: %s", exc)

  # ---- state edits ---------------------------------------------------------------------------

  def _edit_state(self, key: str, value: Any) -> None:
    job = self.run.edit_state({key: value})  # ValueError (running, temp:) is shown by the StateView
    if isinstance(job, asyncio.Task):
      job.add_done_callback(lambda done: self._edited(key, done))
    else:
      self.flush()

  def _edited(self, key: str, done: "asyncio.Task[Any]") -> None:
    exc = None if done.cancelled() else done.exception()
    self.state.error = f"Could not save {key}: {exc}" if exc is not None else ""
    self.flush()

  def _repr_mimebundle_(self, **kwargs: Any):
    run = self.run
    html = run_view_html(run.steps.nodes(), {**_split(run.state), "temp": run.temp_state}, run.pending, run.status,
                         run.label)
    if self.graph is not None:
      from .graph import graph_html

      html = graph_html(self.graph.graph, self.graph.status, self.graph.title) + html
    from .artifacts import artifacts_html

    html += artifacts_html(self.artifacts.items)
    return _with_html(super()._repr_mimebundle_(**kwargs), html)


def _graph_for(run: "LiveRun", on_select: Callable[[str], None]):
  """A GraphView of the run's agent when the picture says more than the tree (a workflow, several agents)."""
  from ..inspect.graph import graph_of
  from .graph import GraphView, worth_drawing

  agent = getattr(run.runner, "agent", None)
  if agent is None:
    return None
  structure = graph_of(agent)
  if not worth_drawing(structure):
    return None
  return GraphView(structure.layout(), title=agent.name, on_select=on_select, loop=lambda: run.loop)


def _split(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
  from .live_run import split_scopes

  scopes = split_scopes(state)
  scopes.pop("temp", None)
  return scopes
