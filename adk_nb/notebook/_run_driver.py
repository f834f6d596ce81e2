"""Driving a LiveRun: one step (a run, or a resume) through the Runner, then settling it from the store.

`drive` is what a step's task runs: the Runner's events fold into the run as they come
(`on_event`, `on_progress`); when the Runner is done, `settle` reads what the store has and the
events did not say (user messages and answers, a compaction, the pending calls, the artifacts)
and gives the step its status. When the step pauses and an approval policy is set, the policy
answers (through the run's one answer path, `LiveRun._answer`) and the step goes on.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional

from google.genai import types

from ..events.event import Event
from ..events.incremental import continues
from ..events.protocol import reply_text
from ..gc_policy import heap_frozen
from ..inspect.builder import replaced_count
from ..pending import pending_of
from ..telemetry import progress
from ._run_store import list_artifacts

if TYPE_CHECKING:
  from .live_run import LiveRun

CANCELLED = "Cancelled (run.cancel() or a kernel interrupt)."
MAX_POLICY_ROUNDS = 100
"""Policy answers in a row a step gives before it ends paused (a model that asks again and again)."""
DENIED = "rejected by approval policy 'deny'"


async def drive(run: "LiveRun", message: Optional[types.Content], state_delta: Optional[dict[str, Any]],
                prelude: Optional[Callable[[], Awaitable[Any]]] = None) -> None:
  """Runs one step of `run` to its final status (done, paused or error), then tells its subscribers."""
  with heap_frozen():
    try:
      if prelude is not None:
        try:
          await prelude()
        except Exception as exc:  # e.g. the session store cannot be opened
          run.status, run.error, run.exception = "error", f"{type(exc).__name__}: {exc}", exc
          return
      for _ in range(MAX_POLICY_ROUNDS):
        await _segment(run, message, state_delta)
        message, state_delta = _policy_answer(run), None
        if message is None:
          break
    except asyncio.CancelledError:
      if run.status == "running":  # cancelled while the store opened (the prelude)
        run.status, run.error = "error", CANCELLED
      raise
    finally:
      run._step_over()


async def _segment(run: "LiveRun", message: Optional[types.Content], state_delta: Optional[dict[str, Any]]) -> None:
  """One pass of the Runner (a message, or the answers that resume it), then `settle`."""
  run.status = "running"
  run.error = run.exception = None
  run.temp_state = {}
  failed = None
  unwatch = progress.watch(run.session_id, lambda kind, info: on_progress(run, kind, info))
  try:
    if not run.events:  # note the state and how far the events go before this run (never this run's)
      before = await run.runner.session_service.get_session(
          app_name=run.runner.app_name, user_id=run.user_id, session_id=run.session_id)
      if before is not None:
        run.state = dict(before.state)
        mark_read(run, before.events)
    continuing, run._continuing = run._continuing, None
    async for event in run.runner.run_async(user_id=run.user_id, session_id=run.session_id,
                                            new_message=message, state_delta=state_delta,
                                            run_config=run.run_config, invocation_id=continuing):
      on_event(run, event)
  except asyncio.CancelledError:
    run.status, run.error = "error", CANCELLED
    raise
  except Exception as exc:  # shown in the view first; `raise_for_error()` raises it again
    failed, run.exception = f"{type(exc).__name__}: {exc}", exc
  finally:
    unwatch()
  await settle(run, failed)


async def load(run: "LiveRun", session: Any) -> None:
  """A run re-opened from a stored session (`LiveRun.attach`): its paused invocation (or the latest one)."""
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
  mark_read(run, session.events)
  run.artifacts = await list_artifacts(run) or []
  run.steps.finish(time.time(), run.status)
  await run._resolve_tools()


def on_progress(run: "LiveRun", kind: str, info: dict[str, Any]) -> None:
  """A progress point (an agent or a model call began or ended): the steps get their containers and times."""
  steps = run.steps
  if kind == "agent_started":
    steps.agent_started(info["invocation_id"], info["agent"], info["branch"], info["time"])
  elif kind == "agent_ended":
    steps.agent_ended(info["invocation_id"], info["agent"], info["time"], info["paused"], info["error"])
  elif kind == "model_started":
    steps.model_started(info["invocation_id"], info["agent"], info["branch"], info["event_id"], info["model"],
                        info["request"], info["time"])
  elif kind == "model_ended":
    steps.model_ended(info["event_id"], info["time"])
  run._publish("progress")


def on_event(run: "LiveRun", event: Event) -> None:
  """One event of the run (the per-event path: keep it short): steps, events, state, final text."""
  run.steps.add_event(event)
  if not event.partial:
    run.events.append(event)
    if event.invocation_id and event.invocation_id not in run.invocation_ids:
      run.invocation_ids.append(event.invocation_id)
    delta = event.actions.state_delta
    if delta:
      for key, value in delta.items():
        if key.startswith("temp:"):
          run.temp_state[key] = value
        else:
          run.state[key] = value
      run.changed_keys = sorted(delta)
    run.final_text = reply_text(event) or run.final_text
  run._publish("event", event)


async def settle(run: "LiveRun", failed: Optional[str]) -> None:
  """Reads what the store has after the Runner's pass and gives the step its status."""
  session = None
  if failed is None or run.invocation_ids:  # a run that started and then raised committed events too
    session = await run.runner.session_service.get_session(
        app_name=run.runner.app_name, user_id=run.user_id, session_id=run.session_id)
  if session is not None:
    run.state = dict(session.state)
    _read_new_events(run, session.events)
    # The session's pending calls, read incrementally (the store's session index keeps the ledger).
    mine = set(run.invocation_ids)
    run.pending = [p for p in pending_of(session)[0] if p.invocation_id in mine]
    mark_read(run, session.events)
    await run._resolve_tools()
  found = await list_artifacts(run)
  if found is not None:
    run.artifacts = found
  last = run.events[-1] if run.events else None
  if failed is not None:
    run.status, run.error = "error", failed
  elif last is not None and last.error_code:
    run.status, run.error = "error", f"{last.error_code}: {last.error_message}"
  elif run.pending:
    run.status = "paused"
  else:
    run.status = "done"


