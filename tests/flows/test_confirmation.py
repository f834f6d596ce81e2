"""Human in the loop: confirmation pauses, resumes in the same invocation, runs at most once."""

import json

import pytest
from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.agents import LoopAgent, ParallelAgent, SequentialAgent
from adk_nb.errors import (AnswerError, AnswersSpanInvocationsError, AnswerWithoutIdError,
                           CallAlreadyAnsweredError, UnknownCallError, WrongAnswerKindError)
from adk_nb.events import Event
from adk_nb.events.protocol import is_start_marker
from adk_nb.pending import answer_message, confirmation_response, tool_response
from adk_nb.sessions import InMemorySessionService
from adk_nb.testing import ScriptedModel, answer, call, pending, run_turn, session_of, summarize
from adk_nb.tools import FunctionTool, LongRunningFunctionTool, ToolContext


def make_refund(log):
  def refund(order_id: str, amount: float) -> dict:
    """Refunds an order."""
    log.append((order_id, amount))
    return {"refunded": amount}
  return refund


def approving_runner(model, log):
  """A runner whose one agent has a refund tool that always needs approval."""
  return InMemoryRunner(Agent(name="s", model=model,
                              tools=[FunctionTool(make_refund(log), require_confirmation=True)]), app_name="app")


async def paused_refund(after: str = "ok", amount: float = 500.0, session_id: str = "session"):
  """(runner, item, log, model): a refund of `amount` waiting for approval; the model then says `after`."""
  log = []
  model = ScriptedModel([call("refund", order_id="A", amount=amount), after])
  runner = approving_runner(model, log)
  await run_turn(runner, "refund", session_id=session_id)
  [item] = await pending(runner, session_id)
  return runner, item, log, model


async def reloaded(runner, agent):
  """A new Runner on a new store holding the session's events as JSON round-tripped (a new process)."""
  from adk_nb import Runner

  dumped = [e.model_dump_json(by_alias=True) for e in (await session_of(runner)).events]
  svc = InMemorySessionService()
  s = await svc.create_session(app_name="app", user_id="user", session_id="session")
  for raw in dumped:
    await svc.append_event(s, Event.model_validate(json.loads(raw)))
  return Runner(app_name="app", agent=agent, session_service=svc)


async def test_confirmation_pauses_with_adk_wire_format_then_approval_runs_the_tool_once():
  log = []
  model = ScriptedModel([call("refund", order_id="A1", amount=120.0), "Refunded 120."])
  tool = FunctionTool(make_refund(log), require_confirmation=lambda amount, **_: amount > 100)
  runner = InMemoryRunner(Agent(name="support", model=model, tools=[tool]), app_name="app")
  events = await run_turn(runner, "refund A1")
  assert log == []
  assert summarize(events) == [("user", "text", "refund A1"), ("support", "call", "refund"),
                               ("support", "confirm", "refund"), ("support", "needs_approval", "refund")]
  call_ev, request, placeholder = events[1:]
  original_id = call_ev.get_function_calls()[0].id
  assert placeholder.get_function_responses()[0].response == {
      "error": "This tool call requires confirmation, please approve or reject."}
  assert set(placeholder.actions.requested_tool_confirmations) == {original_id}
  req_call = request.get_function_calls()[0]
  assert req_call.name == "adk_request_confirmation" and request.long_running_tool_ids == {req_call.id}
  assert req_call.args["originalFunctionCall"] == {"id": original_id, "name": "refund",
                                                   "args": {"order_id": "A1", "amount": 120.0}}
  assert "toolConfirmation" in req_call.args
  [item] = await pending(runner)
  assert (item.kind, item.tool, item.args, item.agent) == ("confirmation", "refund",
                                                           {"order_id": "A1", "amount": 120.0}, "support")

  resumed = await answer(runner, [confirmation_response(item, True)])
  assert log == [("A1", 120.0)]
  assert {e.invocation_id for e in resumed} == {call_ev.invocation_id}
  result = [e for e in resumed if e.get_function_responses() and e.author != "user"][0]
  assert result.get_function_responses()[0].id == original_id
  assert result.get_function_responses()[0].response == {"refunded": 120.0}
  assert resumed[-1].text == "Refunded 120."
  # The model never saw the confirmation protocol or the placeholder answer.
  contents = model.requests[1].contents
  names = [p.function_call.name if p.function_call else p.function_response.name
           for c in contents for p in c.parts if p.function_call or p.function_response]
  assert names == ["refund", "refund"]
  assert contents[2].parts[0].function_response.response == {"refunded": 120.0}
  assert await pending(runner) == []


