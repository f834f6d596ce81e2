"""The behaviour every session store shares: in memory, SQLite and PostgreSQL alike."""

from __future__ import annotations

import pytest
from google.genai import types

from adk_nb.errors.already_exists_error import AlreadyExistsError
from adk_nb.errors.stale_session_error import StaleSessionError
from adk_nb.events.event import Event
from adk_nb.events.event_actions import EventActions
from adk_nb.sessions.base_session_service import GetSessionConfig
from adk_nb.tools.tool_confirmation import ToolConfirmation

APP, USER = "shop", "ada"


def text_event(text: str, *, author: str = "agent", delta: dict | None = None, **kw) -> Event:
  return Event(
      author=author, invocation_id="inv-1",
      content=types.Content(role="user" if author == "user" else "model",
                            parts=[types.Part(text=text)]),
      actions=EventActions(state_delta=delta or {}), **kw,
  )


async def reload(service, session):
  return await service.get_session(app_name=session.app_name, user_id=session.user_id,
                                   session_id=session.id)


async def test_create_then_get_returns_the_session_with_its_initial_state(session_service):
  created = await session_service.create_session(
      app_name=APP, user_id=USER, state={"cart": [1, 2], "app:currency": "EUR", "user:tier": "gold"})
  loaded = await reload(session_service, created)
  assert loaded.id == created.id and loaded.app_name == APP and loaded.user_id == USER
  assert loaded.state == {"cart": [1, 2], "app:currency": "EUR", "user:tier": "gold"}
  assert created.state == loaded.state
  assert loaded.events == []


async def test_get_of_an_unknown_session_is_none(session_service):
  assert await session_service.get_session(app_name=APP, user_id=USER, session_id="nope") is None


async def test_a_taken_session_id_raises_already_exists(session_service):
  await session_service.create_session(app_name=APP, user_id=USER, session_id="s1")
  with pytest.raises(AlreadyExistsError, match="already exists"):
    await session_service.create_session(app_name=APP, user_id=USER, session_id="s1")
  # Same id for another user is a different session.
  other = await session_service.create_session(app_name=APP, user_id="bob", session_id="s1")
  assert other.user_id == "bob"


async def test_blank_session_id_gets_a_fresh_one(session_service):
  a = await session_service.create_session(app_name=APP, user_id=USER, session_id="  ")
  b = await session_service.create_session(app_name=APP, user_id=USER)
  assert a.id.strip() and b.id.strip() and a.id != b.id


async def test_appended_events_come_back_in_order_and_equal(session_service):
  session = await session_service.create_session(app_name=APP, user_id=USER)
  sent = [text_event("hi", author="user"), text_event("hello"), text_event("bye")]
  for event in sent:
    returned = await session_service.append_event(session, event)
    assert returned is event
  assert [e.id for e in session.events] == [e.id for e in sent]
  loaded = await reload(session_service, session)
  assert [e.text for e in loaded.events] == ["hi", "hello", "bye"]
  assert [e.model_dump() for e in loaded.events] == [e.model_dump() for e in sent]


async def test_events_round_trip_with_calls_bytes_confirmations_and_deltas(session_service):
  session = await session_service.create_session(app_name=APP, user_id=USER)
  call = types.FunctionCall(id="call-1", name="refund", args={"order": 7, "items": ["a", "b"]})
  event = Event(
      author="agent", invocation_id="inv-9", branch="root.child",
      content=types.Content(role="model", parts=[
          types.Part(function_call=call),
          types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG\x00\xff")),
          types.Part(text="thinking", thought=True),
      ]),
      long_running_tool_ids={"call-1", "call-0"},
      actions=EventActions(
          state_delta={"n": 1, "nested": {"a": [1, None, "x"]}},
          artifact_delta={"report.pdf": 2},
          requested_tool_confirmations={"call-1": ToolConfirmation(hint="ok?", payload={"max": 5})},
          transfer_to_agent="billing", escalate=True, skip_summarization=True,
      ),
      turn_complete=True,
  )
  response = Event(author="agent", content=types.Content(role="user", parts=[
      types.Part(function_response=types.FunctionResponse(
          id="call-1", name="refund", response={"result": {"ok": True, "amount": 12.5}}))]))
  await session_service.append_event(session, event)
  await session_service.append_event(session, response)
  loaded = await reload(session_service, session)
  assert loaded.events[0].model_dump() == event.model_dump()
  assert loaded.events[0].content.parts[1].inline_data.data == b"\x89PNG\x00\xff"
  assert loaded.events[0].long_running_tool_ids == {"call-1", "call-0"}
  assert loaded.events[1].get_function_responses()[0].response == {"result": {"ok": True, "amount": 12.5}}


