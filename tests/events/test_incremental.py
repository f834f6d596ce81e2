"""Where an invocation starts in a session (`invocation_tail`), for a Session made by hand."""

from __future__ import annotations

from google.genai import types

from adk_nb.events import Event
from adk_nb.pending import invocation_tail
from adk_nb.sessions import Session


def _event(invocation_id: str, text: str = "hi") -> Event:
  return Event(invocation_id=invocation_id, author="user", content=types.Content(role="user", parts=[types.Part(text=text)]))


def test_invocation_tail_starts_at_the_invocations_first_event_even_when_others_came_between():
  events = [_event("one"), _event("one"), _event("two"), _event("one"), _event("three")]
  session = Session(id="s", app_name="app", user_id="u", events=events)
  assert invocation_tail(session, "two") == events[2:]
  assert invocation_tail(session, "one") == events  # its answers came after another invocation
  assert invocation_tail(session, "unknown") == events
  session.events.append(_event("four"))
  assert invocation_tail(session, "four") == session.events[5:]