async def test_small_amounts_run_without_confirmation():
  log = []
  tool = FunctionTool(make_refund(log), require_confirmation=lambda amount, **_: amount > 100)
  model = ScriptedModel([call("refund", order_id="B", amount=5.0), "done"])
  events = await run_turn(InMemoryRunner(Agent(name="s", model=model, tools=[tool]), app_name="app"), "go")
  assert log == [("B", 5.0)] and events[-1].text == "done"


async def test_rejection_tells_the_model_and_the_tool_never_runs():
  runner, item, log, model = await paused_refund("Understood, no refund.")
  events = await answer(runner, [confirmation_response(item, False, payload={"reason": "over budget"})])
  assert log == []
  assert summarize(events) == [("user", "result", "adk_request_confirmation"), ("s", "result", "refund"),
                               ("s", "text", "Understood, no refund.")]
  assert events[1].get_function_responses()[0].response == {"error": "This tool call is rejected.",
                                                            "reason": "over budget"}
  assert events[-1].text == "Understood, no refund."


async def test_double_delivered_resume_is_refused_and_the_tool_runs_once():
  runner, item, log, model = await paused_refund("ok")
  await answer(runner, [confirmation_response(item, True)])
  before = len((await session_of(runner)).events)
  with pytest.raises(CallAlreadyAnsweredError, match="already answered"):
    await answer(runner, [confirmation_response(item, True)])
  assert log == [("A", 500.0)]
  assert len((await session_of(runner)).events) == before


async def test_an_approval_given_after_a_later_turn_runs_the_tool_once_and_the_model_answers():
  # The person chats on while an approval waits, then approves: the paused invocation resumes.
  log = []
  model = ScriptedModel([call("refund", order_id="A", amount=500.0), "It waits for approval.", "Refunded."])
  runner = approving_runner(model, log)
  await run_turn(runner, "refund A")
  [item] = await pending(runner)
  await run_turn(runner, "is it done?")
  assert [i.call_id for i in await pending(runner)] == [item.call_id]
  events = await answer(runner, [confirmation_response(item, True)])
  assert log == [("A", 500.0)]
  assert summarize(events) == [("user", "result", "adk_request_confirmation"), ("s", "started", ""),
                               ("s", "result", "refund"), ("s", "text", "Refunded.")]
  assert {e.invocation_id for e in events} == {item.invocation_id}
  assert await pending(runner) == []


async def test_retry_after_a_crash_mid_tool_tells_the_model_it_may_have_run_and_does_not_run_it_again():
  runner, item, log, model = await paused_refund("I could not confirm the refund.")
  # A run that committed the start marker and stopped before the result was committed.
  agen = runner.run_async(user_id="user", session_id="session",
                          new_message=answer_message([confirmation_response(item, True)]))
  async for event in agen:
    if is_start_marker(event):
      break
  await agen.aclose()
  assert log == []  # the marker is committed before the tool runs
  [again] = await pending(runner)
  assert again.call_id == item.call_id and again.may_have_run
  out = await answer(runner, [confirmation_response(again, True)])
  assert log == []
  [note] = [r.response["error"] for e in out if e.author != "user" for r in e.get_function_responses()]
  assert "may have run" in note and "not run again" in note
  assert out[-1].text == "I could not confirm the refund."
  assert await pending(runner) == []


