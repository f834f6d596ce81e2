"""The Task API (google-adk 2.x agent `mode`): single_turn and task sub-agents called like tools,
finish_task, and a task that talks with the user across turns inside one invocation."""

import pytest
from pydantic import BaseModel

from adk_nb import InMemoryRunner, Runner
from adk_nb.agents import LlmAgent
from adk_nb.models import ScriptedModel, call
from adk_nb.testing import run_turn


def texts(request):
  """What a model was sent, one line per content: 'role: text' or 'role: FC/FR name args'."""
  out = []
  for content in request.contents:
    for part in content.parts:
      if part.text:
        out.append(f"{content.role}: {part.text}")
      elif part.function_call:
        out.append(f"{content.role}: FC {part.function_call.name} {dict(part.function_call.args)}")
      elif part.function_response:
        out.append(f"{content.role}: FR {part.function_response.name} {dict(part.function_response.response)}")
  return out


def declarations(request):
  return {d.name: d for t in request.config.tools or [] for d in t.function_declarations or []}


def summary(events):
  out = []
  for e in events:
    if e.author == "user" and not e.get_function_responses():
      continue
    for fc in e.get_function_calls():
      out.append((e.author, "call", fc.name, dict(fc.args)))
    for fr in e.get_function_responses():
      out.append((e.author, "answer", fr.name, dict(fr.response)))
    if e.text:
      out.append((e.author, "text", e.text))
  return out


# ---- single_turn ---------------------------------------------------------------------------------


async def test_a_single_turn_sub_agent_is_called_like_a_tool_and_answers_in_the_same_turn():
  helper_model = ScriptedModel(["short summary"])
  helper = LlmAgent(name="helper", description="Summarizes.", mode="single_turn", model=helper_model)
  coord_model = ScriptedModel([call("helper", request="summarize X"), "Here: short summary"])
  coord = LlmAgent(name="coord", model=coord_model, sub_agents=[helper])
  events = await run_turn(InMemoryRunner(coord, app_name="app"), "summarize please")

  assert summary(events) == [
      ("coord", "call", "helper", {"request": "summarize X"}),
      ("helper", "text", "short summary"),
      ("coord", "answer", "helper", {"result": "short summary"}),
      ("coord", "text", "Here: short summary"),
  ]
  helper_event = next(e for e in events if e.author == "helper")
  call_id = events[1].get_function_calls()[0].id
  assert helper_event.branch == f"helper@{call_id}" and helper_event.isolation_scope == call_id
  assert len({e.invocation_id for e in events}) == 1
  first, second = coord_model.requests
  decl = declarations(first)["helper"]
  assert decl.description == "Summarizes." and decl.parameters_json_schema["required"] == ["request"]
  assert "transfer_to_agent" not in declarations(first)  # a delegated sub-agent is a tool, not a transfer target
  # The helper sees only its request; the coordinator never sees the helper's own conversation.
  assert texts(helper_model.requests[0]) == ["user: summarize X"]
  assert texts(second) == ["user: summarize please", "model: FC helper {'request': 'summarize X'}",
                           "user: FR helper {'result': 'short summary'}"]
  helper_model.assert_complete()
  coord_model.assert_complete()


async def test_a_single_turn_sub_agent_with_schemas_takes_json_and_answers_a_dict():
  class Ask(BaseModel):
    topic: str

  class Facts(BaseModel):
    count: int

  helper_model = ScriptedModel(['{"count": 3}'])
  helper = LlmAgent(name="facts", mode="single_turn", model=helper_model, input_schema=Ask, output_schema=Facts)
  coord_model = ScriptedModel([call("facts", topic="otters"), "3 facts"])
  coord = LlmAgent(name="coord", model=coord_model, sub_agents=[helper])
  events = await run_turn(InMemoryRunner(coord, app_name="app"), "go")
  assert ("coord", "answer", "facts", {"result": {"count": 3}}) in summary(events)
  assert texts(helper_model.requests[0]) == ['user: {"topic":"otters"}']
  assert declarations(coord_model.requests[0])["facts"].parameters_json_schema["required"] == ["topic"]


