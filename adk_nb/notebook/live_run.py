"""LiveRun: a handle on one agent run in a notebook, live while it runs, answerable when it pauses.

A LiveRun is an observable model: views (the RunView, the chat, the inspector)
`subscribe` to it and read its public fields, and each reads the step log from its own
cursor (`run.steps.follow()`); it never knows which views exist. Every answer to a paused
call, from code, a button or the approval policy, goes through one path (`decide`).

This module is the handle: status, subscription, await, the public answer methods and how
a run shows. Its jobs live beside it:
- `_answers.py`: the pure part of answering (`select`, `check`, `answer` -> parts and `Decision`s);
- `_run_driver.py`: driving a step through the Runner and settling it from the store;
- `_run_store.py`: artifact listings, state edits, the event an edit replaces.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Literal, Optional, Union, get_args

from google.genai import types

from ..agents.run_config import RunConfig
from ..errors import SessionBusyError
from ..errors.adk_nb_error import AdkNbError
from ..events.event import Event
from ..inspect import StepBuilder
from ..inspect.text import short_args, to_json_text
from ..pending import PendingItem, answer_message
from ..runners import Runner
from ..tools.base_tool import BaseTool
from . import _answers as answers
from . import _run_driver as driver
from . import _run_store as stores
from ._answers import Action, Decision, Which
from ._loop import logger, run_sync, running_loop, spawn
from ._run_driver import CANCELLED
from ._run_store import event_of

Status = Literal["running", "paused", "done", "error"]
STATUSES: tuple[str, ...] = get_args(Status)
"""A run's statuses, in the order a run can reach them."""


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
    self.decisions: list[Decision] = []
    """Every answer given, a frozen `Decision` each: call, tool, decision, who decided (code, button,
    policy:auto, policy:deny), reason, when (`d["by"]` still reads as it did when these were dicts)."""
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
    self._shown_in = None  # the cell (execution count) whose output already shows this run (set by %%agent)
    # The session's events read so far (their count, the id of the last one): settling a step reads
    # only the events committed after them, so a turn in a long session does not cost O(history).
    self._read_upto: tuple[int, str] = (0, "")
    self._continuing: Optional[str] = None  # the invocation an edited fork continues (see `edit`)
    self._on_screen = False  # a widget front end drew this run's view: a person can click its buttons
    self._wakeup: Optional[asyncio.Future] = None  # what a wait for an answer awaits (see waiting.py)
    self._stop_requested = False  # `stop_waiting()` was called: a wait for an answer ends (see waiting.py)

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
    run._loop = running_loop()
    await driver.load(run, session)
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
      self._task = spawn(loop, driver.drive(self, message, state_delta, prelude), f"Run of {self.label}")
      self._task.add_done_callback(self._task_done)
    else:
      from ._loop import private_loop

      self._loop = private_loop()
      run_sync(driver.drive(self, message, state_delta, prelude))
    return self

  def _task_done(self, task: "asyncio.Task[Any]") -> None:
    # A task cancelled before it ever ran never enters driver.drive: give the run its final status here.
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

  def _step_over(self) -> None:
    """Called on the loop once a step (the run, or a resume) has its final status."""
    self.steps.finish(time.time(), self.status)
    self._publish("ended")

  # ---- artifacts (listed into `artifacts` when a step ends) ------------------------------------

  async def load_artifact(self, name: str, version: Optional[int] = None) -> Optional[types.Part]:
    """One version of an artifact of this run's session (the newest when `version` is None)."""
    return await stores.load_artifact(self, name, version)

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
      by: who decided, recorded in `decisions` and the tree ('code', 'button', ...). An
        approval policy's answers take the same path, recorded as 'policy:auto' or 'policy:deny'.

    Raises ValueError (nothing is sent, the run stays paused) when the item is not pending,
    the action does not fit it, or edited arguments do not fit the tool; SessionBusyError
    while the run is still running.
    """
    items = list(item) if isinstance(item, (list, tuple)) else [item]
    self._refuse_if_running("answering")
    message = self._answer(items, action, value, by)
    self._start(message, None, invocation_id=items[0].invocation_id)
    self._wake()  # a cell waiting for this answer goes on awaiting the resumed run
    return self

  def _answer(self, items: list[PendingItem], action: str, value: Any, by: str) -> types.Content:
    """What every answer does before the run resumes (`decide`, and the approval policy inside its step):
    checks it (nothing is sent when it does not fit), records a Decision per call, and returns the message."""
    answers.check(self.pending, items, action)
    if action == "edit":
      self.validate_arguments(items[0], value)
    parts, decisions = answers.answer(items, action, value, by=by, when=time.time())
    for decision in decisions:
      self._record(decision)
    answered = {i.call_id for i in items}
    self.pending = [p for p in self.pending if p.call_id not in answered]
    self._publish("decision")
    return answer_message(parts)

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
    answers.check_edit(self._tools.get(item.call_id), item, arguments)

  async def _resolve_tools(self) -> None:
    """Finds the tool of each pending confirmation (on the loop: toolsets list their tools asynchronously)."""
    self._tools = await answers.find_tools(self.runner.agent, self.pending, logger)

  def _select(self, which: Which, kind: str, many: bool) -> list[PendingItem]:
    self._refuse_if_running("answering")
    return answers.select(self.pending, which, kind, many, self.status)

  def _refuse_if_running(self, doing: str) -> None:
    """Raises SessionBusyError while a step of the run is in progress: answers and state edits wait for it."""
    if self.status == "running" or self.running:
      nothing = "sent" if doing == "answering" else "changed"
      raise SessionBusyError(f"The run of {self.label} is still running; wait for it to pause (`await run`) "
                             f"before {doing}. Nothing was {nothing}.")

  def _record(self, decision: Decision) -> None:
    self.decisions.append(decision)
    text = to_json_text(decision.answer, indent=2) if decision.answer is not None else decision.reason
    self.steps.add_decision(decision.call_id, decision.invocation_id, decision.title, text, decision.timestamp,
                            decision.status, f"{decision.decision} by {decision.by}")
    if decision.by.startswith("policy"):
      logger.warning("adk_nb: %s (approval policy %r, from --approve or $ADK_NB_APPROVE)", decision.title,
                     self.policy)
    else:
      logger.info("adk_nb: %s", decision.title)

  # ---- state between turns -------------------------------------------------------------------

  def edit_state(self, delta: dict[str, Any]):
    """Changes session state between turns, recorded as a user event with a state delta.

    Nothing changes behind the session's back: the edit is an event in the session, like
    ADK's state changes. Raises SessionBusyError while the run is running, ValueError for
    `temp:` keys. In a kernel the store write runs as a task on the loop (returned); outside
    one it completes before returning.
    """
    self._refuse_if_running("editing state")
    temp = [k for k in delta if k.startswith("temp:")]
    if temp:
      raise ValueError(f"{temp[0]}: temp: keys live for one invocation and are never stored; nothing was changed.")
    loop = running_loop()
    if loop is None:
      return run_sync(self._record_state(dict(delta)))
    return spawn(loop, self._record_state(dict(delta)), f"State edit of {', '.join(delta)}")

  async def _record_state(self, delta: dict[str, Any]) -> None:
    event = await stores.record_state(self, delta)
    driver.on_event(self, event)
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
    event = event_of(self.events, step)
    fork_id = new_session_id or f"{self.session_id}-edit-{event.id[:8]}-{int(time.time() * 1000) % 100000}"
    run = LiveRun(self.runner, user_id=self.user_id, session_id=fork_id, approve=self.policy,
                  run_config=self.run_config, view=self._want_view, label=f"{self.label} (edited)")

    async def make_fork() -> None:
      await self.runner.fork_async(user_id=self.user_id, session_id=self.session_id, at_event_id=event.id,
                                   replace_with=replace_with, new_session_id=fork_id)

    run._continuing = event.invocation_id
    return run._start(None, None, make_fork, invocation_id=event.invocation_id)


def _shell():
  try:
    from IPython import get_ipython
  except ImportError:
    return None
  return get_ipython()