async def test_edited_arguments_are_used_when_approved():
  runner, item, log, model = await paused_refund("Refunded 50.")
  await answer(runner, [confirmation_response(item, True, payload={"arguments": {"order_id": "A", "amount": 50.0}})])
  assert log == [("A", 50.0)]


async def test_malformed_answer_fails_closed():
  runner, item, log, model = await paused_refund("ok")
  bad = types.Part(function_response=types.FunctionResponse(
      id=item.call_id, name="adk_request_confirmation", response={"confirmed": "yes please"}))
  events = await answer(runner, [bad])
  assert log == []
  assert "rejection" in events[1].get_function_responses()[0].response["error"]


async def test_unknown_call_id_changes_nothing():
  runner = InMemoryRunner(Agent(name="s", model=ScriptedModel(["hi"])), app_name="app")
  await run_turn(runner, "hello")
  before = len((await session_of(runner)).events)
  bogus = types.Part(function_response=types.FunctionResponse(id="nope", name="adk_request_confirmation",
                                                               response={"confirmed": True}))
  with pytest.raises(UnknownCallError, match="No pending call has id 'nope'"):
    await answer(runner, [bogus])
  assert len((await session_of(runner)).events) == before


async def test_several_pending_confirmations_answered_one_at_a_time():
  log = []
  model = ScriptedModel([[call("refund", order_id="A", amount=1.0), call("refund", order_id="B", amount=2.0)],
                         "both handled"])
  runner = approving_runner(model, log)
  await run_turn(runner, "refund both")
  items = await pending(runner)
  assert [i.args["order_id"] for i in items] == ["A", "B"]
  first = await answer(runner, [confirmation_response(items[0], True)])
  assert log == [("A", 1.0)] and len(model.requests) == 1  # still waiting for B: no model call yet
  assert [i.args["order_id"] for i in await pending(runner)] == ["B"]
  await answer(runner, [confirmation_response(items[1], False)])
  assert log == [("A", 1.0)] and len(model.requests) == 2
  sent = [p.function_response.response for c in model.requests[1].contents for p in c.parts if p.function_response]
  assert sent == [{"refunded": 1.0}, {"error": "This tool call is rejected."}]
  # Both answers reach the model in one user turn, right after the turn that made both calls.
  assert [len(c.parts) for c in model.requests[1].contents] == [1, 2, 2]
  assert first[0].invocation_id == items[0].invocation_id


async def test_tool_can_request_confirmation_itself_with_a_payload():
  def transfer_money(amount: float, tool_context: ToolContext) -> dict:
    confirmation = tool_context.tool_confirmation
    if confirmation is None:
      tool_context.request_confirmation(hint=f"Send {amount}?", payload={"approver": ""})
      return {"status": "waiting"}
    return {"sent": amount, "approved_by": confirmation.payload["approver"]}

  model = ScriptedModel([call("transfer_money", amount=9.0), "sent"])
  runner = InMemoryRunner(Agent(name="bank", model=model, tools=[transfer_money]), app_name="app")
  await run_turn(runner, "send")
  [item] = await pending(runner)
  assert item.hint == "Send 9.0?" and item.payload == {"approver": ""}
  events = await answer(runner, [confirmation_response(item, True, payload={"approver": "ann"})])
  result = [e for e in events if e.get_function_responses() and e.author != "user"][0].get_function_responses()[0].response
  assert result == {"sent": 9.0, "approved_by": "ann"}


async def test_a_tool_that_asked_itself_is_called_again_on_rejection_and_decides_the_answer():
  seen = []

  def transfer_money(amount: float, tool_context: ToolContext) -> dict:
    confirmation = tool_context.tool_confirmation
    seen.append(None if confirmation is None else confirmation.confirmed)
    if confirmation is None:
      tool_context.request_confirmation(hint=f"Send {amount}?")
      return {"status": "waiting"}
    return {"sent": amount} if confirmation.confirmed else {"status": "cancelled by the customer"}

  model = ScriptedModel([call("transfer_money", amount=9.0), "Cancelled."])
  runner = InMemoryRunner(Agent(name="bank", model=model, tools=[transfer_money]), app_name="app")
  await run_turn(runner, "send")
  [item] = await pending(runner)
  await answer(runner, [confirmation_response(item, False)])
  assert seen == [None, False]
  sent = [p.function_response.response for c in model.requests[1].contents for p in c.parts if p.function_response]
  assert sent[-1] == {"status": "cancelled by the customer"}


