"""Readers asked on every turn read only the events added since they last looked."""

from __future__ import annotations

from google.genai import types

from adk_nb.events import Event
from adk_nb.events.incremental import PerSession
from adk_nb.pending import invocation_tail
from adk_nb.sessions import Session


def _event(invocation_id: str, text: str = "hi") -> Event:
  return Event(invocation_id=invocation_id, author="user", content=types.Content(role="user", parts=[types.Part(text=text)]))


def test_a_per_session_reader_folds_each_event_once_and_starts_over_on_a_rewritten_session():
  seen: list[str] = []
  count = PerSession(lambda: 0, lambda n, event: (seen.append(event.id), n + 1)[1])
  events = [_event("a") for _ in range(3)]
  assert count(("app", "u", "s"), events) == 3
  events += [_event("b"), _event("b")]
  assert count(("app", "u", "s"), events) == 5
  assert len(seen) == 5  # the first three were not read again
  rewritten = [_event("c") for _ in range(6)]  # same key, other events: deleted and made again
  assert count(("app", "u", "s"), rewritten) == 6
  assert seen[5:] == [e.id for e in rewritten]
  assert count(("app", "u", "other"), events[:2]) == 2  # each session has its own


def test_invocation_tail_starts_at_the_invocations_first_event_even_when_others_came_between():
  events = [_event("one"), _event("one"), _event("two"), _event("one"), _event("three")]
  session = Session(id="s", app_name="app", user_id="u", events=events)
  assert invocation_tail(session, "two") == events[2:]
  assert invocation_tail(session, "one") == events  # its answers came after another invocation
  assert invocation_tail(session, "unknown") == events
  session.events.append(_event("four"))
  assert invocation_tail(session, "four") == session.events[5:]
