"""Regression tests from the core review: pause scoping, invocation limits, resume edge cases,
request isolation, templating and FunctionTool signatures (each once reproduced a bug)."""

import asyncio
import functools

import pytest
from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.agents import LoopAgent, ParallelAgent, SequentialAgent
from adk_nb.agents.invocation_context import LlmCallsLimitExceededError
from adk_nb.agents.run_config import RunConfig
from adk_nb.pending import answer_message, confirmation_response, pending_items
from adk_nb.testing import ScriptedModel, call, run_turn
from adk_nb.tools import FunctionTool, LongRunningFunctionTool


async def session_of(runner, sid="session"):
  return await runner.session_service.get_session(app_name=runner.app_name, user_id="user", session_id=sid)


async def pending(runner, sid="session"):
  return pending_items((await session_of(runner, sid)).events)


def confirm_tool(log, name="refund"):
  def refund(order_id: str) -> dict:
    """Refunds an order."""
    log.append(order_id)
    return {"refunded": order_id}
  refund.__name__ = name
  return FunctionTool(refund, require_confirmation=True)


async def test_loop_without_max_iterations_stops_when_llm_call_limit_is_hit():
  """RunConfig(max_llm_calls) is the safety net for a runaway LoopAgent; it must end the run."""
  def reply(req):
    return "again"
  worker = Agent(name="worker", model=ScriptedModel(reply))
  loop = LoopAgent(name="loop", sub_agents=[worker])
  runner = InMemoryRunner(loop, app_name="app", auto_create_session=True)

  events = []
  with pytest.raises(LlmCallsLimitExceededError):
    async for event in runner.run_async(user_id="user", session_id="s1", new_message=types.Content(
        role="user", parts=[types.Part(text="go")]), run_config=RunConfig(max_llm_calls=3)):
      events.append(event)
      if len(events) > 50:
        break  # the loop never ends by itself
  assert len(events) <= 50, "LoopAgent kept iterating after the llm-call limit"
  assert sum(1 for e in events if e.error_code == "LlmCallsLimitExceededError") == 1


async def test_parallel_sibling_is_not_cut_short_when_another_branch_pauses():
  """'If a branch pauses, the others run to completion' (ParallelAgent docstring)."""
  log = []
  slow_done = []

  async def lookup(q: str) -> dict:
    """Looks something up."""
    await asyncio.sleep(0.05)
    slow_done.append(q)
    return {"answer": 42}

  a = Agent(name="a", model=ScriptedModel([call("refund", order_id="A1"), "A done"]), tools=[confirm_tool(log)])
  b_model = ScriptedModel([call("lookup", q="x"), "B final answer"])
  b = Agent(name="b", model=b_model, tools=[lookup], output_key="b_out")
  par = ParallelAgent(name="par", sub_agents=[a, b])
  runner = InMemoryRunner(par, app_name="app")
  events = await run_turn(runner, "go")
  assert slow_done == ["x"]
  # b must finish its own turn (second model call) in the first run, or be resumed later.
  texts = [e.content.parts[0].text for e in events if e.author == "b" and e.content and e.content.parts[0].text]
  [item] = await pending(runner)
  resumed = await run_turn(runner, answer_message([confirmation_response(item, True)]))
  texts += [e.content.parts[0].text for e in resumed if e.author == "b" and e.content and e.content.parts[0].text]
  assert texts == ["B final answer"]
  assert (await session_of(runner)).state.get("b_out") == "B final answer"


async def test_parallel_sequence_branch_is_not_cut_short_when_another_branch_pauses():
  log = []

  async def slow(q: str) -> dict:
    """Slow step."""
    await asyncio.sleep(0.05)
    return {"ok": True}

  a = Agent(name="a", model=ScriptedModel([call("refund", order_id="A1"), "A done"]), tools=[confirm_tool(log)])
  b1 = Agent(name="b1", model=ScriptedModel([call("slow", q="x"), "b1 done"]), tools=[slow])
  b2 = Agent(name="b2", model=ScriptedModel(["b2 done"]))
  par = ParallelAgent(name="par", sub_agents=[a, SequentialAgent(name="bseq", sub_agents=[b1, b2])])
  runner = InMemoryRunner(par, app_name="app")
  events = await run_turn(runner, "go")
  [item] = await pending(runner)
  resumed = await run_turn(runner, answer_message([confirmation_response(item, True)]))
  authors = [e.author for e in events + resumed if e.content and e.content.parts and e.content.parts[0].text]
  assert "b2" in authors, authors


