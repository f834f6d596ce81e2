"""State: merged reads, delta-recorded writes, prefix routing across sessions."""

import pytest

from adk_nb.errors.already_exists_error import AlreadyExistsError
from adk_nb.errors.stale_session_error import StaleSessionError
from adk_nb.events import Event, EventActions
from adk_nb.sessions import GetSessionConfig, InMemorySessionService, State


def test_state_reads_merge_and_writes_are_recorded():
  value = {"a": 1}
  delta = {}
  state = State(value, delta)
  assert not state.has_delta()
  state["b"] = 2
  state["a"] = 3
  assert state["a"] == 3 and state.get("b") == 2 and "b" in state
  assert state.has_delta() and delta == {"b": 2, "a": 3}
  assert state.to_dict() == {"a": 3, "b": 2}
  with pytest.raises(TypeError, match="set the key to None"):
    del state["a"]


async def test_prefixes_route_to_app_user_session_and_temp_is_never_stored():
  svc = InMemorySessionService()
  s1 = await svc.create_session(app_name="app", user_id="u1", state={"app:theme": "dark", "user:lang": "fr", "k": 1})
  s2 = await svc.create_session(app_name="app", user_id="u1")
  s3 = await svc.create_session(app_name="app", user_id="u2")
  assert s2.state == {"app:theme": "dark", "user:lang": "fr"}
  assert s3.state == {"app:theme": "dark"}
  ev = Event(invocation_id="i", author="a", actions=EventActions(
      state_delta={"app:n": 1, "user:m": 2, "s": 3, "temp:scratch": 4}))
  await svc.append_event(s1, ev)
  assert s1.state["temp:scratch"] == 4  # visible for the rest of the invocation
  fresh = await svc.get_session(app_name="app", user_id="u1", session_id=s1.id)
  assert "temp:scratch" not in fresh.state
  assert "temp:scratch" not in fresh.events[-1].actions.state_delta
  assert fresh.state["s"] == 3 and fresh.state["app:n"] == 1 and fresh.state["user:m"] == 2
  other = await svc.get_session(app_name="app", user_id="u1", session_id=s2.id)
  assert other.state["app:n"] == 1 and other.state["user:m"] == 2 and "s" not in other.state
  u2 = await svc.get_session(app_name="app", user_id="u2", session_id=s3.id)
  assert u2.state["app:n"] == 1 and "user:m" not in u2.state


async def test_partial_events_are_never_stored():
  svc = InMemorySessionService()
  s = await svc.create_session(app_name="app", user_id="u")
  await svc.append_event(s, Event(author="a", partial=True, actions=EventActions(state_delta={"x": 1})))
  fresh = await svc.get_session(app_name="app", user_id="u", session_id=s.id)
  assert fresh.events == [] and "x" not in fresh.state


async def test_duplicate_id_config_filters_list_and_delete():
  svc = InMemorySessionService()
  s = await svc.create_session(app_name="app", user_id="u", session_id="s1")
  with pytest.raises(AlreadyExistsError, match="s1"):
    await svc.create_session(app_name="app", user_id="u", session_id="s1")
  for i in range(5):
    await svc.append_event(s, Event(author="a", invocation_id=str(i), timestamp=100.0 + i))
  got = await svc.get_session(app_name="app", user_id="u", session_id="s1",
                              config=GetSessionConfig(num_recent_events=2))
  assert [e.invocation_id for e in got.events] == ["3", "4"]
  got = await svc.get_session(app_name="app", user_id="u", session_id="s1",
                              config=GetSessionConfig(after_timestamp=102.0))
  assert [e.invocation_id for e in got.events] == ["2", "3", "4"]
  listed = await svc.list_sessions(app_name="app", user_id="u")
  assert [x.id for x in listed.sessions] == ["s1"] and listed.sessions[0].events == []
  await svc.delete_session(app_name="app", user_id="u", session_id="s1")
  assert await svc.get_session(app_name="app", user_id="u", session_id="s1") is None


async def test_stale_writer_gets_a_clear_error_and_nothing_is_written():
  svc = InMemorySessionService()
  s = await svc.create_session(app_name="app", user_id="u")
  a = await svc.get_session(app_name="app", user_id="u", session_id=s.id)
  b = await svc.get_session(app_name="app", user_id="u", session_id=s.id)
  await svc.append_event(a, Event(author="x", invocation_id="1"))
  with pytest.raises(StaleSessionError, match="reload"):
    await svc.append_event(b, Event(author="x", invocation_id="2"))
  fresh = await svc.get_session(app_name="app", user_id="u", session_id=s.id)
  assert [e.invocation_id for e in fresh.events] == ["1"]


async def test_out_of_order_timestamps_and_duplicate_ids_behave_like_the_database_stores():
  svc = InMemorySessionService()
  s = await svc.create_session(app_name="app", user_id="u", session_id="s")
  for i, ts in enumerate((100.0, 300.0, 200.0)):
    await svc.append_event(s, Event(author="a", invocation_id=str(i), timestamp=ts))
  got = await svc.get_session(app_name="app", user_id="u", session_id="s",
                              config=GetSessionConfig(after_timestamp=150.0))
  assert [e.invocation_id for e in got.events] == ["1", "2"]
  again = got.events[0]
  with pytest.raises(ValueError, match="already stored"):
    await svc.append_event(s, again)
  assert len((await svc.get_session(app_name="app", user_id="u", session_id="s")).events) == 3
