"""ADK 2.x Event surface: `message`, the constructor shorthands, path values, dumps of odd state."""

from __future__ import annotations

import logging

import pytest
from google.genai import types

from adk_nb.events._branch_path import _BranchPath
from adk_nb.events._node_path_builder import _NodePathBuilder
from adk_nb.events.event import Event, NodeInfo
from adk_nb.events.event_actions import EventActions
from adk_nb.events.request_input import RequestInput
from adk_nb.sessions import InMemorySessionService


def test_message_is_the_content_under_its_2x_name():
  event = Event(message="Hello!")
  assert event.message is event.content and event.content.parts[0].text == "Hello!"
  assert event.content.role == "user"  # google-genai's conversion, as google-adk
  event.message = [types.Part(text="a"), "b"]
  assert [p.text for p in event.content.parts] == ["a", "b"]
  event.message = None
  assert event.content is None
  assert "message" not in Event(message="x").model_dump()


def test_message_and_content_together_are_refused():
  with pytest.raises(ValueError, match="mutually exclusive"):
    Event(message="a", content=types.Content(parts=[types.Part(text="b")]))


def test_shorthands_leave_the_callers_dict_alone():
  data = {"message": "hi", "state": {"k": 1}, "route": "next", "node_path": "wf@1/n@1"}
  event = Event.model_validate(data)
  assert data == {"message": "hi", "state": {"k": 1}, "route": "next", "node_path": "wf@1/n@1"}
  assert (event.actions.state_delta, event.actions.route, event.node_info.path) == ({"k": 1}, "next", "wf@1/n@1")


@pytest.mark.filterwarnings("ignore:Field name \"message\"")  # pydantic notes the shadowed property, as intended
def test_a_subclass_message_field_stays_its_own():
  class Note(Event):
    message: str = ""

  note = Note(message="hello")
  assert note.message == "hello" and note.content is None


def test_paths_parse_and_compare():
  branch = _BranchPath.from_string("parent@1.child@2.node")
  assert branch.ordered_run_ids == ("1", "2") and str(branch.parent) == "parent@1.child@2"
  assert _BranchPath.create_sub_branch("parent", name="child", run_id="1") == "parent.child@1"
  path = _NodePathBuilder.from_string("wf@1/node@2")
  assert (path.node_name, path.run_id, path.static_path) == ("node", "2", "wf/node")
  assert path.is_direct_child_of(_NodePathBuilder.from_string("wf@1"))
  assert _NodePathBuilder.from_string("wf@1").includes_node_path("wf@1/node@2/x@1")


def test_dump_shows_unserialisable_state_but_the_store_still_refuses_it(caplog):
  actions = EventActions(state_delta={"ok": 2, "cb": print})
  with caplog.at_level(logging.WARNING):
    dumped = actions.model_dump(mode="json")
  assert dumped["state_delta"]["ok"] == 2 and "print" in dumped["state_delta"]["cb"]
  assert any("state_delta" in r.getMessage() for r in caplog.records)


async def test_store_refuses_state_with_no_json_form_and_writes_nothing():
  service = InMemorySessionService()
  session = await service.create_session(app_name="a", user_id="u")
  with pytest.raises(Exception):
    await service.append_event(session, Event(author="x", actions=EventActions(state_delta={"cb": print})))
  stored = await service.get_session(app_name="a", user_id="u", session_id=session.id)
  assert stored.events == [] and "cb" not in stored.state


def test_event_dumps_in_camel_case_through_request_input():
  event = Event(node_info=NodeInfo(path="a/b", message_as_output=True), output=RequestInput(interrupt_id="fc-1"))
  dumped = event.model_dump(by_alias=True)
  assert "interruptId" in dumped["output"] and "messageAsOutput" in dumped["nodeInfo"]
  assert RequestInput(interrupt_id="x").interrupt_id == "x"


def test_node_info_names_the_node_and_its_run_ids():
  info = NodeInfo(path="pipeline@1/classify@2")
  assert (info.name, info.run_id, info.parent_run_id) == ("classify", "2", "1")
  assert (NodeInfo(path="pipeline@1").name, NodeInfo(path="pipeline@1").parent_run_id) == ("pipeline", None)
  assert (NodeInfo().name, NodeInfo().run_id) == ("", "")
  assert "name" not in NodeInfo(path="a@1").model_dump()  # derived, never stored