async def test_answers_to_two_parallel_branches_in_two_messages():
  log = []
  a = Agent(name="a", model=ScriptedModel([call("refund", order_id="1"), "a done"]), tools=[confirm_tool(log)])
  b = Agent(name="b", model=ScriptedModel([call("refund", order_id="2"), "b done"]), tools=[confirm_tool(log)])
  after = Agent(name="after", model=ScriptedModel(["after done"]))
  runner = InMemoryRunner(SequentialAgent(name="seq", sub_agents=[ParallelAgent(name="par", sub_agents=[a, b]), after]),
                          app_name="app")
  await run_turn(runner, "go")
  ia, ib = await pending(runner)
  r1 = await run_turn(runner, answer_message([confirmation_response(ia, True)]))
  assert len(await pending(runner)) == 1
  r2 = await run_turn(runner, answer_message([confirmation_response(ib, True)]))
  texts = [e.content.parts[0].text for e in r1 + r2 if e.author != "user" and e.content and e.content.parts[0].text]
  assert sorted(texts) == ["a done", "after done", "b done"], texts
  assert sorted(log) == ["1", "2"]


async def test_pause_in_transferred_agent_inside_sequence_resumes_the_sequence():
  """Seq[triage -> (transfer) refunds, after]: refunds pauses; after the approval `after` must still run."""
  log = []
  refunds = Agent(name="refunds", model=ScriptedModel([call("refund", order_id="A1"), "refunded"]),
                  tools=[confirm_tool(log)])
  triage = Agent(name="triage", model=ScriptedModel([call("transfer_to_agent", agent_name="refunds")]),
                 sub_agents=[refunds])
  after = Agent(name="after", model=ScriptedModel(["after ran"]))
  seq = SequentialAgent(name="seq", sub_agents=[triage, after])
  runner = InMemoryRunner(seq, app_name="app")
  await run_turn(runner, "refund A1")
  [item] = await pending(runner)
  resumed = await run_turn(runner, answer_message([confirmation_response(item, True)]))
  assert log == ["A1"]
  texts = [e.content.parts[0].text for e in resumed if e.author != "user" and e.content and e.content.parts[0].text]
  assert texts == ["refunded", "after ran"], texts


async def test_pause_in_transferred_agent_inside_parallel_branch_keeps_its_branch():
  log = []
  refunds = Agent(name="refunds", model=ScriptedModel([call("refund", order_id="A1"), "refunded"]),
                  tools=[confirm_tool(log)])
  triage = Agent(name="triage", model=ScriptedModel([call("transfer_to_agent", agent_name="refunds")]),
                 sub_agents=[refunds])
  other = Agent(name="other", model=ScriptedModel(["other done"]))
  par = ParallelAgent(name="par", sub_agents=[triage, other])
  runner = InMemoryRunner(par, app_name="app")
  first = await run_turn(runner, "refund A1")
  [item] = await pending(runner)
  assert item.branch == "par.triage"
  resumed = await run_turn(runner, answer_message([confirmation_response(item, True)]))
  branches = {e.branch for e in resumed if e.author == "refunds"}
  assert branches == {"par.triage"}, branches


async def test_before_model_callback_editing_request_contents_does_not_corrupt_history():
  """ADK deep-copies event content into the request; a callback that edits it must not rewrite the session."""

  def add_note(callback_context, llm_request):
    llm_request.contents[-1].parts.append(types.Part(text="[note]"))

  model = ScriptedModel(["one", "two"])
  runner = InMemoryRunner(Agent(name="bot", model=model, before_model_callback=add_note), app_name="app")
  await run_turn(runner, "hi")
  await run_turn(runner, "again")
  session = await session_of(runner)
  assert [p.text for p in session.events[0].content.parts] == ["hi"]
  first_user_turn = model.requests[1].contents[0]
  assert [p.text for p in first_user_turn.parts] == ["hi"]  # only the current turn's note is added


def _weather(city: str, units: str = "C") -> dict:
  """Weather for a city."""
  return {"city": city, "units": units}


def test_function_tool_partial_keeps_name_and_parameters():
  """google-adk: a partial is named after the wrapped function and declares its remaining parameters."""
  tool = FunctionTool(functools.partial(_weather, units="F"))
  assert tool.name == "_weather"
  schema = tool._get_declaration().parameters_json_schema
  assert "city" in schema["properties"] and schema.get("required") == ["city"]


