"""LiveRun: a handle on one agent run in a notebook, live while it runs, answerable when it pauses.

A LiveRun is an observable model: views (the RunView, the chat, the inspector)
`subscribe` to it and read its public fields; it never knows which views exist. Every
answer to a paused call, from code or from a button, goes through `decide`.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Literal, Optional, Union

from google.genai import types

from ..agents.run_config import RunConfig
from ..events.event import Event
from ..events.incremental import continues
from ..events.event_actions import EventActions
from ..events.protocol import REQUEST_INPUT, node_confirmation, reply_text
from ..inspect import StepBuilder
from ..inspect.text import jsonable, short_args, to_json_text
from ..pending import PendingItem, answer_message, confirmation_response, pending_of, tool_response
from ..runners import Runner
from ..telemetry import progress
from ..tools.base_tool import BaseTool
from ..tools.catalog import find_tool
from ..gc_policy import heap_frozen
from ._loop import logger, run_sync, running_loop, spawn
from ..errors.adk_nb_error import AdkNbError

Status = Literal["running", "paused", "done", "error"]
STATUSES = ("running", "paused", "done", "error")
CANCELLED = "Cancelled (run.cancel() or a kernel interrupt)."
_MAX_POLICY_ROUNDS = 100

Which = Union[None, str, int, PendingItem]
Action = Literal["approve", "reject", "edit", "respond"]
_DECISIONS = {"approve": "approved", "reject": "rejected", "edit": "approved with edits", "respond": "responded"}


class RunError(AdkNbError, RuntimeError):
  """A run ended in an error event (e.g. a model's error response) rather than an exception."""


def split_scopes(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
  """Merged state split into the app / user / session / temp scopes (prefixes kept)."""
  scopes: dict[str, dict[str, Any]] = {"app": {}, "user": {}, "session": {}, "temp": {}}
  for key, value in state.items():
    if key.startswith("app:"):
      scopes["app"][key] = value
    elif key.startswith("user:"):
      scopes["user"][key] = value
    elif key.startswith("temp:"):
      scopes["temp"][key] = value
    else:
      scopes["session"][key] = value
  return scopes


@dataclass(frozen=True)
class RunChange:
  """What a subscriber of a LiveRun is told: something changed in `run`."""

  run: "LiveRun"
  what: Literal["started", "event", "progress", "state", "decision", "ended"]
  """'started' (a run or resume step began), 'event', 'progress' (an agent or model call began or
  ended), 'state' (an edit between turns), 'decision' (an answer was given), 'ended' (the step has
  its final status: done, paused or error)."""
  event: Optional[Event] = None
  """The event, for 'event' and 'state'."""

  @property
  def final(self) -> bool:
    """True when the step (run or resume) has ended: a view shows its final form now."""
    return self.what == "ended"


class LiveRun:
  """One run of an agent in a session: its events, steps, state and status, updated as it happens.

  A run ends `done`, `error`, or `paused` when a tool waits for a person or an external
  result; `pending` then lists what it waits for, and `decide(...)` (or `approve()`,
  `reject()`, `edit_and_approve()`, `respond()`) resumes the same invocation (on the
  kernel's loop, in the same view). `await run` waits for the current step; `await
  run.wait()` waits through pauses for a person's answer (what a `%%agent` cell does).
  """

  def __init__(self, runner: Runner, *, user_id: str, session_id: str, approve: str = "ask",
               run_config: Optional[RunConfig] = None, view: bool = True, label: str = ""):
    self.runner = runner
    """The Runner that drives the agent."""
    self.user_id = user_id
    """The user the session belongs to."""
    self.session_id = session_id
    """The session the run is in."""
    self.policy = approve
    """Who answers confirmations when nobody clicks: 'ask', 'auto' or 'deny'."""
    self.run_config = run_config
    self.label = label or runner.app_name
    """The run's title in views: the agent's name."""
    self.events: list[Event] = []
    """The committed events of this run (partial streaming chunks are not kept)."""
    self.steps = StepBuilder()
    """The run as typed steps (see `adk_nb.inspect`): what every view draws."""
    self.final_text: str = ""
    """The text of the agents' last final answer, or of a graph Workflow's output (see `reply_text`)."""
    self.state: dict[str, Any] = {}
    """The session's state after the run (merged: app:, user: and session keys)."""
    self.temp_state: dict[str, Any] = {}
    """`temp:` keys written during the latest invocation (they are never stored)."""
    self.changed_keys: list[str] = []
    """State keys changed by the latest event that changed state."""
    self.status: Status = "running"
    """'running', 'paused' (waiting for answers), 'done' or 'error'."""
    self.pending: list[PendingItem] = []
    """What the paused run waits for: confirmations and long-running calls."""
    self.error: Optional[str] = None
    """What went wrong, when status is 'error'."""
    self.exception: Optional[BaseException] = None
    """The exception that ended the latest step, when one did (status 'error')."""
    self.decisions: list[dict[str, Any]] = []
    """Every answer given: call, tool, decision, who decided (code, button, policy:auto, policy:deny)."""
    self.invocation_ids: list[str] = []
    self.artifacts: list[dict[str, Any]] = []
    """The session's artifacts when the latest step ended: [{'name', 'versions': [{'version', 'mime_type',
    'create_time'}]}], by name (empty without an artifact service)."""
    self._tools: dict[str, Union[BaseTool, str]] = {}  # confirmation call id -> its tool, or why it was not found
    self._subscribers: list[Callable[[RunChange], None]] = []
    self._view = None
    self._want_view = view
    self._task: Optional[asyncio.Task] = None
    self._loop: Optional[asyncio.AbstractEventLoop] = None
    self._shown_in = None
    self._read_upto: tuple[int, str] = (0, "")
    self._continuing: Optional[str] = None  # the invocation an edited fork continues (see `edit`)
    self._on_screen = False  # a widget front end drew this run's view: a person can click its buttons
    self._wakeup: Optional[asyncio.Future] = None  # what a wait for an answer awaits (see waiting.py)
    self._stop_requested = False
    # The session's events read so far (their count, the id of the last one): settling a step reads
    # only the events committed after them, so a turn in a long session does not cost O(history).

  @classmethod
  async def attach(cls, runner: Runner, *, session_id: str, user_id: str = "user", approve: str = "ask",
                   run_config: Optional[RunConfig] = None, view: bool = True, label: str = "") -> "LiveRun":
    """Re-opens a session's paused run, e.g. after a kernel restart (SQLite keeps the pause).

    The run's tree is rebuilt from the stored events of its paused invocation (or the latest
    one), `pending` lists what it waits for, and its view has the Approve / Reject buttons:
    answering resumes the same invocation. Raises ValueError naming the fix when the session
    is not in the runner's store.
    """
    session = await runner.session_service.get_session(app_name=runner.app_name, user_id=user_id,
                                                       session_id=session_id)
    if session is None:
      raise ValueError(f"Session {session_id!r} of user {user_id!r} is not in {runner.app_name}'s store; "
                       "`%agent sessions AGENT` lists its sessions.")
    run = cls(runner, user_id=user_id, session_id=session_id, approve=approve, run_config=run_config,
              view=view, label=label)
    run.state = dict(session.state)
    run.pending = pending_of(session)[0]
    wanted = {p.invocation_id for p in run.pending}
    if not wanted and session.events:
      wanted = {session.events[-1].invocation_id}
    run.events = [e for e in session.events if e.invocation_id in wanted]
    for event in run.events:
      if event.invocation_id and event.invocation_id not in run.invocation_ids:
        run.invocation_ids.append(event.invocation_id)
      run.steps.add_event(event)
      run.final_text = reply_text(event) or run.final_text
    run.status = "paused" if run.pending else "done"
    run._read(session.events)
    await run._list_artifacts()
    run.steps.finish(time.time(), run.status)
    run._loop = running_loop()
    await run._resolve_tools()
    return run

  # ---- what users read -----------------------------------------------------------------------

  @property
  def invocation_id(self) -> Optional[str]:
    """The id of the latest invocation (a resume continues the same one)."""
    return self.invocation_ids[-1] if self.invocation_ids else None

  @property
  def loop(self) -> Optional[asyncio.AbstractEventLoop]:
    """The event loop the run lives on (views hand clicks over to it)."""
    return self._loop

  @property
  def running(self) -> bool:
    """True while a run or resume step is in progress (its task has not finished)."""
    return self._task is not None and not self._task.done()

  @property
  def view(self):
    """The RunView showing this run (made on first use, and again after the last one was closed)."""
    if self._view is None or self._view.comm is None:
      from .views import RunView

      self._view = RunView(self)
    return self._view

  def trajectory(self):
    """The run as a pandas DataFrame, one row per step (see `adk_nb.notebook.trajectory`)."""
    from .trajectory import trajectory_frame_of_steps

    return trajectory_frame_of_steps(self.steps)

  def timeline(self):
    """The run as a plotly Gantt chart: agents, model calls, tool calls and human waits, one row per agent."""
    from .timeline import timeline_figure

    return timeline_figure(self.steps, title=f"{self.label}: {self.status}")

  def to_eval_case(self, eval_set=None, *, eval_id: Optional[str] = None, overwrite: bool = False):
    """Turns this run's conversation into an eval case (appended to `eval_set`, a path or EvalSet).

    Its answers and tool calls become the expected ones, so a later change that alters them
    shows up as a failing case in `adk_nb.evaluation`.
    """
    from ..evaluation.from_session import eval_case_from_session

    mine = set(self.invocation_ids)
    events = [e for e in self.events if e.invocation_id in mine and not e.partial]
    return eval_case_from_session(events, eval_id=eval_id or f"case_{self.session_id}", eval_set=eval_set,
                                  overwrite=overwrite)

  def __repr__(self) -> str:
    extra = ""
    if self.status == "paused":
      extra = "; waiting for " + ", ".join(f"{p.tool}({short_args(p.args, 40)})" for p in self.pending)
    elif self.status == "error":
      extra = f"; {self.error}"
    elif self.final_text:
      text = self.final_text if len(self.final_text) < 60 else self.final_text[:59] + "…"
      extra = f"; {text!r}"
    return f"<LiveRun {self.label} {self.status}, {len(self.events)} events{extra}>"

  def _repr_mimebundle_(self, include=None, exclude=None):
    shell = _shell()
    if shell is not None and self._shown_in == shell.execution_count:
      return {"text/plain": ""}  # its view is already on screen in this cell
    if not self._want_view:
      return {"text/plain": repr(self)}
    return self.view._repr_mimebundle_(include=include, exclude=exclude)

  # ---- observing -----------------------------------------------------------------------------

  def subscribe(self, fn: Callable[[RunChange], None]) -> Callable[[], None]:
    """Calls `fn(change)` on the run's loop after every change; returns the function that unsubscribes.

    A subscriber must be quick (it runs for every streamed event) and must not raise; what
    it raises is logged and ignored.
    """
    self._subscribers.append(fn)

    def unsubscribe() -> None:
      if fn in self._subscribers:
        self._subscribers.remove(fn)
    return unsubscribe

  def _publish(self, what: str, event: Optional[Event] = None) -> None:
    if not self._subscribers:
      return
    change = RunChange(self, what, event)  # type: ignore[arg-type]
    for fn in list(self._subscribers):
      try:
        fn(change)
      except Exception as exc:  # noqa: BLE001 - a view must never break the run
        logger.warning("adk_nb: a view of %s failed on %r: %s", self.label, what, exc, exc_info=exc)

  # ---- running -------------------------------------------------------------------------------

  def start(self, message: types.Content, state: Optional[dict[str, Any]] = None, *,
            prepare: Optional[Callable[[], Awaitable[Any]]] = None) -> "LiveRun":
    """Sends `message` (with an optional state delta) and runs: a task on the kernel's loop, or to the end
    outside one. `prepare` is awaited first (e.g. to create the session); its failure is the run's error."""
    return self._start(message, state, prepare)

  def _start(self, message: Optional[types.Content], state_delta: Optional[dict[str, Any]],
             prelude: Optional[Callable[[], Awaitable[Any]]] = None,
             invocation_id: Optional[str] = None) -> "LiveRun":
    """Starts the run: a task on the running loop, or to completion on the private loop."""
    self.status = "running"
    self.steps.begin(message, state_delta, time.time(), invocation_id)
    self._publish("started")
    loop = running_loop()
    if loop is not None:
      self._loop = loop
      self._task = spawn(loop, self._drive(message, state_delta, prelude), f"Run of {self.label}")
      self._task.add_done_callback(self._task_done)
    else:
      from ._loop import private_loop

      self._loop = private_loop()
      run_sync(self._drive(message, state_delta, prelude))
    return self

  def _task_done(self, task: "asyncio.Task[Any]") -> None:
    # A task cancelled before it ever ran never enters _drive: give the run its final status here.
    if task is self._task and self.status == "running":
      self.status, self.error = "error", CANCELLED
      self._step_over()

  def __await__(self):
    return self._wait().__await__()

  async def _wait(self) -> "LiveRun":
    while self._task is not None and not self._task.done():
      task = self._task
      try:
        await task
      except asyncio.CancelledError:
        me = asyncio.current_task()
        if not task.cancelled() or (me is not None and getattr(me, "cancelling", lambda: 0)()):
          raise  # the awaiting cell was interrupted (and the run with it)
    if self._task is not None and not self._task.cancelled() and self._task.exception() is not None:
      raise self._task.exception()
    return self

  async def settled(self) -> "LiveRun":
    """Waits until the current step has ended, paused or failed, without raising its error."""
    while self._task is not None and not self._task.done():
      await asyncio.wait([self._task])
    return self

  def raise_for_error(self) -> "LiveRun":
    """Raises what ended the run when its status is 'error' (the original exception when there is one).

    A `%%agent` cell calls it once the view shows the error, so the cell fails as a failing
    `await runner.run_async(...)` would and Run All stops there; a paused run does not raise.
    """
    if self.status != "error":
      return self
    if self.exception is not None:
      raise self.exception
    raise RunError(f"The run of {self.label} ended in error: {self.error}")

  def wait(self, timeout: Optional[float] = None):
    """In a kernel, `await run.wait()` waits for the run's end through every pause, for a person to answer.

    Each pause is awaited until someone answers it (the view's buttons stay live while the
    cell awaits; code on the loop through `decide`), then the resumed step, until the run is
    done or in error. Raises `waiting.NoAnswer` (the run stays paused, nothing is answered)
    after `timeout` seconds (default `waiting.ANSWER_TIMEOUT`, 15 minutes), when no widget front
    end drew the run's view (nbclient, nbmake), or when `stop_waiting()` (a kernel interrupt) ends it.

    Outside a kernel nobody can click: it blocks until the current step ends, as `await run` does.
    """
    if running_loop() is not None:
      from .waiting import ANSWER_TIMEOUT, until_answered

      return until_answered(self, ANSWER_TIMEOUT if timeout is None else timeout)
    if self._task is not None and not self._task.done():
      run_sync(self._wait())
    return self

  def shown_in_front_end(self) -> None:
    """A view of this run was drawn by a widget front end: a person can answer from its buttons (see `wait`)."""
    self._on_screen = True
    self._wake()

  def stop_waiting(self) -> None:
    """Ends a `wait()` in progress (a kernel interrupt calls it): it raises NoAnswer; the run stays paused."""
    self._stop_requested = True
    self._wake()

  def _wake(self) -> None:
    wake = self._wakeup
    if wake is not None and not wake.done():
      wake.set_result(None)

  def cancel(self) -> "LiveRun":
    """Stops the run; the session keeps every event committed so far."""
    if self._task is not None and not self._task.done():
      self._task.cancel()
    return self

  async def _drive(self, message: Optional[types.Content], state_delta: Optional[dict[str, Any]],
                   prelude: Optional[Callable[[], Awaitable[Any]]] = None) -> None:
    with heap_frozen():
      await self._drive_frozen(message, state_delta, prelude)

  async def _drive_frozen(self, message: Optional[types.Content], state_delta: Optional[dict[str, Any]],
                          prelude: Optional[Callable[[], Awaitable[Any]]]) -> None:
    try:
      if prelude is not None:
        try:
          await prelude()
        except Exception as exc:  # e.g. the session store cannot be opened
          self.status, self.error, self.exception = "error", f"{type(exc).__name__}: {exc}", exc
          return
      for _ in range(_MAX_POLICY_ROUNDS):
        await self._segment(message, state_delta)
        message, state_delta = self._policy_answers(), None
        if message is None:
          break
    except asyncio.CancelledError:
      if self.status == "running":  # cancelled while the store opened (the prelude)
        self.status, self.error = "error", CANCELLED
      raise
    finally:
      self._step_over()

  def _step_over(self) -> None:
    """Called on the loop once a step (the run, or a resume) has its final status."""
    self.steps.finish(time.time(), self.status)
    self._publish("ended")

  async def _segment(self, message: Optional[types.Content], state_delta: Optional[dict[str, Any]]) -> None:
    self.status = "running"
    self.error = self.exception = None
    self.temp_state = {}
    failed = None
    unwatch = progress.watch(self.session_id, self._on_progress)
    try:
      if not self.events:  # note the state and how far the events go before this run (never this run's)
        before = await self.runner.session_service.get_session(
            app_name=self.runner.app_name, user_id=self.user_id, session_id=self.session_id)
        if before is not None:
          self.state = dict(before.state)
          self._read(before.events)
      continuing, self._continuing = self._continuing, None
      async for event in self.runner.run_async(user_id=self.user_id, session_id=self.session_id,
                                               new_message=message, state_delta=state_delta,
                                               run_config=self.run_config, invocation_id=continuing):
        self._on_event(event)
    except asyncio.CancelledError:
      self.status, self.error = "error", CANCELLED
      raise
    except Exception as exc:  # shown in the view first; `raise_for_error()` raises it again
      failed, self.exception = f"{type(exc).__name__}: {exc}", exc
    finally:
      unwatch()
    await self._settle(failed)

  def _on_progress(self, kind: str, info: dict[str, Any]) -> None:
    steps = self.steps
    if kind == "agent_started":
      steps.agent_started(info["invocation_id"], info["agent"], info["branch"], info["time"])
    elif kind == "agent_ended":
      steps.agent_ended(info["invocation_id"], info["agent"], info["time"], info["paused"], info["error"])
    elif kind == "model_started":
      steps.model_started(info["invocation_id"], info["agent"], info["branch"], info["event_id"], info["model"],
                          info["request"], info["time"])
    elif kind == "model_ended":
      steps.model_ended(info["event_id"], info["time"])
    self._publish("progress")

  def _on_event(self, event: Event) -> None:
    self.steps.add_event(event)
    if not event.partial:
      self.events.append(event)
      if event.invocation_id and event.invocation_id not in self.invocation_ids:
        self.invocation_ids.append(event.invocation_id)
      delta = event.actions.state_delta
      if delta:
        for key, value in delta.items():
          if key.startswith("temp:"):
            self.temp_state[key] = value
          else:
            self.state[key] = value
        self.changed_keys = sorted(delta)
      self.final_text = reply_text(event) or self.final_text
    self._publish("event", event)

  async def _settle(self, failed: Optional[str]) -> None:
    session = None
    if failed is None or self.invocation_ids:  # a run that started and then raised committed events too
      session = await self.runner.session_service.get_session(
          app_name=self.runner.app_name, user_id=self.user_id, session_id=self.session_id)
    if session is not None:
      self.state = dict(session.state)
      mine = set(self.invocation_ids)
      known = {e.id for e in self.events}
      events = session.events
      start = self._unread(events)
      tail = events[start:]
      stored_only = [e for e in tail if e.author == "user" and e.invocation_id in mine and e.id not in known]
      if stored_only:  # user messages and answers, committed but not yielded
        self.events = sorted(self.events + stored_only, key=lambda e: e.timestamp)
      # A compaction the Runner appended after this run's invocation (stored, never yielded): its marker.
      last_mine = max((i for i, e in enumerate(tail) if e.invocation_id in mine), default=None)
      if last_mine is not None:
        for event in tail[last_mine + 1:]:
          compaction = event.actions.compaction
          if compaction is not None and event.id not in known:
            replaced = sum(1 for e in events if e.actions.compaction is None
                           and compaction.start_timestamp <= e.timestamp <= compaction.end_timestamp)
            self.steps.add_compaction(event, replaced)
      # The session's pending calls, read incrementally (adk_nb.pending keeps a ledger per session).
      self.pending = [p for p in pending_of(session)[0] if p.invocation_id in mine]
      self._read(events)
      await self._resolve_tools()
    await self._list_artifacts()
    last = self.events[-1] if self.events else None
    if failed is not None:
      self.status, self.error = "error", failed
    elif last is not None and last.error_code:
      self.status, self.error = "error", f"{last.error_code}: {last.error_message}"
    elif self.pending:
      self.status = "paused"
    else:
      self.status = "done"

  def _read(self, events: list[Event]) -> None:
    """Notes that the session's events up to the last one have been read."""
    self._read_upto = (len(events), events[-1].id if events else "")

  def _unread(self, events: list[Event]) -> int:
    """Where the events not read yet begin: 0 when the session changed under us (rewound, recreated)."""
    count, last_id = self._read_upto
    return count if continues(count, last_id, events) else 0

  # ---- artifacts -----------------------------------------------------------------------------

  async def _list_artifacts(self) -> None:
    service = getattr(self.runner, "artifact_service", None)
    if service is None:
      return
    where = {"app_name": self.runner.app_name, "user_id": self.user_id, "session_id": self.session_id}
    try:
      found = []
      for name in await service.list_artifact_keys(**where):
        versions = await service.list_artifact_versions(filename=name, **where)
        found.append({"name": name, "versions": [{"version": v.version, "mime_type": v.mime_type or "",
                                                  "create_time": v.create_time} for v in versions]})
    except Exception as exc:  # noqa: BLE001 - a listing must never fail the run
      logger.warning("adk_nb: could not list the artifacts of session %s: %s", self.session_id, exc)
      return
    self.artifacts = found

  async def load_artifact(self, name: str, version: Optional[int] = None) -> Optional[types.Part]:
    """One version of an artifact of this run's session (the newest when `version` is None)."""
    service = getattr(self.runner, "artifact_service", None)
    if service is None:
      raise ValueError(f"{self.label}'s runner has no artifact service; pass artifact_service= to its Runner.")
    return await service.load_artifact(app_name=self.runner.app_name, user_id=self.user_id,
                                       session_id=self.session_id, filename=name, version=version)

  # ---- answering a pause ---------------------------------------------------------------------

  def answerable(self, item: PendingItem) -> bool:
    """True while the run is paused on `item` (False once a click or code has answered it)."""
    return self.status != "running" and not self.running and any(p.call_id == item.call_id for p in self.pending)

  def decide(self, item: Union[PendingItem, list[PendingItem]], action: Action, value: Any = None, *,
             by: str = "code") -> "LiveRun":
    """Answers a paused call and resumes the run: the one door every answer goes through.

    Args:
      item: the PendingItem (from `run.pending`), or several confirmations answered alike.
      action: 'approve', 'reject' (value: the reason, optional), 'edit' (value: the edited
        arguments, checked against the tool's signature) or 'respond' (value: the result of
        a long-running call).
      by: who decided, recorded in `decisions` and the tree ('code', 'button', ...).

    Raises ValueError (nothing is sent, the run stays paused) when the item is not pending,
    the action does not fit it, or edited arguments do not fit the tool.
    """
    items = list(item) if isinstance(item, (list, tuple)) else [item]
    if action not in _DECISIONS:
      raise ValueError(f"Unknown action {action!r}; use one of: {', '.join(_DECISIONS)}.")
    if self.status == "running" or self.running:
      raise RuntimeError("The run is still running; wait for it to pause (`await run`) before answering.")
    kind = "long_running" if action == "respond" else "confirmation"
    for one in items:
      if not any(p.call_id == one.call_id for p in self.pending):
        raise ValueError(f"{one.tool} ({one.call_id}) is not pending any more; pending: "
                         + (", ".join(f"{p.tool} ({p.call_id})" for p in self.pending) or "nothing") + ".")
      if one.kind != kind:
        raise ValueError(f"{one.tool} is a {one.kind.replace('_', '-')} call: use "
                         + ("respond(...)." if one.kind == "long_running" else "approve() or reject()."))
    reason = ""
    if action == "approve":
      parts = [confirmation_response(i, True, value) for i in items]
    elif action == "reject":
      reason = value or ""
      parts = [confirmation_response(i, False, {"reason": reason} if reason else None) for i in items]
    elif action == "edit":
      if len(items) != 1:
        raise ValueError("Edit one call at a time; pass a single pending item.")
      self.validate_arguments(items[0], value)
      parts = [confirmation_response(items[0], True, {"arguments": dict(value)})]
      reason = json.dumps(value, default=str)
    else:
      if len(items) != 1:
        raise ValueError("Respond to one call at a time; pass a single pending item.")
      parts = [tool_response(items[0], value)]
    for one in items:
      decision = _DECISIONS[action]
      if action == "respond" and isinstance(value, dict) and node_confirmation(one.call_id, one.args):
        decision = "approved" if value.get("confirmed") else "rejected"  # a workflow node's approval
      self._record(one, decision, by, reason, answer=value if action == "respond" else None)
    answered = {i.call_id for i in items}
    self.pending = [p for p in self.pending if p.call_id not in answered]
    self._publish("decision")
    self._start(answer_message(parts), None, invocation_id=items[0].invocation_id)
    self._wake()  # a cell waiting for this answer goes on awaiting the resumed run
    return self

  def approve(self, which: Which = None, *, payload: Any = None) -> "LiveRun":
    """Approves pending confirmations (all of them, or `which`: call id, tool name or index) and resumes."""
    return self.decide(self._select(which, "confirmation", many=True), "approve", payload)

  def reject(self, reason: str = "", which: Which = None) -> "LiveRun":
    """Rejects pending confirmations (all, or `which`) and resumes; the model is told the call was rejected.

    The reason travels in the answer's payload and reaches the model next to ADK's standard
    rejection message.
    """
    return self.decide(self._select(which, "confirmation", many=True), "reject", reason)

  def edit_and_approve(self, arguments: dict[str, Any], which: Which = None) -> "LiveRun":
    """Approves one pending call with edited arguments, validated against the tool's schema first."""
    (item,) = self._select(which, "confirmation", many=False)
    return self.decide(item, "edit", arguments)

  def respond(self, response: Any, which: Which = None) -> "LiveRun":
    """Delivers the result of a pending long-running call and resumes the run."""
    (item,) = self._select(which, "long_running", many=False)
    return self.decide(item, "respond", response)

  def validate_arguments(self, item: PendingItem, arguments: Any) -> None:
    """Raises ValueError naming the problem when `arguments` do not fit the tool's declared parameters.

    Every kind of tool is checked through `BaseTool.validate_args` (its signature for a
    function, its input schema for MCP and OpenAPI tools), against the tool the agent
    offers now, found once when the run paused (`adk_nb.tools.catalog.find_tool`).
    """
    if not isinstance(arguments, dict):
      raise ValueError(f"Edited arguments for {item.tool} must be a dict, e.g. {item.args!r}.")
    tool = self._tools.get(item.call_id)
    if not isinstance(tool, BaseTool):
      raise ValueError(f"Cannot check edited arguments for {item.tool}: {tool or 'its tool was not looked up'}. "
                       "Approve it unchanged or reject it.")
    try:
      tool.validate_args(arguments)
    except ValueError as exc:
      raise ValueError(f"Edited arguments rejected for {item.tool}: {exc}") from None

  async def _resolve_tools(self) -> None:
    """Finds the tool of each pending confirmation (on the loop: toolsets list their tools asynchronously)."""
    self._tools = {}
    for item in self.pending:
      if item.kind != "confirmation":
        continue
      agent = self.runner.agent.find_agent(item.agent)
      try:
        tool = None if agent is None else await find_tool(agent, item.tool)
      except Exception as exc:  # noqa: BLE001 - e.g. an MCP server that does not start: edits are refused
        logger.warning("adk_nb: could not list the tools of %s: %s", item.agent, exc, exc_info=exc)
        self._tools[item.call_id] = f"listing the tools of agent {item.agent!r} failed: {type(exc).__name__}: {exc}"
        continue
      self._tools[item.call_id] = tool if tool is not None else (
          f"agent {item.agent!r} does not offer a tool named {item.tool!r} any more")

  def _select(self, which: Which, kind: str, many: bool) -> list[PendingItem]:
    if self.status == "running":
      raise RuntimeError("The run is still running; wait for it to pause (`await run`) before answering.")
    candidates = [p for p in self.pending if p.kind == kind]
    what = "confirmation" if kind == "confirmation" else "long-running call"
    if not candidates:
      others = [p for p in self.pending if p.kind != kind]
      hint = (f" It waits for {others[0].kind.replace('_', '-')} call {others[0].tool!r}: use "
              + ("respond(...)." if others[0].kind == "long_running" else "approve() or reject().")) if others else ""
      raise ValueError(f"No {what} is pending in this run (status: {self.status}).{hint}")
    if which is None:
      if many or len(candidates) == 1:
        return candidates
      raise ValueError(f"{len(candidates)} {what}s are pending ({', '.join(p.tool for p in candidates)}); "
                       "pass which=<call id, tool name or index>.")
    if isinstance(which, PendingItem):
      found = [p for p in candidates if p.call_id == which.call_id]
    elif isinstance(which, int):
      found = [candidates[which]] if -len(candidates) <= which < len(candidates) else []
    else:
      found = [p for p in candidates if which in (p.call_id, p.original_call_id)] or \
              [p for p in candidates if p.tool == which]
    if not found:
      raise ValueError(f"No pending {what} matches {which!r}; pending: "
                       + ", ".join(f"{p.tool} ({p.call_id})" for p in candidates) + ".")
    if len(found) > 1 and not many:
      raise ValueError(f"{len(found)} pending calls match {which!r}; pass the call id instead.")
    return found

  def _record(self, item: PendingItem, decision: str, by: str, reason: str = "", answer: Any = None) -> None:
    now = time.time()
    entry = {"call_id": item.call_id, "tool": item.tool, "args": jsonable(item.args), "decision": decision,
             "by": by, "reason": reason, "invocation_id": item.invocation_id, "timestamp": now}
    self.decisions.append(entry)
    if item.tool == REQUEST_INPUT:  # a workflow's question: the tree shows the question and the answer given
      title = f"{decision} by {by}: {item.args.get('message') or 'input'}"
    else:
      title = f"{decision} by {by}: {item.tool}({short_args(item.args, 60)})"
    text = to_json_text(answer, indent=2) if answer is not None else reason
    self.steps.add_decision(item.call_id, item.invocation_id, title, text, now, decision, by)
    if by.startswith("policy"):
      logger.warning("adk_nb: %s (approval policy %r, from --approve or $ADK_NB_APPROVE)", title, self.policy)
    else:
      logger.info("adk_nb: %s", title)

  def _policy_answers(self) -> Optional[types.Content]:
    if self.status != "paused" or self.policy == "ask":
      return None
    items = [p for p in self.pending if p.kind == "confirmation"]
    if not items:
      return None
    approve = self.policy == "auto"
    decision = "approved" if approve else "rejected"
    reason = "" if approve else "rejected by approval policy 'deny'"
    for item in items:
      self._record(item, decision, f"policy:{self.policy}", reason)
    message = answer_message([confirmation_response(i, approve, {"reason": reason} if reason else None)
                              for i in items])
    self.steps.begin(message, None, time.time(), items[0].invocation_id)
    return message

  # ---- state between turns -------------------------------------------------------------------

  def edit_state(self, delta: dict[str, Any]):
    """Changes session state between turns, recorded as a user event with a state delta.

    Nothing changes behind the session's back: the edit is an event in the session, like
    ADK's state changes. Raises ValueError while the run is running or for `temp:` keys.
    In a kernel the store write runs as a task on the loop (returned); outside one it
    completes before returning.
    """
    if self.status == "running" or self.running:
      raise ValueError("The run is running; edit state between turns.")
    temp = [k for k in delta if k.startswith("temp:")]
    if temp:
      raise ValueError(f"{temp[0]}: temp: keys live for one invocation and are never stored; nothing was changed.")
    loop = running_loop()
    if loop is None:
      return run_sync(self._record_state(dict(delta)))
    return spawn(loop, self._record_state(dict(delta)), f"State edit of {', '.join(delta)}")

  async def _record_state(self, delta: dict[str, Any]) -> None:
    service = self.runner.session_service
    session = await service.get_session(app_name=self.runner.app_name, user_id=self.user_id,
                                        session_id=self.session_id)
    if session is None:
      raise ValueError(f"Session {self.session_id!r} no longer exists.")
    event = Event(invocation_id=self.invocation_id or "", author="user", actions=EventActions(state_delta=delta))
    await service.append_event(session, event)
    self._on_event(event)
    self._publish("state", event)


  # ---- time travel (adk_nb.sessions.fork) ------------------------------------------------------

  async def fork(self, *, before_invocation_id: Optional[str] = None, new_session_id: Optional[str] = None):
    """A new session as this run's session stood before `before_invocation_id` (default: before this
    run's first invocation); the session is not touched. `adk_nb.sessions.lineage(fork)` says where
    it came from."""
    before = before_invocation_id or (self.invocation_ids[0] if self.invocation_ids else None)
    return await self.runner.fork_async(user_id=self.user_id, session_id=self.session_id,
                                        before_invocation_id=before, new_session_id=new_session_id)

  def edit(self, step: Any, replace_with: Union[Event, types.Content], *,
           new_session_id: Optional[str] = None) -> "LiveRun":
    """Edit and continue: a fork of this run's session with `step` replaced by `replace_with` (an Event,
    or a Content with the edited parts), continued live from the edit in a new LiveRun (shown below
    when it is a cell's value). `step` is a step of `run.steps` (for a tool call: its result is
    replaced), an Event of `run.events`, or an event id. Nothing before the edit runs again."""
    event = self._event_of(step)
    fork_id = new_session_id or f"{self.session_id}-edit-{event.id[:8]}-{int(time.time() * 1000) % 100000}"
    run = LiveRun(self.runner, user_id=self.user_id, session_id=fork_id, approve=self.policy,
                  run_config=self.run_config, view=self._want_view, label=f"{self.label} (edited)")

    async def make_fork() -> None:
      await self.runner.fork_async(user_id=self.user_id, session_id=self.session_id, at_event_id=event.id,
                                   replace_with=replace_with, new_session_id=fork_id)

    run._continuing = event.invocation_id
    return run._start(None, None, make_fork, invocation_id=event.invocation_id)

  def _event_of(self, step: Any) -> Event:
    """The event `step` (a Step, an Event or an event id) stands for; a tool call's is its result's."""
    if isinstance(step, Event):
      step = step.id
    if isinstance(step, str):
      for event in self.events:
        if event.id == step:
          return event
      raise ValueError(f"Event {step!r} is not one of this run's events (`run.events`).")
    kind, event_id, tool = getattr(step, "kind", None), getattr(step, "event_id", ""), getattr(step, "tool", "")
    index = next((i for i, e in enumerate(self.events) if e.id == event_id), None)
    if index is None:
      raise ValueError(f"Step {getattr(step, 'title', step)!r} has no event of this run; pass a step of "
                       "`run.steps.steps.values()`, an event of `run.events`, or an event id.")
    if kind == "tool_call":
      calls = {c.id for c in self.events[index].get_function_calls() if c.name == tool}
      for event in self.events[index + 1:]:
        if any(r.id in calls for r in event.get_function_responses()):
          return event
      raise ValueError(f"The call of {tool!r} has no result yet to edit; edit the model's call instead (its model_call step).")
    return self.events[index]


def _shell():
  try:
    from IPython import get_ipython
  except ImportError:
    return None
  return get_ipython()