async def test_an_event_outside_a_graph_has_an_empty_node_info_that_is_not_stored():
  # google-adk 2.x: `event.node_info.path == ''` on any event made outside a workflow graph
  # (its test helpers read `event.node_info.path` on every event); adk_nb gave None.
  from adk_nb import Agent, InMemoryRunner
  from adk_nb.testing import ScriptedModel, run_turn

  runner = InMemoryRunner(Agent(name="helper", model=ScriptedModel(["hi"])), app_name="app")
  events = await run_turn(runner, "hello")
  assert [(e.node_info.path, e.node_info.name, e.node_info.run_id, e.node_name) for e in events] == [("", "", "", "")] * 2
  info = events[-1].node_info
  assert info == NodeInfo() and type(info) is NodeInfo and info  # a plain model, truthy, as google-adk's
  # What is stored is what it was when the field read None; google-adk's `"nodeInfo": {"path": ""}` reads back too.
  stored = events[-1].model_dump_json(by_alias=True, exclude_none=True)
  assert "nodeInfo" not in stored and "node_info" not in events[-1].model_dump()
  assert Event.model_validate_json(stored).node_info == NodeInfo()
  assert Event.model_validate({"author": "a", "node_info": {"path": ""}}).node_info == NodeInfo()
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert all(e.node_info.path == "" for e in session.events)


def test_an_events_node_info_is_its_own_and_can_be_changed_in_place():
  # google-adk 2.x sets `event.node_info.path = ...` on events it did not make (a node stamps its path).
  from adk_nb.utils.trusted import trusted

  first, second, fast = Event(author="a"), Event(author="b"), trusted(Event, author="c")
  assert first.node_info is not second.node_info and fast.node_info is not trusted(Event).node_info
  first.node_info.path = "wf@1/n@1"
  fast.node_info.message_as_output = True
  assert (first.node_info.name, second.node_info.path, Event().node_info.path) == ("n", "", "")
  assert '"nodeInfo":{"path":"wf@1/n@1"}' in first.model_dump_json(by_alias=True, exclude_none=True)
  assert fast.model_dump(exclude_none=True)["node_info"] == {"path": "", "message_as_output": True}
  assert "nodeInfo" not in second.model_dump_json(by_alias=True, exclude_none=True)


def test_copies_of_an_event_copy_its_node_info_as_any_nested_model():
  import copy
  import pickle

  empty, placed = Event(author="a"), Event(author="a", node_info=NodeInfo(path="wf@1/n@1", output_for=["wf@1"]))
  for event in (empty, placed):
    shallow = event.model_copy()
    assert shallow.node_info is event.node_info  # pydantic's shallow copy shares nested models
    for deep in (copy.deepcopy(event), event.model_copy(deep=True), pickle.loads(pickle.dumps(event))):
      assert deep.node_info == event.node_info and deep.node_info is not event.node_info
      assert deep.model_dump_json(by_alias=True, exclude_none=True) == event.model_dump_json(by_alias=True,
                                                                                              exclude_none=True)
  changed = empty.model_copy(update={"node_info": empty.node_info.model_copy(update={"path": "wf@1"})})
  assert (changed.node_info.path, empty.node_info.path) == ("wf@1", "")


def test_events_stored_before_node_info_was_always_set_load_with_an_empty_one():
  # Stores wrote events without the key (exclude_none); a dump without exclude_none wrote null.
  old = Event(author="helper", invocation_id="i1", id="e1", timestamp=1.0).model_dump_json(by_alias=True,
                                                                                          exclude_none=True)
  assert "nodeInfo" not in old
  for data in (old, old[:-1] + ',"nodeInfo":null}', old[:-1] + ',"node_info":null}'):
    event = Event.model_validate_json(data)
    assert event.node_info == NodeInfo() and event.node_info.path == ""
    assert event.model_dump_json(by_alias=True, exclude_none=True) == old
  assert Event(node_info=None).node_info == NodeInfo()