async def test_function_tool_accepts_explicit_null_for_default_none_param():
  """`x: int = None` -- google-adk passes an explicit null through; models (OpenAI strict mode) send it."""
  def f(x: int = None) -> dict:
    """Doc."""
    return {"x": x}
  tool = FunctionTool(f)
  assert await tool.run_async(args={"x": None}, tool_context=None) == {"x": None}


async def test_function_tool_positional_only_params_are_callable():
  def add(a: int, /, b: int) -> int:
    """Adds."""
    return a + b
  tool = FunctionTool(add)
  assert await tool.run_async(args={"a": 1, "b": 2}, tool_context=None) == 3


async def test_instruction_leaves_dollar_and_escaped_braces_alone():
  """google-adk 2.13's pattern is (?<![$\\{\\\\]){+[^{}]*}+ : `${HOME}` and `\\{name}` are not placeholders."""
  model = ScriptedModel(["ok"])
  agent = Agent(name="bot", model=model, instruction="Write a script: echo ${HOME}; literal \\{name}.")
  runner = InMemoryRunner(agent, app_name="app")
  events = await run_turn(runner, "hi")
  assert not any(e.error_code for e in events), [e.error_message for e in events if e.error_code]
  assert "echo ${HOME}" in model.requests[0].system_instruction_text


async def test_instruction_state_value_none_renders_empty():
  """google-adk: a state value of None renders as '' (not 'None')."""
  model = ScriptedModel(["ok"])
  agent = Agent(name="bot", model=model, instruction="Name: [{name}]")
  runner = InMemoryRunner(agent, app_name="app")
  await run_turn(runner, "hi", state_delta={"name": None})
  assert "Name: []" in model.requests[0].system_instruction_text


async def test_resume_after_the_paused_agent_left_the_tree_is_a_clear_error():
  """The approval must not be silently swallowed by whichever agent happens to be the root."""
  from adk_nb import Runner

  log = []
  refunds = Agent(name="refunds", model=ScriptedModel([call("refund", order_id="A1"), "refunded"]),
                  tools=[confirm_tool(log)])
  root = Agent(name="root", model=ScriptedModel([call("transfer_to_agent", agent_name="refunds")]),
               sub_agents=[refunds])
  runner = InMemoryRunner(root, app_name="app")
  await run_turn(runner, "refund A1")
  [item] = await pending(runner)
  # A new deployment: the tree no longer has `refunds`.
  new_root_model = ScriptedModel(["I am the new root"])
  runner2 = Runner(app_name="app", agent=Agent(name="root", model=new_root_model),
                   session_service=runner.session_service)
  with pytest.raises(ValueError):
    events = await run_turn(runner2, answer_message([confirmation_response(item, True)]))
    # If it does not raise, at least it must not report success silently:
    assert any(e.error_code for e in events), [(e.author, e.content) for e in events]


async def test_resume_that_failed_before_the_tool_started_can_be_retried():
  """A transient failure after the answer was committed but before the tool started must not strand the call."""
  log = []
  calls = {"n": 0}

  def flaky(callback_context):
    calls["n"] += 1
    if calls["n"] == 2:  # the first resume
      raise RuntimeError("transient")

  agent = Agent(name="support", model=ScriptedModel([call("refund", order_id="A1"), "refunded"]),
                tools=[confirm_tool(log)], before_agent_callback=flaky)
  runner = InMemoryRunner(agent, app_name="app")
  await run_turn(runner, "refund A1")
  [item] = await pending(runner)
  with pytest.raises(RuntimeError, match="transient"):
    await run_turn(runner, answer_message([confirmation_response(item, True)]))
  assert log == []
  # Either the call is still pending, or retrying the same answer completes it.
  still = await pending(runner)
  if still:
    return
  retried = await run_turn(runner, answer_message([confirmation_response(item, True)]))
  assert log == ["A1"]