async def test_long_running_tool_ends_the_turn_and_a_later_answer_resumes_the_invocation():
  def start_job(name: str):
    """Starts a background job; the result arrives later."""
    return None

  model = ScriptedModel([call("start_job", name="report"), "The report is ready: 42 pages."])
  runner = InMemoryRunner(Agent(name="ops", model=model, tools=[LongRunningFunctionTool(start_job)]), app_name="app")
  events = await run_turn(runner, "make report")
  assert events[-1].long_running_tool_ids and len(model.requests) == 1
  [item] = await pending(runner)
  assert item.kind == "long_running" and item.tool == "start_job"
  later = await answer(runner, [tool_response(item, {"pages": 42})])
  assert later[0].invocation_id == events[0].invocation_id
  assert later[-1].text == "The report is ready: 42 pages."
  assert model.requests[1].contents[-1].parts[0].function_response.response == {"pages": 42}


async def test_an_answer_without_id_is_matched_to_the_one_pending_call_of_that_name():
  def start_job(name: str):
    """Starts a background job; the result arrives later."""
    return None

  model = ScriptedModel([call("start_job", name="report"), "Ready."])
  runner = InMemoryRunner(Agent(name="ops", model=model, tools=[LongRunningFunctionTool(start_job)]), app_name="app")
  await run_turn(runner, "make report")
  [item] = await pending(runner)
  with pytest.raises(AnswerWithoutIdError):  # no pending call of that name: nothing to match it to
    await answer(runner, [types.Part(function_response=types.FunctionResponse(name="other_job", response={}))])
  later = await answer(runner, [types.Part(function_response=types.FunctionResponse(
      name="start_job", response={"pages": 42}))])
  assert later[-1].text == "Ready." and await pending(runner) == []
  stored = (await session_of(runner)).events
  assert [r.id for e in stored for r in e.get_function_responses()] == [item.call_id]
  assert model.requests[1].contents[-1].parts[0].function_response.response == {"pages": 42}


async def test_long_running_tool_returning_a_value_continues_at_once():
  model = ScriptedModel([call("quick"), "done"])
  runner = InMemoryRunner(Agent(name="ops", model=model, tools=[LongRunningFunctionTool(lambda: {"ok": 1})]),
                          app_name="app")
  # a lambda's name is '<lambda>': name the function properly instead
  def quick():
    return {"ok": 1}
  runner = InMemoryRunner(Agent(name="ops", model=model, tools=[LongRunningFunctionTool(quick)]), app_name="app")
  events = await run_turn(runner, "go")
  assert events[-1].text == "done"


async def test_pause_inside_sequential_stops_the_next_agent_until_answered():
  log = []
  first = Agent(name="first", model=ScriptedModel([call("refund", order_id="A", amount=1.0), "refund done"]),
                tools=[FunctionTool(make_refund(log), require_confirmation=True)])
  second_model = ScriptedModel(["second ran"])
  seq = SequentialAgent(name="seq", sub_agents=[first, Agent(name="second", model=second_model)])
  runner = InMemoryRunner(seq, app_name="app")
  await run_turn(runner, "go")
  assert second_model.requests == []
  [item] = await pending(runner)
  events = await answer(runner, [confirmation_response(item, True)])
  assert log == [("A", 1.0)]
  assert [e.author for e in events if e.text] == ["first", "second"]
  assert [e.text for e in events if e.text] == ["refund done", "second ran"]


