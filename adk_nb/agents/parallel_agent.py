"""ParallelAgent: runs its sub-agents concurrently, each in its own branch."""

from __future__ import annotations

import asyncio
from typing import AsyncGenerator, ClassVar

from ..errors import codes
from ..events.event import Event
from ._resumable import commit_pause_checkpoint, end_of_agent, progress_checkpoint, restored_state
from .base_agent import BaseAgent
from .invocation_context import InvocationContext

_DONE = object()
_FAILED = object()


class ParallelAgent(BaseAgent):
  """Runs every sub-agent at the same time (asyncio), each in branch `parent.child`.

  Siblings do not see each other's history; state is shared. Each event is committed by
  the Runner before the sub-agent that yielded it continues. Beyond ADK: when two siblings
  write the same state key, the last write wins as in ADK, but an event with
  error_code 'STATE_WRITE_CONFLICT' reports the key and both branches.
  If a branch pauses, the others run to completion and the invocation pauses; resuming
  runs only the paused branches.
  """

  step_kind: ClassVar[str] = "parallel"

  async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
    saved = restored_state(self, ctx)
    only = set(saved.get("paused", [])) if saved else None
    children = [s for s in self.sub_agents if only is None or s.name in only]
    if not children:
      return
    checkpoint = progress_checkpoint(self, ctx, {}) if saved is None else None
    if checkpoint is not None:  # a resume continues from the checkpoint it has, as in google-adk
      yield checkpoint
    queue: asyncio.Queue = asyncio.Queue()
    loop = asyncio.get_running_loop()
    branches = {}

    async def drive(child: BaseAgent, child_ctx: InvocationContext) -> None:
      try:
        async for event in child.run_async(child_ctx):
          committed = loop.create_future()
          await queue.put((event, committed))
          await committed  # resume only after the Runner has committed the event
      except Exception as exc:  # handed to the consumer, which cancels the siblings
        await queue.put((_FAILED, exc))
        return
      await queue.put((_DONE, None))

    tasks = []
    for child in children:
      branch = f"{ctx.branch}.{child.name}" if ctx.branch else f"{self.name}.{child.name}"
      branches[child.name] = branch
      tasks.append(asyncio.ensure_future(drive(child, ctx.model_copy(update={"branch": branch}))))

    writers: dict[str, str] = {}
    conflicts: list[str] = []
    remaining = len(tasks)
    try:
      while remaining:
        event, committed = await queue.get()
        if event is _DONE:
          remaining -= 1
          continue
        if event is _FAILED:
          raise committed
        for key in event.actions.state_delta:
          owner = writers.get(key)
          if owner is not None and owner != event.branch and not key.startswith("temp:"):
            conflicts.append(f"{key!r} (written by {owner} and {event.branch})")
          writers[key] = event.branch
        yield event
        committed.set_result(None)
    finally:
      for task in tasks:
        if not task.done():
          task.cancel()
      for task in tasks:
        if not task.done():
          try:
            await task
          except BaseException:
            pass

    if conflicts:
      yield self._new_event(
          ctx,
          error_code=codes.STATE_WRITE_CONFLICT,
          error_message=(
              "Parallel branches wrote the same state keys; the later write won: "
              + "; ".join(conflicts)
              + ". Give each branch its own output_key or state key."
          ),
      )
    done = end_of_agent(self, ctx)
    if done is not None:
      yield done
    if ctx.paused:
      names = [name for name, br in branches.items() if ctx.is_branch_paused(br)]
      await commit_pause_checkpoint(self, ctx, {"paused": names})