async def test_loop_with_sequence_pausing_in_iteration_two_resumes_in_place():
  log = []
  step1 = Agent(name="step1", model=ScriptedModel(["s1 it1", "s1 it2", "s1 it3"]))
  # pauses in iteration 2 only
  step2 = Agent(name="step2", model=ScriptedModel(["s2 it1", call("refund", order_id="A2"), "s2 it2", "s2 it3"]),
                tools=[confirm_tool(log)])
  step3 = Agent(name="step3", model=ScriptedModel(["s3 it1", "s3 it2", "s3 it3"]))
  loop = LoopAgent(name="loop", max_iterations=3,
                   sub_agents=[SequentialAgent(name="seq", sub_agents=[step1, step2, step3])])
  runner = InMemoryRunner(loop, app_name="app")
  first = await run_turn(runner, "go")
  [item] = await pending(runner)
  resumed = await run_turn(runner, answer_message([confirmation_response(item, True)]))
  texts = [e.content.parts[0].text for e in first + resumed
           if e.author != "user" and e.content and e.content.parts[0].text]
  assert texts == ["s1 it1", "s2 it1", "s3 it1", "s1 it2", "s2 it2", "s3 it2", "s1 it3", "s2 it3", "s3 it3"]
  assert log == ["A2"]


async def test_pause_twice_in_one_invocation_then_resume_twice():
  log = []
  a = Agent(name="a", model=ScriptedModel([call("refund", order_id="1"), "a done"]), tools=[confirm_tool(log)])
  b = Agent(name="b", model=ScriptedModel([call("refund", order_id="2"), "b done"]), tools=[confirm_tool(log)])
  c = Agent(name="c", model=ScriptedModel(["c done"]))
  runner = InMemoryRunner(SequentialAgent(name="seq", sub_agents=[a, b, c]), app_name="app")
  await run_turn(runner, "go")
  [i1] = await pending(runner)
  r1 = await run_turn(runner, answer_message([confirmation_response(i1, True)]))
  [i2] = await pending(runner)
  r2 = await run_turn(runner, answer_message([confirmation_response(i2, True)]))
  texts = [e.content.parts[0].text for e in r1 + r2 if e.author != "user" and e.content and e.content.parts[0].text]
  assert texts == ["a done", "b done", "c done"] and log == ["1", "2"]


async def test_answers_to_two_parallel_branches_in_one_message():
  log = []
  a = Agent(name="a", model=ScriptedModel([call("refund", order_id="1"), "a done"]), tools=[confirm_tool(log)])
  b = Agent(name="b", model=ScriptedModel([call("refund", order_id="2"), "b done"]), tools=[confirm_tool(log)])
  after = Agent(name="after", model=ScriptedModel(["after done"]))
  runner = InMemoryRunner(SequentialAgent(name="seq", sub_agents=[ParallelAgent(name="par", sub_agents=[a, b]), after]),
                          app_name="app")
  await run_turn(runner, "go")
  items = await pending(runner)
  assert len(items) == 2
  r = await run_turn(runner, answer_message([confirmation_response(i, True) for i in items]))
  texts = sorted(e.content.parts[0].text for e in r if e.author != "user" and e.content and e.content.parts[0].text)
  assert texts == ["a done", "after done", "b done"] and sorted(log) == ["1", "2"]


async def test_agent_tool_wrapping_a_sequence_that_pauses_resumes_and_finishes():
  from adk_nb.tools import AgentTool

  log = []
  s1 = Agent(name="s1", model=ScriptedModel([call("refund", order_id="N1"), "s1 done"]), tools=[confirm_tool(log)])
  s2 = Agent(name="s2", model=ScriptedModel(["s2 final"]))
  inner = SequentialAgent(name="inner", description="does refunds", sub_agents=[s1, s2])
  outer_model = ScriptedModel([call("inner", request="refund N1"), "outer says done"])
  outer = Agent(name="outer", model=outer_model, tools=[AgentTool(inner)])
  runner = InMemoryRunner(outer, app_name="app")
  await run_turn(runner, "go")
  [item] = await pending(runner)
  assert item.nested
  r = await run_turn(runner, answer_message([confirmation_response(item, True)]))
  assert log == ["N1"]
  assert r[-1].content.parts[0].text == "outer says done"
  fr = [p.function_response for c in outer_model.requests[1].contents for p in c.parts if p.function_response]
  assert fr and fr[-1].response == {"result": "s2 final"}, fr


