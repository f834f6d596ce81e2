"""ADK 2.x Event surface: `message`, the constructor shorthands, path values, dumps of odd state."""

from __future__ import annotations

import logging

import pytest
from google.genai import types

from adk_nb.events._branch_path import _BranchPath
from adk_nb.events._node_path_builder import _NodePathBuilder
from adk_nb.events.event import _HAS_EXCLUDE_IF, Event, NodeInfo
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


@pytest.mark.skipif(not _HAS_EXCLUDE_IF, reason="this pydantic has no Field(exclude_if=...): node_info stays None")
async def test_an_event_outside_a_graph_has_an_empty_node_info_that_is_not_stored():
  # google-adk 2.x: `event.node_info.path == ''` on any event made outside a workflow graph
  # (its test helpers read `event.node_info.path` on every event); adk_nb gave None.
  import copy
  import pickle

  from adk_nb import Agent, InMemoryRunner
  from adk_nb.testing import ScriptedModel, run_turn

  runner = InMemoryRunner(Agent(name="helper", model=ScriptedModel(["hi"])), app_name="app")
  events = await run_turn(runner, "hello")
  assert [(e.node_info.path, e.node_info.name, e.node_info.run_id, e.node_name) for e in events] == [("", "", "", "")] * 2
  info = events[-1].node_info
  assert info == NodeInfo() and NodeInfo() == info and not info  # falsy: "this event comes from no node"
  # What is stored is what it was when the field read None: google-adk's JSON, `"node_info": {"path": ""}`, reads back too.
  stored = events[-1].model_dump_json(by_alias=True, exclude_none=True)
  assert "nodeInfo" not in stored and "node_info" not in events[-1].model_dump()
  assert Event.model_validate_json(stored).node_info.path == ""
  assert Event.model_validate({"author": "a", "node_info": {"path": ""}}).node_info.path == ""
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert all(e.node_info.path == "" for e in session.events)
  for copied in (copy.deepcopy(events[-1]), events[-1].model_copy(deep=True), pickle.loads(pickle.dumps(events[-1]))):
    assert "nodeInfo" not in copied.model_dump_json(by_alias=True, exclude_none=True)
  # One empty NodeInfo serves every such event, so changing it in place is refused with the fix;
  # the event takes a NodeInfo of its own, and no other event is touched.
  with pytest.raises(AttributeError, match=r"event.node_info = NodeInfo\(path=\.\.\.\)"):
    events[-1].node_info.path = "wf@1/n@1"
  own = events[-1].node_info.model_copy(update={"path": "wf@1/n@1"})
  events[-1].node_info = own
  own.message_as_output = True
  assert events[-1].node_info.name == "n" and events[0].node_info.path == "" and Event().node_info.path == ""
  assert '"nodeInfo":{"path":"wf@1/n@1","messageAsOutput":true}' in events[-1].model_dump_json(by_alias=True,
                                                                                              exclude_none=True)