def _read_new_events(run: "LiveRun", events: Any) -> None:
  """The session's events committed since the last read that the Runner did not yield: user messages and
  answers of this run (kept in `run.events`), and a compaction appended after its invocation (a marker)."""
  mine = set(run.invocation_ids)
  known = {e.id for e in run.events}
  count, last_id = run._read_upto
  tail = events[count if continues(count, last_id, events) else 0:]  # from 0 when the session was rewound
  stored_only = [e for e in tail if e.author == "user" and e.invocation_id in mine and e.id not in known]
  if stored_only:
    run.events = sorted(run.events + stored_only, key=lambda e: e.timestamp)
  last_mine = max((i for i, e in enumerate(tail) if e.invocation_id in mine), default=None)
  if last_mine is not None:
    for event in tail[last_mine + 1:]:
      if event.actions.compaction is not None and event.id not in known:
        run.steps.add_compaction(event, replaced_count(events, event.actions.compaction))


def mark_read(run: "LiveRun", events: Any) -> None:
  """Notes that the session's events up to the last one have been read (a step reads only what follows)."""
  run._read_upto = (len(events), events[-1].id if events else "")


def _policy_answer(run: "LiveRun") -> Optional[types.Content]:
  """The approval policy's answer to a paused step's confirmations ('auto' approves, 'deny' rejects), or None."""
  if run.status != "paused" or run.policy == "ask":
    return None
  items = [p for p in run.pending if p.kind == "confirmation"]
  if not items:
    return None
  by = f"policy:{run.policy}"
  if run.policy == "auto":
    message = run._answer(items, "approve", None, by)
  else:
    message = run._answer(items, "reject", DENIED, by)
  run.steps.begin(message, None, time.time(), items[0].invocation_id)
  return message
