"""What a store knows about each stored session lives in that session's own index (`SessionIndex`):
never shared between stores, never evicted by other sessions, never decided by reference counts."""

from __future__ import annotations

import ast
import copy
import pickle
import sys
from pathlib import Path

import pytest
from google.genai import types

import adk_nb
from adk_nb.events import Event
from adk_nb.pending import invocation_tail, pending_items, pending_of
from adk_nb.sessions import InMemorySessionService
from tests.support import last_text

APP, USER, SID = "shop", "ada", "s1"


def _text(text: str, *, event_id: str | None = None, invocation_id: str = "inv") -> Event:
  extra = {"id": event_id} if event_id else {}
  return Event(author="user", invocation_id=invocation_id,
               content=types.Content(role="user", parts=[types.Part(text=text)]), **extra)


def _long_running_call(call_id: str, *, event_id: str) -> Event:
  return Event(id=event_id, author="clerk", invocation_id="inv", long_running_tool_ids={call_id},
               content=types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(
                   id=call_id, name="ship", args={"order": "A1"}))]))


@pytest.fixture(params=["memory", "sqlite"])
async def two_stores(request, tmp_path):
  """Two separate stores of one kind (two SQLite files), holding sessions with the same ids."""
  from .conftest import make_service

  (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
  stores = make_service(request.param, tmp_path / "a"), make_service(request.param, tmp_path / "b")
  yield stores
  for store in stores:
    await store.close()


async def _stored(service, *events: Event):
  session = await service.create_session(app_name=APP, user_id=USER, session_id=SID)
  for event in events:
    await service.append_event(session, event)
  return await service.get_session(app_name=APP, user_id=USER, session_id=SID)


async def test_two_stores_with_the_same_session_ids_do_not_share_what_they_read(two_stores):
  # Same app, user and session id, same number of events, same last event id: only the first differs.
  waiting = await _stored(two_stores[0], _long_running_call("c1", event_id="e1"), _text("later", event_id="last"))
  chatting = await _stored(two_stores[1], _text("hello", event_id="e1"), _text("later", event_id="last"))
  assert [i.call_id for i in pending_of(waiting)[0]] == ["c1"]
  assert pending_of(chatting)[0] == [] == pending_items(chatting.events)
  assert [e.id for e in invocation_tail(chatting, "inv")] == ["e1", "last"]


async def test_a_session_deleted_and_made_again_is_read_afresh(session_service):
  service = session_service
  first = await _stored(service, _long_running_call("c1", event_id="e1"))
  assert [i.call_id for i in pending_of(first)[0]] == ["c1"]
  await service.delete_session(app_name=APP, user_id=USER, session_id=SID)
  again = await _stored(service, _text("hello", event_id="e1"))
  assert pending_of(again)[0] == []


async def test_events_committed_through_a_loaded_session_are_in_the_next_load_once(two_services):
  """A database store's index takes each committed event at once; the next load finds its row, and
  the rows another process (here, a second service) committed meanwhile."""
  mine, other = two_services
  session = await _stored(mine, _text("one"))
  await mine.append_event(session, _long_running_call("c1", event_id="call"))
  assert [i.call_id for i in pending_of(session)[0]] == ["c1"]
  elsewhere = await other.get_session(app_name=APP, user_id=USER, session_id=SID)
  await other.append_event(elsewhere, _text("three", event_id="third"))
  for _ in range(2):
    reloaded = await mine.get_session(app_name=APP, user_id=USER, session_id=SID)
    assert [e.text or e.id for e in reloaded.events] == ["one", "call", "three"]
    assert [i.call_id for i in pending_of(reloaded)[0]] == ["c1"]
  assert [e.text or e.id for e in session.events] == ["one", "call"]
  await mine.append_event(reloaded, _text("four"))
  fresh = await other.get_session(app_name=APP, user_id=USER, session_id=SID)
  assert [e.text or e.id for e in fresh.events] == ["one", "call", "three", "four"]


async def _pending_reads(sessions: int, history: int) -> int:
  """Python calls made reading the pending calls of every session once more after each got one new event."""
  service = InMemorySessionService()
  ids = [f"s{i}" for i in range(sessions)]
  for sid in ids:
    session = await service.create_session(app_name=APP, user_id=USER, session_id=sid)
    for n in range(history):
      await service.append_event(session, _text(f"m{n}"))
  for sid in ids:  # every session read once: each index now has its ledger
    pending_of(await service.get_session(app_name=APP, user_id=USER, session_id=sid))
  loaded = []
  for sid in ids:
    session = await service.get_session(app_name=APP, user_id=USER, session_id=sid)
    await service.append_event(session, _text("one more"))
    loaded.append(session)
  calls = 0

  def count(frame, event, arg):
    nonlocal calls
    calls += event == "call"

  sys.setprofile(count)
  try:
    for session in loaded:
      pending_of(session)
  finally:
    sys.setprofile(None)
  return calls


async def test_many_active_sessions_each_read_only_their_new_events():
  # 300 sessions, more than any fixed-size cache held: a reader that lost its place re-reads the history.
  short = await _pending_reads(300, 5)
  long = await _pending_reads(300, 60)
  assert long < short * 1.2 + 300, (short, long)


async def test_a_loaded_session_reads_the_index_up_to_where_it_was_loaded():
  service = InMemorySessionService()
  earlier = await _stored(service, _text("one"))
  later = await service.get_session(app_name=APP, user_id=USER, session_id=SID)
  await service.append_event(later, _long_running_call("c1", event_id="e2"))
  assert [i.call_id for i in pending_of(later)[0]] == ["c1"]
  assert pending_of(earlier)[0] == []  # loaded before the call was committed: it sees none
  assert [e.text for e in earlier.events] == ["one"] and len(later.events) == 2
  assert [i.call_id for i in pending_of(later)[0]] == ["c1"]  # the kept ledger was left as it was


async def test_changing_a_loaded_sessions_events_in_place_gives_it_its_own_copy():
  service = InMemorySessionService()
  session = await _stored(service, _long_running_call("c1", event_id="e1"), _text("two"))
  assert [i.call_id for i in pending_of(session)[0]] == ["c1"]
  del session.events[0]
  assert pending_of(session)[0] == []  # read from its own copy
  stored = await service.get_session(app_name=APP, user_id=USER, session_id=SID)
  assert [i.call_id for i in pending_of(stored)[0]] == ["c1"] and len(stored.events) == 2


async def test_loaded_events_read_like_a_list_and_copy_as_one():
  service = InMemorySessionService()
  session = await _stored(service, *[_text(str(i)) for i in range(5)])
  events = session.events
  texts = [e.text for e in events]
  assert texts == ["0", "1", "2", "3", "4"]
  assert [e.text for e in reversed(events)] == texts[::-1]
  assert [e.text for e in events[::-1]] == texts[::-1] and [e.text for e in events[3::-2]] == ["3", "1"]
  assert last_text(events) == "4" and [e.text for e in events[-2:]] == ["3", "4"]
  with pytest.raises(IndexError):
    events[5]
  assert events == list(events) and events[0] in events
  for plain in (copy.copy(events), copy.deepcopy(events), pickle.loads(pickle.dumps(events)), events + [], [] + events):
    assert type(plain) is list and [e.text for e in plain] == texts
  assert session.model_dump()["events"][0]["content"]["parts"][0]["text"] == "0"
  assert '"text":"4"' in session.model_dump_json()
  later = await service.get_session(app_name=APP, user_id=USER, session_id=SID)
  await service.append_event(later, _text("5"))
  assert len(events) == 5 and [e.text for e in events][-1] == "4"  # not the later copy's append


def _module_level(tree: ast.Module):
  for node in tree.body:
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
      target = node.targets[0] if isinstance(node, ast.Assign) else node.target
      yield ast.unparse(target), node.value


_CONTAINERS = {"OrderedDict", "dict", "defaultdict", "WeakValueDictionary", "WeakKeyDictionary", "set", "list",
               "deque", "Lock", "RLock"}

# Process-wide state that is not about any one session, and why it is there.
_ALLOWED = {
    ("evaluation/simulation/user_simulator.py", "_SIMULATOR_BY_CONFIG_TYPE"): "a registry of simulator classes",
    ("flows/_context_cache.py", "_told"): "warnings given once per process",
    ("notebook/_parent_guard.py", "_INSTALLED_ON"): "kernels the guard is installed on",
    ("telemetry/progress.py", "_listeners"): "subscribers to progress points, removed by their owner",
    ("tools/_threads.py", "_pools"): "one thread pool per event loop",
    ("tools/_threads.py", "_pools_lock"): "guards the pool registry",
    ("notebook/_loop.py", "_private_lock"): "the notebook's own loop",
    ("gc_policy.py", "_lock"): "the GC policy",
    ("events/event.py", "_FIELD_NAMES"): "the Event model's field names (constructor shorthands)",
    ("sessions/state.py", "_ADAPTERS"): "one pydantic adapter per state schema",
    ("sessions/_event_decoder.py", "_lock"): "one stored-event decoder per process, built once",
    ("gc_policy.py", "_warned"): "a warning given once per process",
    ("sessions/_turns.py", "_held"): "tokens of the turn claims this process holds (a claim is alive while held)",
    ("utils/trusted.py", "_PLANS"): "one construction plan per model class",
    ("workflow/_scheduler.py", "_WORKFLOW_TYPES"): "node kinds",
    ("workflow/_values.py", "_adapters"): "one pydantic adapter per type",
    ("notebook/_session_names.py", "_in_memory"): "display names of sessions in file-less stores, weakly keyed by the store",
    ("features/__init__.py", "_overrides"): "feature overrides the program set (google-adk's API; only the skill features read them)",
    ("models/registry.py", "_DEFAULT_LLMS"): "one model instance per default model name (agents with no model)",
    ("tools/computer_use/computer_use_toolset.py", "_ACTION_LOCKS"): "one lock per computer and event loop",
    ("tools/computer_use/computer_use_toolset.py", "_ACTION_LOCKS_GUARD"): "guards the computer locks",
}


def _sources():
  package = Path(adk_nb.__file__).parent
  for path in sorted(package.rglob("*.py")):
    yield path.relative_to(package).as_posix(), ast.parse(path.read_text())


def test_no_module_decides_anything_from_reference_counts():
  found = [f"{name}:{node.lineno}" for name, tree in _sources() for node in ast.walk(tree)
           if (isinstance(node, ast.Attribute) and node.attr == "getrefcount")
           or (isinstance(node, ast.Name) and node.id == "getrefcount")]
  assert found == [], "decide sharing explicitly (see sessions/session_index.py), not from sys.getrefcount"


def test_no_module_keeps_per_session_state_of_its_own():
  """What is read from a session is kept in its store's index; a module-level cache (or a lock around
  one) is shared by every store and evicted by unrelated sessions."""
  found = []
  for name, tree in _sources():
    for target, value in _module_level(tree):
      if isinstance(value, ast.Call):
        callee = ast.unparse(value.func).rsplit(".", 1)[-1]
        suspicious = callee in _CONTAINERS or any(w in callee.lower() for w in ("cache", "lru", "session"))
      else:
        suspicious = isinstance(value, (ast.Dict, ast.Set)) and not (getattr(value, "keys", None) or getattr(value, "elts", None))
      if suspicious and not target.startswith("__") and (name, target) not in _ALLOWED:
        found.append(f"{name}: {target}")
  assert found == [], ("keep what is read from a session in its store's SessionIndex "
                       "(adk_nb.sessions.session_index.read_events), or list a process-wide registry here: "
                       + ", ".join(found))


async def test_a_reader_that_failed_part_way_reads_again_from_the_start():
  from adk_nb.sessions.session_index import fold_events

  service = InMemorySessionService()
  session = await _stored(service, _text("0"), _text("1"))
  failed: list[str] = []

  def add(texts: list, event: Event) -> list:
    texts.append(event.text)
    if event.text == "3" and not failed:
      failed.append("3")
      raise RuntimeError("a bad event, once")
    return texts

  assert fold_events(session.events, "texts", list, add) == ["0", "1"]
  for text in ("2", "3"):
    await service.append_event(session, _text(text))
  with pytest.raises(RuntimeError):
    fold_events(session.events, "texts", list, add)
  assert fold_events(session.events, "texts", list, add) == ["0", "1", "2", "3"]  # nothing read twice into it
