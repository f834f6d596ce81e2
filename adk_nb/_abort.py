"""`Runner.run_async(abort_signal=...)` (ADK 2.x): stop a run when the caller asks, and seal it."""

from __future__ import annotations

import asyncio
import contextlib
from typing import AsyncGenerator, Optional

from google.genai import types

from .events.event import Event
from .pending import unanswered_calls

INVOCATION_ABORTED = "INVOCATION_ABORTED"
"""`error_code` of the events that seal an aborted invocation (google-adk's value)."""
ABORT_MESSAGE = "Invocation was aborted by client."


async def until_aborted(events: AsyncGenerator[Event, None], signal: asyncio.Event
                        ) -> AsyncGenerator[Event, None]:
  """Re-yields `events` until `signal` is set; then cancels the producer where it waits.

  The agent runs in one task of its own (so its context variables stay its own) and hands each
  event over, then waits until the Runner has committed it before it continues: the
  commit-before-resume contract holds as without a signal.
  """
  handover: asyncio.Queue = asyncio.Queue(maxsize=1)
  done = object()

  async def produce() -> None:
    try:
      async for event in events:
        committed = asyncio.get_running_loop().create_future()
        await handover.put((event, committed))
        await committed
    finally:
      with contextlib.suppress(asyncio.QueueFull):  # full only when the consumer has gone
        handover.put_nowait((done, None))

  producer = asyncio.ensure_future(produce())
  stop = asyncio.ensure_future(signal.wait())
  try:
    while True:
      get = asyncio.ensure_future(handover.get())
      await asyncio.wait((get, stop), return_when=asyncio.FIRST_COMPLETED)
      if signal.is_set():  # what the agent handed over after the abort is dropped, not committed
        get.cancel()
        return
      event, committed = get.result()
      if event is done:
        await producer  # re-raises the agent's exception
        return
      yield event
      committed.set_result(None)
      if signal.is_set():
        return
  finally:
    stop.cancel()
    if not producer.done():
      producer.cancel()
      with contextlib.suppress(asyncio.CancelledError):
        await producer


def seal_aborted(session, invocation_id: str, root_name: str, branch: Optional[str]) -> list[Event]:
  """The events that close an aborted invocation: an error answer for each of its calls left
  unanswered, or one `INVOCATION_ABORTED` event when there is none. Calls still waiting for a
  person (confirmations, long-running tools, input requests) are left pending."""
  sealed = []
  for event, calls in unanswered_calls(session.events):
    if event.invocation_id != invocation_id:
      continue
    parts = [types.Part(function_response=types.FunctionResponse(id=c.id, name=c.name,
                                                                 response={"error": ABORT_MESSAGE}))
             for c in calls]
    sealed.append(Event(invocation_id=invocation_id, author=event.author, branch=event.branch,
                        isolation_scope=event.isolation_scope, content=types.Content(role="user", parts=parts),
                        error_code=INVOCATION_ABORTED, error_message=ABORT_MESSAGE))
  if not sealed:
    sealed.append(Event(invocation_id=invocation_id, author=root_name, branch=branch,
                        error_code=INVOCATION_ABORTED, error_message=ABORT_MESSAGE))
  return sealed