# ---- task ----------------------------------------------------------------------------------------


def booking(booker_steps, coord_steps, output_schema=None, output_key=None):
  booker_model = ScriptedModel(booker_steps)
  booker = LlmAgent(name="booker", description="Books flights.", mode="task", model=booker_model,
                    output_schema=output_schema, output_key=output_key)
  coord_model = ScriptedModel(coord_steps)
  chat = LlmAgent(name="smalltalk", description="Chats.", model=ScriptedModel([]))
  coord = LlmAgent(name="coord", model=coord_model, sub_agents=[booker, chat])
  return coord, coord_model, booker_model


async def test_a_task_sub_agent_talks_with_the_user_then_finish_task_answers_the_coordinator():
  coord, coord_model, booker_model = booking(
      ["Where to?", call("finish_task", result="booked Paris")],
      [call("booker", request="book a flight"), "All set: booked Paris."])
  runner = InMemoryRunner(coord, app_name="app")
  first = await run_turn(runner, "I need a flight")
  assert summary(first) == [("coord", "call", "booker", {"request": "book a flight"}),
                            ("booker", "text", "Where to?")]  # the task asks; the turn ends
  second = await run_turn(runner, "Paris")
  assert summary(second) == [
      ("booker", "call", "finish_task", {"result": "booked Paris"}),
      ("booker", "answer", "finish_task", {"result": "Task completed."}),
      ("user", "answer", "booker", {"result": "booked Paris"}),
      ("coord", "text", "All set: booked Paris."),
  ]
  # The reply continues the same invocation, and is part of the task only.
  assert {e.invocation_id for e in first + second} == {first[0].invocation_id}
  call_id = first[1].get_function_calls()[0].id
  assert second[0].isolation_scope == call_id
  # finish_task's answer is not a reply (as google-adk): the task's run ends on it, its result on `output`.
  finished = second[2]
  assert not finished.is_final_response() and finished.output == {"result": "booked Paris"}
  # The request is no event of its own: each model call of the task rebuilds it from the coordinator's call.
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert [e.content.parts[0].text for e in session.events if e.isolation_scope and e.author == "user"] == ["Paris"]

  ask, finish = booker_model.requests
  assert texts(ask) == ['user: {"request": "book a flight"}']
  assert texts(finish) == ['user: {"request": "book a flight"}', "model: Where to?", "user: Paris"]
  finish_decl = declarations(ask)["finish_task"]
  assert finish_decl.parameters_json_schema["required"] == ["result"]
  assert "call `finish_task`" in ask.config.system_instruction
  first_coord, second_coord = coord_model.requests
  assert "never in parallel with other tool calls" in declarations(first_coord)["booker"].description
  assert "smalltalk" in str(declarations(first_coord)["transfer_to_agent"].parameters_json_schema)
  assert texts(second_coord) == ["user: I need a flight", "model: FC booker {'request': 'book a flight'}",
                                 "user: FR booker {'result': 'booked Paris'}"]
  booker_model.assert_complete()
  coord_model.assert_complete()



async def test_an_invalid_finish_task_goes_back_to_the_model_and_a_schema_shapes_the_result():
  class Booking(BaseModel):
    city: str
    seats: int

  coord, coord_model, booker_model = booking(
      [call("finish_task", city="Paris"), call("finish_task", city="Paris", seats=2)],
      [call("booker", request="book"), "Booked."], output_schema=Booking)
  events = await run_turn(InMemoryRunner(coord, app_name="app"), "book 2 seats to Paris")
  answers = [s for s in summary(events) if s[1] == "answer"]
  assert answers[0][:3] == ("booker", "answer", "finish_task") and "validation errors" in answers[0][3]["error"]
  assert answers[1:] == [("booker", "answer", "finish_task", {"result": "Task completed."}),
                         ("user", "answer", "booker", {"city": "Paris", "seats": 2})]
  assert declarations(booker_model.requests[0])["finish_task"].parameters_json_schema["required"] == ["city", "seats"]
  assert summary(events)[-1] == ("coord", "text", "Booked.")


