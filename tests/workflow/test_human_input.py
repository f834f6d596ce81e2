"""RequestInput inside graphs: the turn pauses as `adk_request_input`, the answer resumes the same invocation."""

import pytest
from google.genai import types

from adk_nb import InMemoryRunner, Runner, Workflow
from adk_nb.events import RequestInput
from adk_nb.pending import pending_items
from adk_nb.testing import run_turn
from adk_nb.workflow import JoinNode, node


def answer(call_id, response):
  return types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
      id=call_id, name="adk_request_input", response=response))])


def outputs(events):
  return [(e.node_info.path, e.output) for e in events if e.output is not None]


async def pending(runner, session_id="session"):
  session = await runner.session_service.get_session(app_name=runner.app_name, user_id="user",
                                                     session_id=session_id)
  return pending_items(session.events)


def approval_workflow(runs):
  def draft(node_input: str):
    runs.append("draft")
    return "draft of " + node_input

  async def approve(node_input):
    runs.append("approve")
    yield RequestInput(message="Publish?", payload={"text": node_input})
    runs.append("code after the yield")

  def publish(node_input):
    runs.append("publish")
    return f"published: {node_input['approved']}"

  return Workflow(name="wf", edges=[("START", draft, approve, publish)])


async def test_a_request_pauses_the_turn_and_the_answer_resumes_the_same_invocation():
  runs = []
  runner = InMemoryRunner(approval_workflow(runs), app_name="app")
  first = await run_turn(runner, "post")
  calls = [c for e in first for c in e.get_function_calls()]
  assert [c.name for c in calls] == ["adk_request_input"]
  assert calls[0].args["message"] == "Publish?" and calls[0].args["payload"] == {"text": "draft of post"}
  request_event = next(e for e in first if e.get_function_calls())
  assert request_event.long_running_tool_ids == {calls[0].id}
  assert runs == ["draft", "approve"]  # the node stopped at its request
  [item] = await pending(runner)
  assert (item.call_id, item.tool) == (calls[0].id, "adk_request_input")

  second = await run_turn(runner, answer(calls[0].id, {"approved": True}))
  assert runs == ["draft", "approve", "publish"]  # draft was not run again
  assert outputs(second) == [("wf@1/approve@1", {"approved": True}), ("wf@1/publish@1", "published: True")]
  assert {e.invocation_id for e in second} == {first[0].invocation_id}
  assert await pending(runner) == []


async def test_a_rerun_on_resume_node_runs_again_with_resume_inputs():
  seen = []

  @node(rerun_on_resume=True)
  async def ask(ctx, node_input):
    seen.append(dict(ctx.resume_inputs))
    if "q1" not in ctx.resume_inputs:
      yield RequestInput(interrupt_id="q1", message="Name?")
      return
    yield f"hello {ctx.resume_inputs['q1']['name']}"

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", ask)]), app_name="app")
  await run_turn(runner, "go")
  events = await run_turn(runner, answer("q1", {"name": "Ada"}))
  assert seen == [{}, {"q1": {"name": "Ada"}}]
  assert outputs(events) == [("wf@1/ask@1", "hello Ada")]


async def test_a_pause_in_one_branch_keeps_the_siblings_results_and_the_join_fires_after_the_answer():
  runs = []

  def fast(node_input):
    runs.append("fast")
    return "fast result"

  async def gate(node_input):
    runs.append("gate")
    yield RequestInput(interrupt_id="gate-1", message="ok?")

  def merge(node_input):
    return node_input

  wf = Workflow(name="wf", edges=[("START", (fast, gate), JoinNode(name="join"), merge)])
  runner = InMemoryRunner(wf, app_name="app")
  first = await run_turn(runner, "go")
  assert ("wf@1/fast@1", "fast result") in outputs(first)
  second = await run_turn(runner, answer("gate-1", {"ok": True}))
  assert sorted(runs) == ["fast", "gate"]  # each ran once: nothing re-ran on resume
  assert outputs(second)[-1] == ("wf@1/merge@1", {"fast": "fast result", "gate": {"ok": True}})


