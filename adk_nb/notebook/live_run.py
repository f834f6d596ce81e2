"""LiveRun: a handle on one agent run in a notebook, live while it runs, answerable when it pauses."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Awaitable, Callable, Optional, Union

from google.genai import types

from ..agents.run_config import RunConfig
from ..events.event import Event
from ..pending import PendingItem, answer_message, confirmation_response, pending_items, tool_response
from ..runners import Runner
from ._loop import call_in_loop, logger, run_sync, running_loop, spawn
from ._tree import TreeBuilder, jsonable, short_args

STATUSES = ("running", "paused", "done", "error")
CANCELLED = "Cancelled (run.cancel() or a kernel interrupt)."
_MAX_POLICY_ROUNDS = 100

Which = Union[None, str, int, PendingItem]


class RunError(RuntimeError):
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


class LiveRun:
  """One run of an agent in a session: its events, state and status, updated as it happens.

  A run ends `done`, `error`, or `paused` when a tool waits for a person or an external
  result; `pending` then lists what it waits for, and `approve()`, `reject()`,
  `edit_and_approve()` or `respond()` resume the same invocation (on the kernel's loop, in
  the same view). `await run` waits for the current step; the run never waits inside a
  cell for a click.
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
    self.events: list[Event] = []
    """The committed events of this run (partial streaming chunks are not kept)."""
    self.final_text: str = ""
    """The text of the agents' last final answer."""
    self.state: dict[str, Any] = {}
    """The session's state after the run (merged: app:, user: and session keys)."""
    self.temp_state: dict[str, Any] = {}
    """`temp:` keys written during the latest invocation (they are never stored)."""
    self.changed_keys: list[str] = []
    """State keys changed by the latest event that changed state."""
    self.status: str = "running"
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
    self.tree = TreeBuilder()
    self._view = None
    self._want_view = view
    self._task: Optional[asyncio.Task] = None
    self._loop: Optional[asyncio.AbstractEventLoop] = None
    self._display = None
    self._shown_in = None

  # ---- what users read -----------------------------------------------------------------------

  @property
  def invocation_id(self) -> Optional[str]:
    """The id of the latest invocation (a resume continues the same one)."""
    return self.invocation_ids[-1] if self.invocation_ids else None

  @property
  def view(self):
    """The RunView showing this run (made on first use)."""
    if self._view is None:
      from .views import RunView

      self._view = RunView(self)
    return self._view

  def trajectory(self):
    """The run as a pandas DataFrame, one row per step (see `adk_nb.notebook.trajectory`)."""
    from .trajectory import trajectory_frame

    return trajectory_frame(self.events, self.decisions)

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
      return {"text/plain": repr(self)}  # its view is already on screen in this cell
    if not self._want_view:
      return {"text/plain": repr(self)}
    return self.view._repr_mimebundle_(include=include, exclude=exclude)

  # ---- running -------------------------------------------------------------------------------

  def _start(self, message: Optional[types.Content], state_delta: Optional[dict[str, Any]],
             prelude: Optional[Callable[[], Awaitable[Any]]] = None) -> "LiveRun":
    """Starts the run: a task on the running loop, or to completion on the private loop."""
    self.status = "running"
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

  def wait(self) -> "LiveRun":
    """Blocks until the current step ends (outside a kernel only; in a cell use `await run`)."""
    if running_loop() is not None:
      raise RuntimeError("wait() would block the kernel; use `await run` in the cell instead.")
    if self._task is not None and not self._task.done():
      run_sync(self._wait())
    return self

  def cancel(self) -> "LiveRun":
    """Stops the run; the session keeps every event committed so far."""
    if self._task is not None and not self._task.done():
      self._task.cancel()
    return self

  async def _drive(self, message: Optional[types.Content], state_delta: Optional[dict[str, Any]],
                   prelude: Optional[Callable[[], Awaitable[Any]]] = None) -> None:
    try:
      if prelude is not None:
        try:
          await prelude()
        except Exception as exc:  # e.g. the session store cannot be opened
          self.status, self.error, self.exception = "error", f"{type(exc).__name__}: {exc}", exc
          self._notify(final=True)
          return
      for _ in range(_MAX_POLICY_ROUNDS):
        await self._segment(message, state_delta)
        message, state_delta = self._policy_answers(), None
        if message is None:
          break
    except asyncio.CancelledError:
      if self.status == "running":  # cancelled while the store opened (the prelude)
        self.status, self.error = "error", CANCELLED
        self._notify(final=True)
      raise
    finally:
      self._step_over()

  def _step_over(self) -> None:
    """Called on the loop once a step (the run, or a resume) has its final status: the view shows it."""
    if self._view is not None:
      self._view.finish()
    self._refresh_display()

  async def _segment(self, message: Optional[types.Content], state_delta: Optional[dict[str, Any]]) -> None:
    self.status = "running"
    self.error = self.exception = None
    self.temp_state = {}
    self._seed = (message, state_delta, time.time())
    self._notify()
    failed = None
    try:
      if not self.events:
        session = await self.runner.session_service.get_session(
            app_name=self.runner.app_name, user_id=self.user_id, session_id=self.session_id)
        if session is not None:
          self.state = dict(session.state)
      async for event in self.runner.run_async(user_id=self.user_id, session_id=self.session_id,
                                               new_message=message, state_delta=state_delta,
                                               run_config=self.run_config):
        self._on_event(event)
    except asyncio.CancelledError:
      self.status, self.error = "error", CANCELLED
      self._notify()
      raise
    except Exception as exc:  # shown in the view first; `raise_for_error()` raises it again
      failed, self.exception = f"{type(exc).__name__}: {exc}", exc
    await self._settle(failed)

  def _on_event(self, event: Event) -> None:
    seed, self._seed = getattr(self, "_seed", None), None
    if seed is not None and event.author != "user" and (seed[0] is not None or seed[1]):
      # The Runner commits the user's message (or answers) without yielding it: show it from what was sent.
      self.tree.add_user_message(event.invocation_id, seed[0], seed[1], seed[2])
    self.tree.add_event(event)
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
      if event.author != "user" and event.text and event.is_final_response():
        self.final_text = event.text
    self._notify()

  async def _settle(self, failed: Optional[str]) -> None:
    session = None
    if failed is None:
      session = await self.runner.session_service.get_session(
          app_name=self.runner.app_name, user_id=self.user_id, session_id=self.session_id)
    if session is not None:
      self.state = dict(session.state)
      mine = set(self.invocation_ids)
      known = {e.id for e in self.events}
      stored_only = [e for e in session.events
                     if e.author == "user" and e.invocation_id in mine and e.id not in known]
      if stored_only:  # user messages and answers, committed but not yielded
        self.events = sorted(self.events + stored_only, key=lambda e: e.timestamp)
      self.pending = [p for p in pending_items(session.events) if p.invocation_id in mine]
    last = self.events[-1] if self.events else None
    if failed is not None:
      self.status, self.error = "error", failed
    elif last is not None and last.error_code:
      self.status, self.error = "error", f"{last.error_code}: {last.error_message}"
    elif self.pending:
      self.status = "paused"
    else:
      self.status = "done"
    self._notify(final=True)

  def _notify(self, final: bool = False) -> None:
    if self._view is not None:
      self._view.changed(final=final)

  def _refresh_display(self) -> None:
    # The saved notebook keeps the last bundle sent: refresh it so its static HTML is final.
    if self._display is not None and self._view is not None:
      try:
        self._display.update(self._view)
      except Exception as exc:  # noqa: BLE001 - a display refresh must never break a run
        logger.debug("adk_nb: could not refresh the run's display: %s", exc)

  # ---- answering a pause ---------------------------------------------------------------------

  def approve(self, which: Which = None, *, payload: Any = None) -> "LiveRun":
    """Approves pending confirmations (all of them, or `which`: call id, tool name or index) and resumes."""
    items = self._select(which, "confirmation", many=True)
    return self._answer(items, [confirmation_response(i, True, payload) for i in items], "approved", "code")

  def reject(self, reason: str = "", which: Which = None) -> "LiveRun":
    """Rejects pending confirmations (all, or `which`) and resumes; the model is told the call was rejected.

    The reason travels in the answer's payload and reaches the model next to ADK's standard
    rejection message.
    """
    items = self._select(which, "confirmation", many=True)
    payload = {"reason": reason} if reason else None
    return self._answer(items, [confirmation_response(i, False, payload) for i in items], "rejected", "code",
                        reason)

  def edit_and_approve(self, arguments: dict[str, Any], which: Which = None) -> "LiveRun":
    """Approves one pending call with edited arguments, validated against the tool's schema first."""
    (item,) = self._select(which, "confirmation", many=False)
    self.validate_arguments(item, arguments)
    part = confirmation_response(item, True, {"arguments": dict(arguments)})
    return self._answer([item], [part], "approved with edits", "code", json.dumps(arguments, default=str))

  def respond(self, response: Any, which: Which = None) -> "LiveRun":
    """Delivers the result of a pending long-running call and resumes the run."""
    (item,) = self._select(which, "long_running", many=False)
    return self._answer([item], [tool_response(item, response)], "responded", "code")

  def validate_arguments(self, item: PendingItem, arguments: Any) -> None:
    """Raises ValueError naming the problem when `arguments` do not fit the tool's signature."""
    if not isinstance(arguments, dict):
      raise ValueError(f"Edited arguments for {item.tool} must be a dict, e.g. {item.args!r}.")
    tool = self._find_tool(item)
    if tool is None or not hasattr(tool, "validate_args"):
      return
    try:
      tool.validate_args(arguments)
    except ValueError as exc:
      raise ValueError(f"Edited arguments rejected for {item.tool}: {exc}") from None

  def _find_tool(self, item: PendingItem):
    agent = self.runner.agent.find_agent(item.agent)
    if agent is None or not hasattr(agent, "canonical_tools"):
      return None
    coro = agent.canonical_tools()
    try:
      coro.send(None)  # plain tools resolve without suspending
    except StopIteration as done:
      tools = done.value
    else:
      coro.close()  # toolsets need a context: the core validates the call when it runs
      return None
    return next((t for t in tools if t.name == item.tool), None)

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

  def _answer(self, items: list[PendingItem], parts: list[types.Part], decision: str, by: str,
              reason: str = "") -> "LiveRun":
    for item in items:
      self._record(item, decision, by, reason)
    answered = {i.call_id for i in items}
    self.pending = [p for p in self.pending if p.call_id not in answered]
    return self._start(answer_message(parts), None)

  def _record(self, item: PendingItem, decision: str, by: str, reason: str = "") -> None:
    entry = {"call_id": item.call_id, "tool": item.tool, "args": jsonable(item.args), "decision": decision,
             "by": by, "reason": reason, "invocation_id": item.invocation_id, "timestamp": time.time()}
    self.decisions.append(entry)
    title = f"{decision} by {by}: {item.tool}({short_args(item.args, 60)})"
    self.tree.add_decision(f"dec:{len(self.decisions)}:{item.call_id}", title, reason, item.invocation_id)
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
    payload = None if approve else {"reason": "rejected by approval policy 'deny'"}
    for item in items:
      self._record(item, decision, f"policy:{self.policy}")
    return answer_message([confirmation_response(i, approve, payload) for i in items])

  def _answerable(self, item: PendingItem) -> bool:
    """True while the run is paused on `item` (False once a click or code has answered it)."""
    return self.status != "running" and any(p.call_id == item.call_id for p in self.pending)

  # called from widget buttons, possibly on another thread
  def _click(self, action: str, item: PendingItem, value: Any = None) -> None:
    def act() -> None:
      if not self._answerable(item):
        return  # a double click, or Reject right after Approve: the first answer stands
      try:
        which = item.call_id
        if action == "approve":
          self._answer(self._select(which, "confirmation", True), [confirmation_response(item, True)],
                       "approved", "button")
        elif action == "reject":
          payload = {"reason": value} if value else None
          self._answer(self._select(which, "confirmation", True), [confirmation_response(item, False, payload)],
                       "rejected", "button", value or "")
        elif action == "edit":
          self.validate_arguments(item, value)
          self._answer(self._select(which, "confirmation", True),
                       [confirmation_response(item, True, {"arguments": value})], "approved with edits", "button",
                       json.dumps(value, default=str))
        elif action == "respond":
          self._answer(self._select(which, "long_running", False), [tool_response(item, value)], "responded",
                       "button")
      except Exception as exc:  # shown next to the buttons; the run is unchanged
        if self._view is not None:
          self._view.panel.show_error(item.call_id, str(exc))
        else:
          raise

    call_in_loop(self._loop, act)


def _shell():
  try:
    from IPython import get_ipython
  except ImportError:
    return None
  return get_ipython()