async def test_pause_inside_loop_resumes_the_same_iteration():
  log = []
  worker = Agent(name="worker", model=ScriptedModel([call("refund", order_id="A", amount=1.0), "did it",
                                                     call("exit_loop")]),
                 tools=[FunctionTool(make_refund(log), require_confirmation=True), __import__("adk_nb.tools", fromlist=["exit_loop"]).exit_loop])
  loop = LoopAgent(name="loop", max_iterations=3, sub_agents=[worker])
  runner = InMemoryRunner(loop, app_name="app")
  await run_turn(runner, "go")
  [item] = await pending(runner)
  events = await answer(runner, [confirmation_response(item, True)])
  assert log == [("A", 1.0)]
  assert events[-1].actions.escalate


async def test_pause_in_one_parallel_branch_lets_siblings_finish_and_resumes_only_that_branch():
  log = []
  a = Agent(name="a", model=ScriptedModel([call("refund", order_id="A", amount=1.0), "a done"]),
            tools=[FunctionTool(make_refund(log), require_confirmation=True)])
  b_model = ScriptedModel(["b done"])
  par = ParallelAgent(name="par", sub_agents=[a, Agent(name="b", model=b_model)])
  after_model = ScriptedModel(["after"])
  seq = SequentialAgent(name="seq", sub_agents=[par, Agent(name="after", model=after_model)])
  runner = InMemoryRunner(seq, app_name="app")
  first = await run_turn(runner, "go")
  assert "b done" in [e.text for e in first] and after_model.requests == []
  [item] = await pending(runner)
  events = await answer(runner, [confirmation_response(item, True)])
  assert [e.text for e in events if e.text] == ["a done", "after"]
  assert len(b_model.requests) == 1


async def test_pending_confirmation_survives_a_new_runner_and_a_new_session_service():
  log = []
  agent_model = ScriptedModel([call("refund", order_id="A", amount=1.0), "done"])
  agent = Agent(name="s", model=agent_model, tools=[FunctionTool(make_refund(log), require_confirmation=True)])
  runner = InMemoryRunner(agent, app_name="app")
  await run_turn(runner, "refund")
  # A different process: a new store loaded from the serialised events, a new Runner.
  runner2 = await reloaded(runner, agent)
  [item] = await pending(runner2)
  events = await answer(runner2, [confirmation_response(item, True)])
  assert log == [("A", 1.0)] and events[-1].text == "done"


async def test_pause_inside_agent_tool_surfaces_to_the_top_and_resumes_the_nested_agent():
  log = []
  child_model = ScriptedModel([call("refund", order_id="N1", amount=300.0), "child: refunded"])
  child = Agent(name="refunder", description="Issues refunds.", model=child_model,
                tools=[FunctionTool(make_refund(log), require_confirmation=True)])
  from adk_nb.tools import AgentTool
  parent_model = ScriptedModel([call("refunder", request="refund N1"), "parent: all done"])
  parent = Agent(name="desk", model=parent_model, tools=[AgentTool(child)])
  runner = InMemoryRunner(parent, app_name="app")
  first = await run_turn(runner, "please refund N1")
  # The pause is not swallowed (google-adk issue 7245): the top-level session is waiting.
  assert log == [] and len(parent_model.requests) == 1
  [item] = await pending(runner)
  assert item.kind == "confirmation" and item.tool == "refund" and item.nested
  assert item.args == {"order_id": "N1", "amount": 300.0}
  # Survives a new Runner and store built from the serialised events (another process).
  runner2 = await reloaded(runner, parent)
  events = await answer(runner2, [confirmation_response(item, True)])
  assert log == [("N1", 300.0)]
  assert {e.invocation_id for e in events} == {first[0].invocation_id}
  response = [e for e in events if e.author == "desk" and e.get_function_responses()][0]
  assert response.get_function_responses()[0].response == {"result": "child: refunded"}
  assert events[-1].text == "parent: all done"
  # The parent's model saw its own call and the tool's answer, not the nested protocol.
  names = [p.function_call.name if p.function_call else p.function_response.name
           for c in parent_model.requests[1].contents for p in c.parts if p.function_call or p.function_response]
  assert names == ["refunder", "refunder"]
  assert await pending(runner2) == []