async def test_state_delta_is_routed_by_prefix(session_service):
  s1 = await session_service.create_session(app_name=APP, user_id=USER)
  s2 = await session_service.create_session(app_name=APP, user_id=USER)
  bob = await session_service.create_session(app_name=APP, user_id="bob")
  other_app = await session_service.create_session(app_name="other", user_id=USER)
  await session_service.append_event(s1, text_event("x", delta={
      "topic": "refunds", "user:lang": "fr", "app:motd": "hello", "temp:scratch": 42}))
  # The live session sees everything, temp: included, for the rest of the invocation.
  assert s1.state["temp:scratch"] == 42 and s1.state["topic"] == "refunds"
  loaded = await reload(session_service, s1)
  assert loaded.state == {"topic": "refunds", "user:lang": "fr", "app:motd": "hello"}
  assert (await reload(session_service, s2)).state == {"user:lang": "fr", "app:motd": "hello"}
  assert (await reload(session_service, bob)).state == {"app:motd": "hello"}
  assert (await reload(session_service, other_app)).state == {}


async def test_user_state_is_per_app(session_service):
  s1 = await session_service.create_session(app_name=APP, user_id=USER)
  other_app = await session_service.create_session(app_name="other", user_id=USER)
  await session_service.append_event(s1, text_event("x", delta={"user:lang": "fr"}))
  assert (await reload(session_service, other_app)).state == {}


async def test_temp_keys_are_never_stored(session_service):
  session = await session_service.create_session(app_name=APP, user_id=USER)
  await session_service.append_event(session, text_event("x", delta={"temp:t": 1, "k": 2}))
  loaded = await reload(session_service, session)
  assert "temp:t" not in loaded.state
  assert loaded.events[0].actions.state_delta == {"k": 2}


async def test_later_writes_overwrite_earlier_ones_and_none_is_kept(session_service):
  session = await session_service.create_session(app_name=APP, user_id=USER, state={"a": 1, "b": 1})
  await session_service.append_event(session, text_event("1", delta={"a": 2}))
  await session_service.append_event(session, text_event("2", delta={"b": None, "app:x": 1}))
  await session_service.append_event(session, text_event("3", delta={"app:x": 2}))
  loaded = await reload(session_service, session)
  assert loaded.state == {"a": 2, "b": None, "app:x": 2}
  assert session.state == loaded.state


async def test_partial_events_are_returned_but_not_stored(session_service):
  session = await session_service.create_session(app_name=APP, user_id=USER)
  partial = text_event("stream", delta={"k": 1}, partial=True)
  assert await session_service.append_event(session, partial) is partial
  assert session.events == [] and "k" not in session.state
  loaded = await reload(session_service, session)
  assert loaded.events == [] and loaded.state == {}


async def test_get_session_config_limits_the_events_loaded(session_service):
  session = await session_service.create_session(app_name=APP, user_id=USER)
  for i in range(5):
    await session_service.append_event(session, text_event(str(i), timestamp=1000.0 + i))
  async def texts(**config):
    loaded = await session_service.get_session(
        app_name=APP, user_id=USER, session_id=session.id, config=GetSessionConfig(**config))
    return [e.text for e in loaded.events]
  assert await texts(num_recent_events=2) == ["3", "4"]
  assert await texts(num_recent_events=0) == []
  assert await texts(num_recent_events=10) == ["0", "1", "2", "3", "4"]
  assert await texts(num_recent_events=7) == ["0", "1", "2", "3", "4"]  # fewer than asked for: all of them
  assert await texts(after_timestamp=1002.0) == ["2", "3", "4"]
  assert await texts(after_timestamp=1002.0, num_recent_events=1) == ["4"]
  assert await texts() == ["0", "1", "2", "3", "4"]


async def test_last_update_time_grows_with_each_append(session_service):
  session = await session_service.create_session(app_name=APP, user_id=USER)
  times = [session.last_update_time]
  for i in range(3):
    # The same timestamp every time: the store still orders the writes.
    await session_service.append_event(session, text_event(str(i), timestamp=5.0))
    times.append(session.last_update_time)
  assert times == sorted(times) and len(set(times)) == 4
  loaded = await reload(session_service, session)
  assert loaded.last_update_time == session.last_update_time


