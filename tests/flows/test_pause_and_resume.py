"""Pauses inside workflow agents, transfers and AgentTool: the whole invocation stops, and a resume
continues exactly where it paused (parallel branches, loops, sequences, retries, ADK's long-running pattern)."""

import asyncio

import pytest
from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.agents import LoopAgent, ParallelAgent, SequentialAgent
from adk_nb.pending import answer_message, confirmation_response
from adk_nb.testing import ScriptedModel, call, pending, run_turn, session_of
from adk_nb.tools import FunctionTool, LongRunningFunctionTool


def triage_to_refunds(log):
  """A triage agent that transfers to `refunds`, whose refund tool needs approval."""
  refunds = Agent(name="refunds", model=ScriptedModel([call("refund", order_id="A1"), "refunded"]),
                  tools=[confirm_tool(log)])
  return Agent(name="triage", model=ScriptedModel([call("transfer_to_agent", agent_name="refunds")]),
               sub_agents=[refunds])


def confirm_tool(log, name="refund"):
  def refund(order_id: str) -> dict:
    """Refunds an order."""
    log.append(order_id)
    return {"refunded": order_id}
  refund.__name__ = name
  return FunctionTool(refund, require_confirmation=True)


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


async def two_branches_paused():
  """(runner, log): Seq[Par[a, b], after] where a and b each wait for a refund approval."""
  log = []
  a = Agent(name="a", model=ScriptedModel([call("refund", order_id="1"), "a done"]), tools=[confirm_tool(log)])
  b = Agent(name="b", model=ScriptedModel([call("refund", order_id="2"), "b done"]), tools=[confirm_tool(log)])
  after = Agent(name="after", model=ScriptedModel(["after done"]))
  runner = InMemoryRunner(SequentialAgent(name="seq", sub_agents=[ParallelAgent(name="par", sub_agents=[a, b]), after]),
                          app_name="app")
  await run_turn(runner, "go")
  return runner, log


async def test_answers_to_two_parallel_branches_in_two_messages():
  runner, log = await two_branches_paused()
  ia, ib = await pending(runner)
  r1 = await run_turn(runner, answer_message([confirmation_response(ia, True)]))
  assert len(await pending(runner)) == 1
  r2 = await run_turn(runner, answer_message([confirmation_response(ib, True)]))
  texts = [e.content.parts[0].text for e in r1 + r2 if e.author != "user" and e.content and e.content.parts[0].text]
  assert sorted(texts) == ["a done", "after done", "b done"], texts
  assert sorted(log) == ["1", "2"]


async def test_answers_to_two_parallel_branches_in_one_message():
  runner, log = await two_branches_paused()
  items = await pending(runner)
  assert len(items) == 2
  r = await run_turn(runner, answer_message([confirmation_response(i, True) for i in items]))
  texts = sorted(e.content.parts[0].text for e in r if e.author != "user" and e.content and e.content.parts[0].text)
  assert texts == ["a done", "after done", "b done"] and sorted(log) == ["1", "2"]


async def test_pause_in_transferred_agent_inside_sequence_resumes_the_sequence():
  """Seq[triage -> (transfer) refunds, after]: refunds pauses; after the approval `after` must still run."""
  log = []
  triage = triage_to_refunds(log)
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
  triage = triage_to_refunds(log)
  other = Agent(name="other", model=ScriptedModel(["other done"]))
  par = ParallelAgent(name="par", sub_agents=[triage, other])
  runner = InMemoryRunner(par, app_name="app")
  first = await run_turn(runner, "refund A1")
  [item] = await pending(runner)
  assert item.branch == "par.triage"
  resumed = await run_turn(runner, answer_message([confirmation_response(item, True)]))
  branches = {e.branch for e in resumed if e.author == "refunds"}
  assert branches == {"par.triage"}, branches


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
  from adk_nb.errors import PausingAgentNotInTreeError

  with pytest.raises(PausingAgentNotInTreeError, match="not in this Runner's agent tree"):
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


async def test_in_a_resumable_app_a_pause_after_a_transfer_resumes_the_sequence_once():
  """As above with resumability on: the transferring agent's end_of_agent comes before its target
  runs (google-adk's order); the approval is still not lost and the tool runs once."""
  from adk_nb.apps import App, ResumabilityConfig

  log = []
  seq = SequentialAgent(name="seq", sub_agents=[triage_to_refunds(log), Agent(name="after", model=ScriptedModel(["after ran"]))])
  runner = InMemoryRunner(app=App(name="app", root_agent=seq, resumability_config=ResumabilityConfig(is_resumable=True)))
  await run_turn(runner, "refund A1")
  [item] = await pending(runner)
  resumed = await run_turn(runner, answer_message([confirmation_response(item, True)]))
  assert log == ["A1"]
  texts = [e.content.parts[0].text for e in resumed if e.author != "user" and e.content and e.content.parts[0].text]
  assert texts == ["refunded", "after ran"], texts