async def test_repeated_requests_in_a_loop_get_distinct_ids_and_never_deadlock():
  @node(rerun_on_resume=True)
  async def review(ctx, node_input):
    key = f"review:{ctx.run_id}"
    if key not in ctx.resume_inputs:
      yield RequestInput(interrupt_id=key, message=f"Round {ctx.run_id}: approve?")
      return
    ctx.route = "done" if ctx.resume_inputs[key]["ok"] else "again"
    yield ctx.run_id

  def done(node_input):
    return f"approved in round {node_input}"

  wf = Workflow(name="wf", edges=[("START", review), (review, {"again": review, "done": done})])
  runner = InMemoryRunner(wf, app_name="app")
  events = await run_turn(runner, "go")
  invocation = events[0].invocation_id
  ids = []
  for ok in (False, False, True):
    [item] = await pending(runner)
    ids.append(item.call_id)
    events = await run_turn(runner, answer(item.call_id, {"ok": ok}))
    assert {e.invocation_id for e in events} == {invocation}
  assert ids == ["review:1", "review:2", "review:3"]
  assert outputs(events)[-1] == ("wf@1/done@1", "approved in round 3")


async def test_a_paused_workflow_resumes_from_a_new_runner_on_a_database(tmp_path):
  from adk_nb.sessions import DatabaseSessionService

  url = f"sqlite:///{tmp_path / 'sessions.db'}"
  runs = []
  first_runner = Runner(agent=approval_workflow(runs), app_name="app", session_service=DatabaseSessionService(url))
  await run_turn(first_runner, "post")
  await first_runner.close()

  runs_after = []
  second_runner = Runner(agent=approval_workflow(runs_after), app_name="app",
                         session_service=DatabaseSessionService(url))
  [item] = await pending(second_runner)
  events = await run_turn(second_runner, answer(item.call_id, {"approved": "yes"}))
  assert runs_after == ["publish"]
  assert outputs(events)[-1] == ("wf@1/publish@1", "published: yes")
  await second_runner.close()


async def test_resume_by_invocation_id_with_an_answer_already_in_the_session():
  from adk_nb.events import Event

  runs = []
  runner = InMemoryRunner(approval_workflow(runs), app_name="app")
  first = await run_turn(runner, "post")
  [item] = await pending(runner)
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  await runner.session_service.append_event(session, Event(invocation_id=item.invocation_id, author="user",
                                                           content=answer(item.call_id, {"approved": 1})))
  events = [e async for e in runner.run_async(user_id="user", session_id="session",
                                              invocation_id=first[0].invocation_id)]
  assert outputs(events)[-1] == ("wf@1/publish@1", "published: 1")
  assert runs == ["draft", "approve", "publish"]


async def test_a_resume_reads_only_the_resumed_invocation():
  runs = []
  runner = InMemoryRunner(approval_workflow(runs), app_name="app")
  await run_turn(runner, "first post")
  [old] = await pending(runner)
  await run_turn(runner, "second post")  # a new message starts a new invocation from START
  items = await pending(runner)
  assert len(items) == 2
  events = await run_turn(runner, answer(old.call_id, {"approved": "old"}))
  assert {e.invocation_id for e in events} == {old.invocation_id}
  assert outputs(events)[-1] == ("wf@1/publish@1", "published: old")
  assert runs.count("draft") == 2 and runs.count("publish") == 1


async def test_an_answer_for_an_unknown_interrupt_fails_and_changes_nothing():
  runner = InMemoryRunner(approval_workflow([]), app_name="app")
  await run_turn(runner, "post")
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  before = len(session.events)
  with pytest.raises(ValueError, match=r"No pending call has id 'nope' in session .* \(Function call not found\)"):
    await run_turn(runner, answer("nope", {}))
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert len(session.events) == before


