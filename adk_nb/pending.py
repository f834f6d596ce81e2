"""What a paused session is waiting for, and the answers that resume it.

A pause is ADK's wire format: a long-running function call (a tool's own, or an
`adk_request_confirmation` call wrapping a tool call that needs approval) with no answer
yet. The functions here list those calls and build the FunctionResponse messages that
answer them, so code and notebooks never have to hand-write the wire format.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Optional, Sequence

from google.genai import types

from .events.event import Event
from .events.protocol import (INTERRUPTED_KEY, PROTOCOL_CALLS, REQUEST_CONFIRMATION, REQUEST_CREDENTIAL, REQUEST_INPUT,
                              confirmation_request, interrupted_ids, long_running_calls, nested_pause,
                              started_call_id)
from .sessions.session_index import fold_events, read_events


@dataclass(frozen=True)
class PendingItem:
  """One call waiting for a person (confirmation) or for an external result (long-running)."""

  call_id: str
  """The id to answer (for a confirmation: the `adk_request_confirmation` call's id)."""
  kind: str
  """'confirmation' or 'long_running'."""
  agent: str
  """The agent that made the call."""
  tool: str
  """The tool the call is for (the original tool, for confirmations)."""
  args: dict[str, Any] = field(default_factory=dict)
  """The arguments the model gave the tool."""
  hint: str = ""
  """Why approval is needed (confirmations)."""
  payload: Any = None
  """The payload the tool attached to its confirmation request."""
  invocation_id: str = ""
  """The paused invocation; answering resumes it."""
  original_call_id: Optional[str] = None
  """For confirmations: the id of the tool call being approved."""
  branch: Optional[str] = None
  nested: bool = False
  """True when the call belongs to an agent run through AgentTool (raised to this session)."""
  may_have_run: bool = False
  """True when this call, or an earlier call of the same tool with the same arguments, started and was
  interrupted (killed or cancelled while it ran): its effect may already exist. Check before approving;
  answering an interrupted call again tells the model it may have run, and never runs it a second time."""


_ANSWERED_ONCE = frozenset({REQUEST_CONFIRMATION, REQUEST_INPUT, REQUEST_CREDENTIAL})
"""Protocol calls whose first answer is final: a second one is refused (CallAlreadyAnsweredError),
unlike a long-running tool's call, which a later answer may update."""


def _item_for(event: Event, call: types.FunctionCall, nested: bool) -> PendingItem:
  """The PendingItem describing one long-running call of `event`."""
  request = confirmation_request(call)
  if request is not None:
    original = request.original
    return PendingItem(
        call_id=call.id, kind="confirmation", agent=event.author,
        tool=original.name or "", args=dict(original.args or {}),
        hint=request.hint, payload=request.payload,
        invocation_id=event.invocation_id, original_call_id=original.id,
        branch=event.branch, nested=nested,
    )
  return PendingItem(
      call_id=call.id, kind="long_running", agent=event.author, tool=call.name, args=dict(call.args or {}),
      invocation_id=event.invocation_id, branch=event.branch, nested=nested,
  )


def _long_running(event: Event):
  """(call, nested) for each long-running call of an event."""
  nested = nested_pause(event) is not None
  for call in long_running_calls(event):
    yield call, nested


def call_progress(events: Iterable[Event]) -> tuple[set[str], set[str]]:
  """(ids of calls with a real answer, ids of approved calls whose start marker was committed).

  A confirmation's placeholder answer ("requires confirmation") does not count as an answer.
  """
  answered: set[str] = set()
  started: set[str] = set()
  for event in events:
    started_id = started_call_id(event)
    if started_id is not None:
      started.add(started_id)
    placeholders = event.actions.requested_tool_confirmations
    for response in event.get_function_responses():
      if not (placeholders and response.id in placeholders):
        answered.add(response.id)
  return answered, started


def invocation_tail(session: Any, invocation_id: str) -> Sequence[Event]:
  """The session's events from the first one of `invocation_id` on (all of them when it has none).

  An invocation's calls, and everything that answers them or marks them started, come at or
  after its first event, so a question about one invocation's calls needs only this tail.
  Where each invocation starts is kept in the session's index, so this reads only new events.
  """
  events = session.events
  start = fold_events(events, "invocation starts", _Starts, _Starts.add).first.get(invocation_id)
  return events if start is None else events[start:]


def pending_items(events: Iterable[Event]) -> list[PendingItem]:
  """The unanswered long-running calls in a session's events, oldest first.

  A confirmation counts as answered only once the call it guards has its answer committed (it
  ran or was rejected). An answer whose resume stopped before that (it failed first, or the
  process was killed or cancelled while the approved tool ran) leaves the item pending, so the
  same answer can be sent again; when the tool had started, the item says it may have run and
  the answer tells the model so instead of running the tool twice. The same holds for answers
  to calls raised from an AgentTool: they stay pending until the AgentTool call is answered or
  its agent pauses again.
  """
  ledger = _Ledger()
  for event in events:
    ledger.add(event)
  return ledger.items()


class _Ledger:
  """What pending_items needs to know about a run of events, built one event at a time.

  Kept in the session's index (see `pending_of`), so answering a pause reads only the events committed
  since the last look instead of the whole history.
  """

  __slots__ = ("calls", "answered", "raised", "latest_pause", "done", "started", "interrupted", "call_refs",
               "late", "starts", "seen")

  def __init__(self) -> None:
    self.calls: dict[str, PendingItem] = {}
    self.answered: dict[str, PendingItem] = {}
    self.raised: dict[str, tuple[str, str]] = {}  # nested call id -> (its AgentTool call id, the event raising it)
    self.latest_pause: dict[str, str] = {}  # AgentTool call id -> the newest event raising its calls
    self.done: set[str] = set()
    self.started: set[str] = set()
    self.interrupted: set[str] = set()
    self.call_refs: dict[str, types.FunctionCall] = {}
    """Every function call by id (only read for calls answered as interrupted)."""
    self.late: dict[str, PendingItem] = {}
    """interim_answered_calls: long-running tool calls that a later answer may update."""
    self.starts: dict[str, int] = {}
    """Where each invocation seen starts (events counted from the first one read), for rewinds."""
    self.seen = 0

  def add(self, event: Event) -> "_Ledger":
    self.starts.setdefault(event.invocation_id, self.seen)
    self.seen += 1
    if event.actions.rewind_before_invocation_id:
      self._rewind(event.actions.rewind_before_invocation_id)
      return self
    started_id = started_call_id(event)
    if started_id is not None:
      self.started.add(started_id)
    placeholders = event.actions.requested_tool_confirmations
    for response in event.get_function_responses():
      if not (placeholders and response.id in placeholders):
        self.done.add(response.id)
      item = self.calls.pop(response.id, None)
      if item is not None and (item.kind == "confirmation" or item.nested):
        self.answered[response.id] = item
    self.interrupted.update(interrupted_ids(event))
    for call in event.get_function_calls():
      if call.id:
        self.call_refs[call.id] = call
    nested = nested_pause(event)
    tool_call_id = ""
    if nested is not None:
      tool_call_id = (nested.get("tool_call") or {}).get("id") or ""
      self.latest_pause[tool_call_id] = event.id
    for call, is_nested in _long_running(event):
      item = _item_for(event, call, is_nested)
      self.calls[call.id] = item
      if is_nested:
        self.raised[call.id] = (tool_call_id, event.id)
      elif call.name not in _ANSWERED_ONCE:
        self.late[call.id] = item
    return self

  def _rewind(self, invocation_id: str) -> None:
    """A rewind to before `invocation_id`: what its invocation and later ones wait for waits no more
    (as in google-adk, an answer to a rewound call matches nothing). An invocation not seen started
    before the first event read: everything read is rewound."""
    cut = self.starts.get(invocation_id, -1)
    gone = {inv for inv, start in self.starts.items() if start >= cut}
    for table in (self.calls, self.answered, self.late):
      for call_id in [c for c, item in table.items() if item.invocation_id in gone]:
        del table[call_id]

  def items(self) -> list[PendingItem]:
    if not self.answered and not self.calls:
      return []
    calls = dict(self.calls)
    for call_id, item in self.answered.items():
      if item.nested:
        tool_call_id, event_id = self.raised.get(call_id, ("", ""))
        if tool_call_id in self.done or self.latest_pause.get(tool_call_id) != event_id:
          continue  # the AgentTool finished, or its agent went on and paused again
        calls[call_id] = replace(item, may_have_run=call_id in self.started)
      elif item.original_call_id and item.original_call_id not in self.done:
        calls[call_id] = replace(item, may_have_run=item.original_call_id in self.started)
    if self.interrupted:
      unknown = {_call_key(c.name or "", c.args) for i in self.interrupted
                 for c in (self.call_refs.get(i),) if c is not None}
      for call_id, item in calls.items():
        if not item.may_have_run and _call_key(item.tool, item.args) in unknown:
          calls[call_id] = replace(item, may_have_run=True)
    return list(calls.values())


def pending_since_calls(events: list[Event], call_ids: Iterable[str]
                        ) -> Optional[tuple[list[PendingItem], dict[str, PendingItem]]]:
  """(pending_items, interim_answered_calls) as seen from the oldest of `call_ids` on, or None
  when some id is not a call of `events`.

  Whether a call is still pending, and what it is, depends only on the call and the events
  after it, so reading back to the oldest call answered is enough: resuming a pause costs the
  length of the paused stretch, not of the session. (`may_have_run` can differ: it also looks
  at identical calls interrupted earlier.)
  """
  wanted = {i for i in call_ids if i}
  if not wanted:
    return None
  start = None
  for index in range(len(events) - 1, -1, -1):
    event = events[index]
    if event.content is None or not event.content.parts:
      continue
    for call in event.get_function_calls():
      if call.id in wanted:
        wanted.discard(call.id)
        start = index
    if not wanted:
      break
  if wanted or start is None:
    return None
  ledger = _Ledger()
  for event in events[start:]:
    ledger.add(event)
  return ledger.items(), ledger.late


def _read_ledger(ledger: _Ledger, events: list[Event], start: int, stop: int) -> _Ledger:
  for event in events[start:stop]:
    ledger.add(event)
  return ledger


def pending_of(session: Any) -> tuple[list[PendingItem], dict[str, PendingItem]]:
  """(pending_items, interim_answered_calls) of a session, reading only events not seen before.

  The ledger is kept in the index its store keeps for the session (`sessions.session_index`), so
  it belongs to that store's session alone; a Session made by hand, or whose events were changed
  in place, is read from the start.
  """
  return read_events(session.events, "pending ledger", _Ledger, _read_ledger,
                     lambda ledger: (ledger.items(), dict(ledger.late)))


class _Starts:
  """Where each invocation of a session starts: the position of its first event."""

  __slots__ = ("count", "first")

  def __init__(self) -> None:
    self.count = 0
    self.first: dict[str, int] = {}

  def add(self, event: Event) -> "_Starts":
    self.first.setdefault(event.invocation_id, self.count)
    self.count += 1
    return self


def _call_key(name: str, args: Any) -> tuple[str, str]:
  return name, json.dumps(args or {}, sort_keys=True, default=str)


def unanswered_calls(events: Iterable[Event], resuming: Iterable[PendingItem] = ()) -> list[tuple[Event, list[types.FunctionCall]]]:
  """The tool calls that will never get an answer, with the event that made each: the run stopped
  (a kill, a cancel, a failed write) after the call was committed and before its answer was.

  Calls still legitimately waiting are left out: pending long-running calls, calls waiting for a
  person's approval, and the calls `resuming` is about to act on. An approved call whose run
  started and was interrupted counts, unless it is being resumed (the resume answers it).

  The Runner asks before every run, and each run answers what the previous one left, so only
  the events since the last user message can hold such a call (or the start marker of one):
  when they hold none, the answer is found without reading the whole history.
  """
  events = events if isinstance(events, Sequence) else list(events)  # no copy per run of a long history
  if not _tail_may_hold_unanswered(events):
    return []
  done, started = call_progress(events)
  resuming = list(resuming)
  open_ids = {item.call_id for item in resuming}
  waiting: set[str] = {item.original_call_id for item in resuming if item.original_call_id}
  for item in pending_items(events):
    if item.nested and item.call_id in started and item.call_id not in open_ids:
      continue  # its AgentTool was continuing when the run stopped: the AgentTool call is interrupted
    open_ids.add(item.call_id)
    if item.kind != "confirmation":
      waiting.add(item.call_id)
    elif item.original_call_id and item.original_call_id not in started:
      waiting.add(item.original_call_id)
  for event in events:
    nested = nested_pause(event)
    if nested is not None and open_ids.intersection(event.long_running_tool_ids or ()):
      waiting.add((nested.get("tool_call") or {}).get("id"))  # the AgentTool call waits with its agent
  out = []
  for event in events:
    if event.author == "user" or event.partial or nested_pause(event) is not None:
      continue
    calls = [c for c in event.get_function_calls()
             if c.id and c.name not in PROTOCOL_CALLS and c.id not in done and c.id not in waiting]
    if calls:
      out.append((event, calls))
  return out


def _tail_may_hold_unanswered(events: list[Event]) -> bool:
  """True when the events since the last user message leave a call or a start marker unanswered."""
  answered: set[str] = set()
  for event in reversed(events):  # newest first: an answer is seen before its call
    if event.author == "user":
      return False
    parts = event.content.parts if event.content is not None and event.content.parts else ()
    for part in parts:
      if part.function_response is not None:
        answered.add(part.function_response.id)
    started_id = started_call_id(event)
    if started_id is not None and started_id not in answered:
      return True
    for part in parts:
      call = part.function_call
      if call is not None and call.name not in PROTOCOL_CALLS and call.id not in answered:
        return True
  return False


def interrupted_answer(event: Event, calls: list[types.FunctionCall]) -> Event:
  """The event recording that `calls` (all made by `event`) were interrupted and their outcome is unknown."""
  parts = [types.Part(function_response=types.FunctionResponse(id=call.id, name=call.name, response={
      "error": f"Interrupted: `{call.name}` did not return (the run stopped while it was running); its "
               "outcome is unknown and it may have run. Check its effect before calling it again."}))
           for call in calls]
  return Event(invocation_id=event.invocation_id, author=event.author, branch=event.branch,
               content=types.Content(role="user", parts=parts),
               custom_metadata={INTERRUPTED_KEY: [call.id for call in calls]})


def interim_answered_calls(events: Iterable[Event]) -> dict[str, PendingItem]:
  """Long-running tool calls (not confirmation or credential requests, not nested) by id, whether or not answered yet.

  google-adk's documented pattern: the tool answers `{'status': 'pending'}` at once and the
  client sends the final FunctionResponse with the same id later; these are the calls such a
  later answer may update.
  """
  return {call.id: _item_for(event, call, nested)
          for event in events for call, nested in _long_running(event)
          if not nested and call.name not in (REQUEST_CONFIRMATION, REQUEST_CREDENTIAL)}


def confirmation_response(item: PendingItem, confirmed: bool, payload: Any = None) -> types.Part:
  """The answer to a confirmation request (ADK's `adk_request_confirmation` FunctionResponse)."""
  if item.kind != "confirmation":
    raise ValueError(f"Call {item.call_id!r} ({item.tool}) is a long-running call, not a confirmation; use respond().")
  response: dict[str, Any] = {"confirmed": bool(confirmed)}
  if payload is not None:
    response["payload"] = payload
  return types.Part(function_response=types.FunctionResponse(id=item.call_id, name=REQUEST_CONFIRMATION,
                                                             response=response))


def tool_response(item: PendingItem, response: Any) -> types.Part:
  """The result of a long-running call, delivered later."""
  if item.kind != "long_running":
    raise ValueError(f"Call {item.call_id!r} asks for confirmation; use approve() or reject().")
  if not isinstance(response, dict):
    response = {"result": response}
  return types.Part(function_response=types.FunctionResponse(id=item.call_id, name=item.tool, response=response))


def answer_message(parts: list[types.Part]) -> types.Content:
  """A user message carrying answers."""
  return types.Content(role="user", parts=parts)