async def test_closing_the_run_stream_cancels_parallel_branches():
  """A client that stops reading (aclose) must not leave branch tasks alive in the notebook's loop."""
  started = []

  async def slow(q: str) -> dict:
    """Slow."""
    started.append(q)
    await asyncio.sleep(0.2)
    return {"ok": q}

  a = Agent(name="a", model=ScriptedModel(["a says hi"]))
  b = Agent(name="b", model=ScriptedModel([call("slow", q="b"), "b done"], latency=0.01), tools=[slow])
  runner = InMemoryRunner(ParallelAgent(name="par", sub_agents=[a, b]), app_name="app", auto_create_session=True)
  before = set(asyncio.all_tasks())
  agen = runner.run_async(user_id="user", session_id="s", new_message=types.Content(
      role="user", parts=[types.Part(text="go")]))
  first = await agen.__anext__()
  await agen.aclose()
  await asyncio.sleep(0.05)
  leftover = [t for t in asyncio.all_tasks() - before if t is not asyncio.current_task() and not t.done()]
  assert leftover == [], leftover


async def test_sticky_transfer_skips_a_non_transferable_last_speaker_like_adk():
  """google-adk _agent_router.find_agent_to_run keeps scanning past an agent that cannot transfer back."""
  a_model = ScriptedModel(["a answers 1", call("transfer_to_agent", agent_name="b"), "a answers 3"])
  a = Agent(name="a", description="A", model=a_model)
  b = Agent(name="b", description="B", model=ScriptedModel(["b answers 2"]), disallow_transfer_to_parent=True)
  root_model = ScriptedModel([call("transfer_to_agent", agent_name="a"), "root answers 3"])
  root = Agent(name="root", model=root_model, sub_agents=[a, b])
  runner = InMemoryRunner(root, app_name="app")
  await run_turn(runner, "t1")
  await run_turn(runner, "t2")
  r3 = await run_turn(runner, "t3")
  assert r3[-1].author == "a", r3[-1].author


async def test_adk_docs_long_running_pattern_intermediate_status_then_final_answer():
  """google-adk docs (human-in-the-loop): the long-running tool returns {'status': 'pending'} at once, the
  model tells the user, and later the client sends a FunctionResponse with the SAME call id and the final
  status. That must reach the agent, not raise 'already answered'."""

  def ask_for_approval(purpose: str, amount: float) -> dict:
    """Ask for approval for the reimbursement."""
    return {"status": "pending", "ticket_id": "approval-ticket-1"}

  model = ScriptedModel([call("ask_for_approval", purpose="taxi", amount=120.0),
                         "Your request is pending approval.",
                         "Approved, reimbursing now."])
  agent = Agent(name="reimburse", model=model, tools=[LongRunningFunctionTool(ask_for_approval)])
  runner = InMemoryRunner(agent, app_name="app")
  first = await run_turn(runner, "reimburse 120 for a taxi")
  call_id = first[1].get_function_calls()[0].id
  assert first[1].long_running_tool_ids == {call_id}
  final = types.Part(function_response=types.FunctionResponse(
      id=call_id, name="ask_for_approval", response={"status": "approved", "ticket_id": "approval-ticket-1"}))
  later = await run_turn(runner, answer_message([final]))
  assert later[-1].content.parts[0].text == "Approved, reimbursing now."


async def test_require_confirmation_predicate_error_becomes_an_error_response():
  """Contract: a tool exception becomes an error function response, not a crashed run."""
  def refund(order_id: str, amount: float = None) -> dict:
    """Refunds."""
    return {"ok": True}

  tool = FunctionTool(refund, require_confirmation=lambda amount=None, **_: amount > 100)  # TypeError on None
  model = ScriptedModel([call("refund", order_id="A1"), "sorry"])
  runner = InMemoryRunner(Agent(name="bot", model=model, tools=[tool]), app_name="app")
  events = await run_turn(runner, "refund")
  assert not any(e.error_code for e in events), [e.error_message for e in events if e.error_code]
  assert events[-1].content.parts[0].text == "sorry"


async def test_before_model_callback_editing_a_tool_declaration_does_not_leak_into_next_request():
  """google-adk FunctionTool._get_declaration returns a deep copy for exactly this reason."""
  def ping() -> str:
    """Ping."""
    return "pong"

  def tag(callback_context, llm_request):
    llm_request.config.tools[0].function_declarations[0].description += " [tagged]"

  model = ScriptedModel(["one", "two"])
  runner = InMemoryRunner(Agent(name="bot", model=model, tools=[ping], before_model_callback=tag), app_name="app")
  await run_turn(runner, "hi")
  await run_turn(runner, "again")
  assert model.requests[1].config.tools[0].function_declarations[0].description == "Ping. [tagged]"