async def test_a_pause_inside_a_nested_workflow_resumes_through_the_outer_one():
  runs = []

  def before(node_input: str):
    runs.append("before")
    return node_input

  async def ask(node_input):
    runs.append("ask")
    yield RequestInput(interrupt_id="inner-q", message="?")

  def after(node_input):
    runs.append("after")
    return {"inner answer": node_input}

  inner = Workflow(name="inner", edges=[("START", ask)])
  outer = Workflow(name="outer", edges=[("START", before, inner, after)])
  runner = InMemoryRunner(outer, app_name="app")
  first = await run_turn(runner, "go")
  request = next(e for e in first if e.get_function_calls())
  assert (request.author, request.node_info.path) == ("inner", "outer@1/inner@1/ask@1")
  events = await run_turn(runner, answer("inner-q", {"x": 1}))
  assert runs == ["before", "ask", "after"]
  assert outputs(events)[-1] == ("outer@1/after@1", {"inner answer": {"x": 1}})


def review_loop(seen):
  """A node asking 'review' each round (google-adk's loop pattern): 'revise' loops, 'approve' ends."""
  @node(rerun_on_resume=True)
  async def review(ctx, node_input):
    if "review" not in ctx.resume_inputs:
      yield RequestInput(interrupt_id="review", message="Approve or revise?")
      return
    seen.append((ctx.node_path, ctx.resume_inputs["review"]))
    ctx.route = ctx.resume_inputs["review"]
    yield ctx.resume_inputs["review"]

  def done(node_input):
    return f"done: {node_input}"

  return Workflow(name="wf", edges=[("START", review), (review, {"revise": review, "approve": done})])


async def test_an_interrupt_id_asked_again_after_its_answer_waits_for_a_new_answer():
  seen = []
  runner = InMemoryRunner(review_loop(seen), app_name="app")
  await run_turn(runner, "go")
  second = await run_turn(runner, answer("review", {"result": "revise"}))
  # The first answer went to the first request only: the second request is open and waits.
  assert seen == [("wf@1/review@1", "revise")]
  assert [e.node_info.path for e in second if e.long_running_tool_ids] == ["wf@1/review@2"]
  assert [(i.call_id, i.invocation_id) for i in await pending(runner)] == [("review", second[-1].invocation_id)]
  third = await run_turn(runner, answer("review", {"result": "approve"}))
  assert seen == [("wf@1/review@1", "revise"), ("wf@1/review@2", "approve")]
  assert outputs(third)[-1] == ("wf@1/done@1", "done: approve")
  assert await pending(runner) == []
  with pytest.raises(ValueError, match="'review' was already answered; nothing was changed"):
    await run_turn(runner, answer("review", {"result": "revise"}))


async def test_a_run_that_asks_again_keeps_its_earlier_answers_across_invocations_as_in_google_adk():
  @node(rerun_on_resume=True)
  async def form(ctx, node_input):
    for field in ("name", "age"):
      if field not in ctx.resume_inputs:
        yield RequestInput(interrupt_id=field, message=f"{field}?")
        return
    yield {"name": ctx.resume_inputs["name"], "age": ctx.resume_inputs["age"]}

  def after(node_input):
    return node_input

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", form, after)]), app_name="app")
  await run_turn(runner, "go")
  second = await run_turn(runner, answer("name", {"result": "Ada"}))
  assert [c.id for e in second for c in e.get_function_calls()] == ["age"]
  third = await run_turn(runner, answer("age", {"result": 36}))
  assert outputs(third)[-1] == ("wf@1/after@1", {"name": "Ada", "age": 36})
  assert await pending(runner) == []


async def test_two_open_requests_with_one_interrupt_id_fail_with_the_fix():
  async def left(node_input):
    yield RequestInput(interrupt_id="ok", message="left?")

  async def right(node_input):
    yield RequestInput(interrupt_id="ok", message="right?")

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", left), ("START", right)]), app_name="app")
  try:
    await run_turn(runner, "go")
  except ValueError:
    pass  # raised once the Runner follows google-adk's error contract
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  error = next(e for e in session.events if e.error_code == "WorkflowDataError")
  assert "still open" in error.error_message
  assert "interrupt_id=f'ok:{ctx.run_id}'" in error.error_message