async def test_a_finished_task_saves_its_result_under_its_output_key():
  coord, _, _ = booking([call("finish_task", result="booked Paris")],
                        [call("booker", request="book"), "Booked."], output_key="booking")
  runner = InMemoryRunner(coord, app_name="app")
  await run_turn(runner, "book Paris")
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert session.state["booking"] == {"result": "booked Paris"}  # the task's result, not the coordinator's text


async def test_a_root_task_agent_puts_its_result_on_the_finishing_event():
  model = ScriptedModel(["Where to?", call("finish_task", result="booked Paris")])
  runner = InMemoryRunner(LlmAgent(name="booker", mode="task", model=model, output_key="booking"), app_name="app")
  await run_turn(runner, "I need a flight")
  events = await run_turn(runner, "Paris")
  assert [e.output for e in events][-2:] == [None, {"result": "booked Paris"}]  # on finish_task's answer
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert session.state["booking"] == {"result": "booked Paris"}


async def test_a_waiting_task_continues_from_a_new_runner_on_a_database(tmp_path):
  from adk_nb.sessions import DatabaseSessionService

  url = f"sqlite:///{tmp_path / 'sessions.db'}"
  coord, _, _ = booking(["Where to?"], [call("booker", request="book a flight")])
  first_runner = Runner(agent=coord, app_name="app", session_service=DatabaseSessionService(url))
  first = await run_turn(first_runner, "I need a flight")
  await first_runner.close()

  coord, coord_model, booker_model = booking([call("finish_task", result="booked Rome")], ["Done."])
  second_runner = Runner(agent=coord, app_name="app", session_service=DatabaseSessionService(url))
  second = await run_turn(second_runner, "Rome")
  assert summary(second)[-2:] == [("user", "answer", "booker", {"result": "booked Rome"}), ("coord", "text", "Done.")]
  assert texts(booker_model.requests[0]) == ['user: {"request": "book a flight"}', "model: Where to?", "user: Rome"]
  assert {e.invocation_id for e in second} == {first[0].invocation_id}
  await second_runner.close()


async def test_after_a_task_finished_the_next_message_starts_a_new_invocation_at_the_coordinator():
  coord, coord_model, _ = booking([call("finish_task", result="ok")], [call("booker", request="b"), "Done.", "Hi!"])
  runner = InMemoryRunner(coord, app_name="app")
  first = await run_turn(runner, "book")
  later = await run_turn(runner, "hello")
  assert summary(later) == [("coord", "text", "Hi!")]
  assert later[0].invocation_id != first[0].invocation_id and later[0].isolation_scope is None


def test_mode_is_checked():
  with pytest.raises(ValueError):
    LlmAgent(name="x", mode="sometimes")


async def test_a_task_agent_as_a_graph_node_outputs_its_finish_task_result():
  from adk_nb import Workflow

  model = ScriptedModel([call("finish_task", result="booked Paris")])
  task = LlmAgent(name="booker", mode="task", model=model)
  received = []

  def after(node_input):
    received.append(node_input)
    return "ok"

  wf = Workflow(name="wf", edges=[("START", task, after)])
  assert next(n for n in wf.graph.nodes if n.name == "booker").wait_for_output  # as google-adk 2.13
  events = await run_turn(InMemoryRunner(wf, app_name="app"), "book a flight to Paris")
  assert received == [{"result": "booked Paris"}]
  assert texts(model.requests[0])[-1] == "user: book a flight to Paris"  # the node input is the task
  finished = next(e for e in events if e.output == {"result": "booked Paris"})
  assert finished.node_info.path == "wf@1/booker@1" and finished.get_function_responses()[0].name == "finish_task"