async def test_long_running_call_inside_agent_tool_is_answered_from_the_top():
  def start_job(name: str):
    """Starts a job."""
    return None

  child_model = ScriptedModel([call("start_job", name="x"), "child: job finished with 7"])
  child = Agent(name="worker", model=child_model, tools=[LongRunningFunctionTool(start_job)])
  from adk_nb.tools import AgentTool
  parent_model = ScriptedModel([call("worker", request="run x"), "parent: 7"])
  runner = InMemoryRunner(Agent(name="boss", model=parent_model, tools=[AgentTool(child)]), app_name="app")
  await run_turn(runner, "go")
  [item] = await pending(runner)
  assert item.kind == "long_running" and item.tool == "start_job" and item.nested
  events = await answer(runner, [tool_response(item, {"value": 7})])
  assert events[-1].text == "parent: 7"
  assert child_model.requests[1].contents[-1].parts[0].function_response.response == {"value": 7}


async def test_each_unmatchable_answer_raises_its_own_value_error_and_commits_nothing():
  runner, item, log, _ = await paused_refund(session_id="one")
  before = len((await session_of(runner, "one")).events)
  no_id = types.Part(function_response=types.FunctionResponse(name="adk_request_confirmation",
                                                              response={"confirmed": True}))
  as_result = types.Part(function_response=types.FunctionResponse(id=item.call_id, name="refund",
                                                                   response={"ok": True}))
  cases = [(no_id, AnswerWithoutIdError, "ANSWER_WITHOUT_ID"), (as_result, WrongAnswerKindError, "WRONG_ANSWER_KIND")]
  for part, error, code in cases:
    with pytest.raises(error) as raised:
      await answer(runner, [part], session_id="one")
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, AnswerError)
    assert raised.value.error_code == code
  assert len((await session_of(runner, "one")).events) == before
  assert log == []


async def test_answers_for_two_paused_invocations_in_one_message_are_refused():
  model = ScriptedModel([call("refund", order_id="A", amount=1.0), call("refund", order_id="B", amount=2.0)])
  runner = approving_runner(model, [])
  await run_turn(runner, "refund A")
  await run_turn(runner, "refund B")
  first, second = await pending(runner)
  assert first.invocation_id != second.invocation_id
  with pytest.raises(AnswersSpanInvocationsError, match="several paused invocations"):
    await answer(runner, [confirmation_response(first, True), confirmation_response(second, True)])


# -- fail closed: a rejection never runs the call, whatever the code says at resume time --------

@pytest.mark.parametrize("redeployed", [
    FunctionTool(make_refund([]), require_confirmation=False),
    FunctionTool(make_refund([]), require_confirmation=lambda amount, **_: amount > 10_000),
    make_refund([]),  # a plain function: no confirmation setting at all
], ids=["require_confirmation_off", "predicate_now_says_no", "plain_function"])
async def test_a_rejection_recorded_under_require_confirmation_never_runs_the_redeployed_tool(redeployed):
  from adk_nb import Runner

  runner, item, _, _ = await paused_refund(after="unused")
  # Redeployed: same tool name, but its code no longer asks for approval. The log is the new tool's.
  log = []
  tool = make_refund(log)
  if isinstance(redeployed, FunctionTool):
    tool = FunctionTool(tool, require_confirmation=redeployed._require_confirmation)
  model = ScriptedModel(["Not refunded."])
  later = Runner(app_name="app", agent=Agent(name="s", model=model, tools=[tool]),
                 session_service=runner.session_service)
  await answer(later, [confirmation_response(item, False)])
  assert log == []  # the person said no: the refund did not run
  sent = [p.function_response.response for c in model.requests[0].contents for p in c.parts
          if p.function_response and p.function_response.name == "refund"]
  assert sent[-1] == {"error": "This tool call is rejected."}
  assert await pending(later) == []