async def test_a_request_asked_again_in_a_cut_off_pass_does_not_take_the_earlier_answer():
  import asyncio
  import contextlib

  seen = []
  runner = InMemoryRunner(review_loop(seen), app_name="app")
  paused = await run_turn(runner, "go")
  invocation_id = paused[-1].invocation_id
  stop = asyncio.Event()
  original = runner.session_service.append_event

  async def append_then_stop(session, event):  # the process stops once the second request is committed
    result = await original(session, event)
    if event.long_running_tool_ids:
      stop.set()
      await asyncio.Event().wait()
    return result

  async def resume():
    async for _ in runner.run_async(user_id="user", session_id="session",
                                    new_message=answer("review", {"result": "revise"})):
      pass

  runner.session_service.append_event = append_then_stop
  task = asyncio.ensure_future(resume())
  await stop.wait()
  task.cancel()
  with contextlib.suppress(asyncio.CancelledError):
    await task
  runner.session_service.append_event = original
  assert seen == [("wf@1/review@1", "revise")]

  # Continuing: the second request waits again; the first answer ('revise') does not answer it.
  events = [e async for e in runner.run_async(user_id="user", session_id="session", invocation_id=invocation_id)]
  assert seen == [("wf@1/review@1", "revise")]
  assert [i.call_id for i in await pending(runner)] == ["review"]
  final = await run_turn(runner, answer("review", {"result": "approve"}))
  assert seen == [("wf@1/review@1", "revise"), ("wf@1/review@2", "approve")]
  assert outputs(final)[-1] == ("wf@1/done@1", "done: approve")
  assert events is not None


async def test_a_pause_after_an_agent_node_resumes_without_calling_the_model_again():
  from adk_nb.agents import LlmAgent
  from adk_nb.models import ScriptedModel

  model = ScriptedModel(["Draft: otters are great."])
  writer = LlmAgent(name="writer", model=model)

  async def approve(node_input: str):
    yield RequestInput(interrupt_id="ok-1", payload=node_input)

  def publish(ctx, node_input):
    return f"{ctx.user_content is not None} {node_input}"

  def shape(node_input: str):
    return f"Write about: {node_input}"

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", shape, writer, approve, publish)]), app_name="app")
  first = await run_turn(runner, "otters")
  assert next(c for e in first for c in e.get_function_calls()).args["payload"] == "Draft: otters are great."
  events = await run_turn(runner, answer("ok-1", {"go": True}))
  assert outputs(events)[-1] == ("wf@1/publish@1", "True {'go': True}")
  assert len(model.requests) == 1
  model.assert_complete()


async def test_an_answer_is_accepted_once_and_a_node_cut_off_mid_run_is_reported_as_may_have_run():
  import asyncio
  import contextlib

  from adk_nb.workflow._errors import NodeMayHaveRunError

  charges = []
  started = asyncio.Event()

  async def ask(node_input):
    yield RequestInput(interrupt_id="charge-ok", message="Charge the card?")

  async def charge(node_input):
    charges.append(node_input)
    if len(charges) == 1:
      started.set()
      await asyncio.Event().wait()  # the process stops here (the run is cancelled)
    return "charged"

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", ask, charge)]), app_name="app")
  paused = await run_turn(runner, "go")
  invocation_id = paused[-1].invocation_id

  async def resume():
    async for _ in runner.run_async(user_id="user", session_id="session", new_message=answer("charge-ok", {"ok": 1})):
      pass

  task = asyncio.ensure_future(resume())
  await started.wait()
  task.cancel()
  with contextlib.suppress(asyncio.CancelledError):
    await task

  # The same answer again is refused, and changes nothing.
  refused = r"'charge-ok' was already answered; nothing was changed\. .*run_async\(invocation_id=\.\.\.\)"
  with pytest.raises(ValueError, match=refused):
    await run_turn(runner, answer("charge-ok", {"ok": 1}))
  # Continuing the invocation does not run charge again: it may have run, and the run says so.
  with pytest.raises(NodeMayHaveRunError, match=r"node 'wf@1/charge@1' was started .* It may have run"):
    async for _ in runner.run_async(user_id="user", session_id="session", invocation_id=invocation_id):
      pass
  assert charges == [{"ok": 1}]
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  answers = [r for e in session.events for r in e.get_function_responses() if r.id == "charge-ok"]
  assert len(answers) == 1
  assert [p for p, _ in outputs(session.events)] == ["wf@1/ask@1"]  # ask's output was not emitted twice
  assert session.events[-1].error_code == "NodeMayHaveRunError"