async def test_list_sessions_without_events_and_with_merged_state(session_service):
  a = await session_service.create_session(app_name=APP, user_id=USER, state={"k": "a"})
  b = await session_service.create_session(app_name=APP, user_id=USER)
  c = await session_service.create_session(app_name=APP, user_id="bob", state={"user:x": 1})
  await session_service.create_session(app_name="other", user_id=USER)
  await session_service.append_event(a, text_event("hi", delta={"app:v": 1}))
  mine = (await session_service.list_sessions(app_name=APP, user_id=USER)).sessions
  assert sorted(s.id for s in mine) == sorted([a.id, b.id])
  assert all(s.events == [] for s in mine)
  by_id = {s.id: s for s in mine}
  assert by_id[a.id].state == {"k": "a", "app:v": 1}
  everyone = (await session_service.list_sessions(app_name=APP)).sessions
  assert sorted(s.id for s in everyone) == sorted([a.id, b.id, c.id])
  assert {s.id: s.state for s in everyone}[c.id] == {"user:x": 1, "app:v": 1}
  assert (await session_service.list_sessions(app_name="none")).sessions == []


async def test_delete_session_keeps_app_and_user_state(session_service):
  a = await session_service.create_session(app_name=APP, user_id=USER, state={"app:k": 1, "user:u": 2})
  await session_service.append_event(a, text_event("hi"))
  await session_service.delete_session(app_name=APP, user_id=USER, session_id=a.id)
  assert await reload(session_service, a) is None
  b = await session_service.create_session(app_name=APP, user_id=USER, session_id=a.id)
  assert b.state == {"app:k": 1, "user:u": 2}
  assert (await reload(session_service, b)).events == []
  # Deleting what does not exist is not an error.
  await session_service.delete_session(app_name=APP, user_id=USER, session_id="ghost")


async def test_a_stale_copy_cannot_append_and_writes_nothing(session_service):
  session = await session_service.create_session(app_name=APP, user_id=USER)
  first = await reload(session_service, session)
  second = await reload(session_service, session)
  await session_service.append_event(first, text_event("one", delta={"k": 1}))
  with pytest.raises(StaleSessionError, match="get_session"):
    await session_service.append_event(second, text_event("two", delta={"k": 2, "app:a": 1}))
  assert [e.text for e in second.events] == []
  loaded = await reload(session_service, session)
  assert [e.text for e in loaded.events] == ["one"]
  assert loaded.state == {"k": 1}
  # A fresh copy appends fine.
  await session_service.append_event(loaded, text_event("two"))
  assert [e.text for e in (await reload(session_service, session)).events] == ["one", "two"]


async def test_appending_to_a_missing_session_names_the_fix(session_service):
  session = await session_service.create_session(app_name=APP, user_id=USER)
  await session_service.delete_session(app_name=APP, user_id=USER, session_id=session.id)
  with pytest.raises(ValueError, match="create_session"):
    await session_service.append_event(session, text_event("x"))


async def test_the_creating_copy_can_append_directly(session_service):
  session = await session_service.create_session(app_name=APP, user_id=USER)
  for i in range(3):
    await session_service.append_event(session, text_event(str(i)))
  assert len((await reload(session_service, session)).events) == 3


async def test_a_loaded_session_is_its_own_copy_as_in_google_adk(session_service):
  """A copy sees only its own appends; changing its event list in place changes no other copy."""
  session = await session_service.create_session(app_name=APP, user_id=USER)
  await session_service.append_event(session, text_event("one"))
  earlier = await reload(session_service, session)
  later = await reload(session_service, session)
  await session_service.append_event(later, text_event("two"))
  assert [e.text for e in earlier.events] == [e.text for e in session.events] == ["one"]
  assert [e.text for e in later.events] == ["one", "two"]
  earlier.events.append(text_event("never committed"))
  later.events.clear()
  for _ in range(2):  # a load after the previous copy is gone, too
    loaded = await reload(session_service, session)
    assert [e.text for e in loaded.events] == ["one", "two"]
    del loaded.events[0]
    del loaded
  latest = await reload(session_service, session)
  await session_service.append_event(latest, text_event("three"))
  assert [e.text for e in (await reload(session_service, session)).events] == ["one", "two", "three"]
  assert [e.text for e in latest.events] == ["one", "two", "three"]