async def test_continuing_an_invocation_cut_off_before_any_node_ran_runs_the_rest_once():
  import asyncio
  import contextlib

  runs = []
  stop = asyncio.Event()

  async def ask(node_input):
    yield RequestInput(interrupt_id="go-on", message="Go on?")

  def after(node_input):
    runs.append(node_input)
    return "done"

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", ask, after)]), app_name="app")
  paused = await run_turn(runner, "go")
  invocation_id = paused[-1].invocation_id

  async def resume():  # cut off as soon as the answer is committed, before the workflow runs
    async for _ in runner.run_async(user_id="user", session_id="session", new_message=answer("go-on", {"y": 1})):
      pass

  original = runner.session_service.append_event

  async def append_then_stop(session, event):
    result = await original(session, event)
    if event.get_function_responses():
      stop.set()
      await asyncio.Event().wait()
    return result

  runner.session_service.append_event = append_then_stop
  task = asyncio.ensure_future(resume())
  await stop.wait()
  task.cancel()
  with contextlib.suppress(asyncio.CancelledError):
    await task
  runner.session_service.append_event = original

  events = [e async for e in runner.run_async(user_id="user", session_id="session", invocation_id=invocation_id)]
  assert outputs(events) == [("wf@1/ask@1", {"y": 1}), ("wf@1/after@1", "done")]
  assert runs == [{"y": 1}]


async def test_an_approved_node_cut_off_mid_run_is_not_run_again_when_the_invocation_continues():
  import asyncio
  import contextlib

  from adk_nb.workflow._errors import NodeMayHaveRunError

  charges = []
  started = asyncio.Event()

  @node(require_confirmation=True)
  async def charge(node_input):
    charges.append("charge")
    if len(charges) == 1:
      started.set()
      await asyncio.Event().wait()  # the process stops here (the run is cancelled)
    return "charged"

  runner = InMemoryRunner(Workflow(name="wf", edges=[("START", charge)]), app_name="app")
  paused = await run_turn(runner, "go")
  [item] = await pending(runner)

  async def resume():
    approval = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id=item.call_id, name="adk_request_input", response={"confirmed": True}))])
    async for _ in runner.run_async(user_id="user", session_id="session", new_message=approval):
      pass

  task = asyncio.ensure_future(resume())
  await started.wait()
  task.cancel()
  with contextlib.suppress(asyncio.CancelledError):
    await task
  with pytest.raises(NodeMayHaveRunError, match="'wf@1/charge@1' was started"):
    async for _ in runner.run_async(user_id="user", session_id="session", invocation_id=paused[-1].invocation_id):
      pass
  assert charges == ["charge"]


async def test_a_nested_workflow_cut_off_mid_run_replays_its_own_finished_nodes_and_reports_the_cut_one():
  import asyncio
  import contextlib

  from adk_nb.workflow._errors import NodeMayHaveRunError

  runs = []
  started = asyncio.Event()

  async def ask(node_input):
    yield RequestInput(interrupt_id="inner-ok", message="Go?")

  async def after(node_input):
    runs.append("after")
    if len(runs) == 1:
      started.set()
      await asyncio.Event().wait()  # the process stops here (the run is cancelled)
    return "after done"

  inner = Workflow(name="inner", edges=[("START", ask, after)])
  runner = InMemoryRunner(Workflow(name="outer", edges=[("START", inner)]), app_name="app")
  paused = await run_turn(runner, "go")

  async def resume():
    async for _ in runner.run_async(user_id="user", session_id="session", new_message=answer("inner-ok", {"y": 1})):
      pass

  task = asyncio.ensure_future(resume())
  await started.wait()
  task.cancel()
  with contextlib.suppress(asyncio.CancelledError):
    await task
  with pytest.raises(NodeMayHaveRunError, match="'outer@1/inner@1/after@1' was started"):
    async for _ in runner.run_async(user_id="user", session_id="session", invocation_id=paused[-1].invocation_id):
      pass
  assert runs == ["after"]
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert [p for p, _ in outputs(session.events)] == ["outer@1/inner@1/ask@1"]
