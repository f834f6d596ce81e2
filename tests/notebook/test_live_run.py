"""LiveRun without magics: pause, approve / reject / edit / respond, policies, trajectory."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from adk_nb.models import call
import adk_nb.notebook as nb


def test_run_pauses_then_approve_runs_the_tool_once(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded 250."])
  run = nb.run(agent, "Refund order A1", store="memory://")
  assert run.status == "paused"
  assert refunds == []
  (item,) = run.pending
  assert (item.kind, item.tool, item.args) == ("confirmation", "refund", {"order_id": "A1", "amount": 250.0})
  invocation = run.invocation_id
  run.approve()
  assert run.status == "done"
  assert refunds == [("A1", 250.0)]
  assert run.final_text == "Refunded 250."
  assert run.invocation_id == invocation  # the same invocation resumed
  assert run.decisions[0]["decision"] == "approved" and run.decisions[0]["by"] == "code"
  with pytest.raises(ValueError, match="No confirmation is pending"):
    run.approve()


def test_reject_tells_the_model_and_records_the_reason(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "OK, not refunded."])
  run = nb.run(agent, "Refund A1", store="memory://")
  run.reject("too large")
  assert run.status == "done" and refunds == []
  last_request = agent.model.requests[-1]
  responses = [p.function_response for c in last_request.contents for p in c.parts if p.function_response]
  assert responses[-1].response == {"error": "This tool call is rejected.", "reason": "too large"}
  assert run.decisions[0]["reason"] == "too large"


def test_edit_and_approve_validates_then_runs_with_new_arguments(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded 120."])
  run = nb.run(agent, "Refund A1", store="memory://")
  with pytest.raises(ValueError, match="Edited arguments rejected for refund"):
    run.edit_and_approve({"order_id": "A1", "amount": "lots"})
  assert run.status == "paused" and refunds == []
  run.edit_and_approve({"order_id": "A1", "amount": 120.0})
  assert refunds == [("A1", 120.0)]
  assert run.status == "done"


def test_long_running_call_answered_later_with_respond(make_refund_agent):
  agent, _ = make_refund_agent([call("check_status", ticket="T9"), "The warehouse says: shipped."])
  run = nb.run(agent, "Where is T9?", store="memory://")
  assert run.status == "paused"
  assert run.pending[0].kind == "long_running"
  with pytest.raises(ValueError, match="use respond"):
    run.approve()
  run.respond({"status": "shipped"})
  assert run.status == "done" and run.final_text == "The warehouse says: shipped."
  sent = agent.model.requests[-1].contents[-1].parts[0].function_response
  assert sent.name == "check_status" and sent.response == {"status": "shipped"}


def test_auto_policy_approves_and_says_so(make_refund_agent, monkeypatch, caplog):
  monkeypatch.setenv("ADK_NB_APPROVE", "auto")
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  with caplog.at_level(logging.WARNING, logger="adk_nb.notebook"):
    run = nb.run(agent, "Refund A1", store="memory://")
  assert run.status == "done" and refunds == [("A1", 250.0)]
  assert run.decisions[0]["by"] == "policy:auto"
  assert "approved by policy:auto: refund" in caplog.text
  assert any(n["kind"] == "decision" and "policy:auto" in n["title"] for n in run.steps.nodes())
  assert "decision" in set(run.trajectory()["kind"])


def test_deny_policy_rejects_and_explicit_option_beats_environment(make_refund_agent, monkeypatch):
  monkeypatch.setenv("ADK_NB_APPROVE", "auto")
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Not refunded."])
  run = nb.run(agent, "Refund A1", store="memory://", approve="deny")
  assert run.status == "done" and refunds == []
  assert run.decisions[0]["by"] == "policy:deny"


def test_a_policy_answers_through_the_same_path_as_code_and_each_decision_is_a_frozen_record(
    make_refund_agent, monkeypatch):
  import dataclasses

  script = [call("refund", order_id="A1", amount=250.0), "Refunded."]
  by_code, _ = make_refund_agent(list(script))
  run = nb.run(by_code, "Refund A1", store="memory://")
  run.approve()
  by_policy, _ = make_refund_agent(list(script))
  auto = nb.run(by_policy, "Refund A1", store="memory://", approve="auto")
  (mine,), (policy,) = run.decisions, auto.decisions
  assert isinstance(mine, nb.Decision) and isinstance(policy, nb.Decision)
  assert (mine.decision, mine.status, mine.by) == ("approved", "approved", "code")
  assert (policy.decision, policy.status, policy.by) == ("approved", "approved", "policy:auto")
  assert policy["by"] == "policy:auto" and policy.get("tool") == "refund"  # read as the dicts were
  with pytest.raises(dataclasses.FrozenInstanceError):
    policy.by = "someone else"
  # The same answer reached the model both ways.
  sent = [m.requests[-1].contents[-1].parts[0].function_response.response for m in (by_code.model, by_policy.model)]
  assert sent[0] == sent[1]
  # The tree shows both answers alike: a decision step with the status, and the call's small print.
  for one in (run, auto):
    (step,) = [s for s in one.steps.steps.values() if s.kind == "decision"]
    (tool,) = [s for s in one.steps.steps.values() if s.kind == "tool_call"]
    assert step.status == "approved" and tool.decided == f"approved by {one.decisions[0].by}"


def test_recorded_decisions_join_a_stored_sessions_trajectory(make_refund_agent):
  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Not refunded."])
  run = nb.run(agent, "Refund A1", store="memory://")
  run.reject("too large")
  frame = nb.trajectory_frame(run.events, run.decisions)  # Decisions, or dicts saved from them
  again = nb.trajectory_frame(run.events, [d.as_dict() for d in run.decisions])
  rows = frame[frame["kind"] == "decision"]
  assert list(rows["result"]) == ["rejected"] and list(rows["text"]) == ["too large"]
  assert rows["text"].tolist() == again[again["kind"] == "decision"]["text"].tolist()


def test_deny_policy_records_its_reason_and_sends_it(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Not refunded."])
  run = nb.run(agent, "Refund A1", store="memory://", approve="deny")
  (decision,) = run.decisions
  assert (decision.status, decision.reason) == ("rejected", "rejected by approval policy 'deny'") and refunds == []
  responses = [p.function_response for c in agent.model.requests[-1].contents for p in c.parts if p.function_response]
  assert responses[-1].response["reason"] == "rejected by approval policy 'deny'"


async def test_answering_or_editing_state_while_running_is_refused_with_one_error():
  from adk_nb import Agent
  from adk_nb.models import BaseLlm
  from adk_nb.models.scripted import to_llm_response

  gate = asyncio.Event()

  class GatedModel(BaseLlm):
    model: str = "gated"

    async def generate_content_async(self, llm_request, stream=False):
      await gate.wait()
      yield to_llm_response("reply")

  run = nb.run(Agent(name="helper", model=GatedModel()), "one", store="memory://")
  assert run.status == "running"
  with pytest.raises(nb.SessionBusyError, match=r"still running; wait for it to pause .*Nothing was sent"):
    run.approve()
  with pytest.raises(nb.SessionBusyError, match=r"still running; wait for it to pause .*Nothing was changed"):
    run.edit_state({"note": "x"})
  gate.set()
  await run
  assert run.status == "done" and run.decisions == [] and "note" not in run.state


def test_bad_policy_in_environment_names_the_fix(make_refund_agent, monkeypatch):
  monkeypatch.setenv("ADK_NB_APPROVE", "yes")
  agent, _ = make_refund_agent(["hi"])
  with pytest.raises(ValueError, match="use one of: ask, auto, deny"):
    nb.run(agent, "hi", store="memory://")


def test_small_refund_needs_no_approval_and_trajectory_has_one_row_per_step(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="B2", amount=20.0), "Done."])
  run = nb.run(agent, "Refund B2", store="memory://", state={"user:tier": "gold"})
  assert run.status == "done" and refunds == [("B2", 20.0)]
  frame = run.trajectory()
  assert list(frame["kind"]) == ["user", "model_call", "tool_call", "model_call"]
  call_row = frame.iloc[2]
  assert call_row["tool"] == "refund" and call_row["arguments"] == {"order_id": "B2", "amount": 20.0}
  assert call_row["result"]["status"] == "refunded" and call_row["latency_ms"] >= 0
  assert frame.iloc[3]["text"] == "Done." and frame.iloc[3]["latency_ms"] >= 0
  assert frame.iloc[0]["state_delta"] == {"user:tier": "gold"}
  assert run.state["user:tier"] == "gold"


def test_model_error_ends_in_error_status(make_refund_agent):
  agent, _ = make_refund_agent([RuntimeError("model down")])
  run = nb.run(agent, "hi", store="memory://")
  assert run.status == "error" and "model down" in run.error


def test_sessions_continue_by_default_and_survive_a_new_registry_in_sqlite(make_refund_agent, tmp_path):
  from adk_nb.notebook._sessions import registry

  agent, _ = make_refund_agent(["one", "two", "three"])
  first = nb.run(agent, "a")
  second = nb.run(agent, "b")
  assert first.session_id == second.session_id
  assert (tmp_path / ".adk_nb" / "sessions.db").exists()
  registry.clear()  # as after a kernel restart: same file, named session
  third = nb.run(agent, "c", session=first.session_id)
  assert [e.text for e in third.events if e.author == "user"] == ["c"]
  assert third.status == "done" and third.final_text == "three"


async def test_arun_awaits_inside_a_running_loop(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = await nb.arun(agent, "Refund A1", store="memory://")
  assert run.status == "paused"
  await run.approve()
  assert run.status == "done" and refunds == [("A1", 250.0)]


async def test_cancel_stops_a_background_run(make_refund_agent):
  import asyncio

  from adk_nb import Agent
  from adk_nb.models import ScriptedModel

  agent = Agent(name="slow", model=ScriptedModel(["never"], latency=30))
  run = nb.run(agent, "hi", store="memory://")
  assert run.status == "running"
  await asyncio.sleep(0)  # let the task start
  run.cancel()
  await run
  assert run.status == "error" and "Cancelled" in run.error


async def test_cancel_right_after_start_leaves_a_final_status(make_refund_agent):
  agent, _ = make_refund_agent(["hi"])
  run = nb.run(agent, "hello", store="memory://")
  run.cancel()  # `run = nb.run(...); run.cancel()` in one cell: the task never started
  await run
  assert run.status == "error" and "Cancelled" in run.error
  assert run.view.tree.status == "error"


async def test_cancel_while_the_store_opens_leaves_a_final_status(make_refund_agent, monkeypatch):
  import asyncio

  from adk_nb.notebook._sessions import NotebookAgent

  opening = asyncio.Event()

  async def slow_store(self, session_id, user_id, new):
    opening.set()
    await asyncio.Event().wait()  # a store that never answers

  monkeypatch.setattr(NotebookAgent, "create_if_missing", slow_store)
  agent, _ = make_refund_agent(["hi"])
  run = nb.run(agent, "hello", store="memory://")
  await opening.wait()
  run.cancel()
  await run
  assert run.status == "error" and "Cancelled" in run.error
  assert run.view.tree.status == "error"


async def test_a_second_run_on_a_session_that_is_still_running_is_refused_and_names_the_fix():
  import asyncio

  from adk_nb import Agent
  from adk_nb.models import BaseLlm
  from adk_nb.models.scripted import to_llm_response

  gate = asyncio.Event()

  class GatedModel(BaseLlm):
    """Answers only once the test opens the gate: the first run is observably still running."""

    model: str = "gated"

    async def generate_content_async(self, llm_request, stream=False):
      await gate.wait()
      yield to_llm_response("reply")

  agent = Agent(name="helper", model=GatedModel())
  first = nb.run(agent, "one", session="s")  # default SQLite store, as `%%agent helper --background`
  with pytest.raises(nb.SessionBusyError, match=r"Session 's' is still running.*await run.*--new"):
    nb.run(agent, "two", session="s")
  other = nb.run(agent, "two", new=True)  # another session is fine
  gate.set()
  await first
  await other
  assert (first.status, other.status) == ("done", "done"), (first.error, other.error)
  again = await nb.arun(agent, "three", session="s")  # once the first has ended, the session takes runs again
  assert again.status == "done", again.error


def test_a_run_becomes_an_eval_case(tmp_path, make_refund_agent):
  from adk_nb.evaluation import EvalSet
  from adk_nb.notebook import run

  agent, log = make_refund_agent([])
  done = run(agent, "What about order A1?", store="memory://", approve="auto")
  path = tmp_path / "desk.evalset.json"
  case = done.to_eval_case(str(path))
  saved = EvalSet.model_validate_json(path.read_text())
  assert [c.eval_id for c in saved.eval_cases] == [case.eval_id]
  assert saved.eval_cases[0].conversation[0].user_content.parts[0].text == "What about order A1?"


def test_a_new_view_subscribes_without_touching_the_run(make_refund_agent):
  """What the inspector's panels do: subscribe, read public fields, answer through decide."""
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  seen: list = []

  class Counter:  # a minimal view
    def __init__(self, run):
      self.unsubscribe = run.subscribe(lambda change: seen.append((change.what, change.run.status)))

  run = nb.run(agent, "Refund A1", store="memory://", view=False)
  view = Counter(run)
  (item,) = run.pending
  assert run.answerable(item)
  run.decide(item, "approve", by="inspector")
  assert refunds == [("A1", 250.0)] and run.decisions[0]["by"] == "inspector"
  assert not run.answerable(item)
  whats = [w for w, _ in seen]
  assert whats[0] == "decision" and whats[1] == "started" and whats[-1] == "ended"
  assert {"event", "progress"} <= set(whats) and seen[-1][1] == "done"
  view.unsubscribe()
  run.edit_state({"note": "after"})
  assert len(seen) == len(whats)  # nothing after unsubscribing
  assert run.state["note"] == "after"


def test_decide_refuses_what_does_not_fit_and_sends_nothing(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = nb.run(agent, "Refund A1", store="memory://", view=False)
  (item,) = run.pending
  with pytest.raises(ValueError, match="Unknown action 'maybe'; use one of: approve, reject, edit, respond"):
    run.decide(item, "maybe")
  with pytest.raises(ValueError, match="refund is a confirmation call: use approve\\(\\) or reject\\(\\)"):
    run.decide(item, "respond", {"ok": 1})
  with pytest.raises(ValueError, match="temp: keys live for one invocation"):
    run.edit_state({"temp:x": 1})
  assert run.status == "paused" and refunds == [] and run.decisions == []
  run.decide(item, "reject", "no")
  with pytest.raises(ValueError, match="is not pending any more"):
    run.decide(item, "approve")


def test_views_and_chat_use_only_the_runs_public_surface():
  import pathlib
  import re

  here = pathlib.Path(nb.__file__).parent
  for name in ("views.py", "chat.py"):
    text = (here / name).read_text()
    assert not re.findall(r"\b(?:run|turn|_run|live|old)\._[a-z]\w*", text), name
  live = (here / "live_run.py").read_text()
  assert "self._view." not in live.replace("self._view.comm", "") and "panel" not in live  # never drives a view


async def test_edit_and_approve_checks_an_mcp_tools_schema_and_loses_nothing(tmp_path):
  pytest.importorskip("mcp")
  import sys
  from pathlib import Path

  from mcp import StdioServerParameters

  from adk_nb import Agent
  from adk_nb.models import ScriptedModel
  from adk_nb.tools.mcp_tool import McpToolset, StdioConnectionParams

  server = Path(__file__).parents[1] / "tools" / "mcp_server.py"
  with open(tmp_path / "server.log", "w") as errlog:
    tools = McpToolset(connection_params=StdioConnectionParams(
        server_params=StdioServerParameters(command=sys.executable, args=[str(server)]), timeout=10.0),
        tool_filter=["add"], require_confirmation=True, errlog=errlog)
    agent = Agent(name="calc", model=ScriptedModel([call("add", a=1, b=2), "Done."]), tools=[tools])
    run = await nb.arun(agent, "add", store="memory://", view=False)
    try:
      (item,) = run.pending
      with pytest.raises(ValueError, match=r"Edited arguments rejected for add: .*a: 'x' is not of type 'integer'"):
        run.edit_and_approve({"a": "x", "b": 2})
      with pytest.raises(ValueError, match=r"'b' is a required property"):
        run.edit_and_approve({"a": 5})
      assert run.status == "paused" and run.pending == [item] and run.decisions == []
      await run.edit_and_approve({"a": 5, "b": 6})
    finally:
      await run.runner.close()
  assert run.status == "done" and run.decisions[0]["decision"] == "approved with edits"
  sent = agent.model.requests[-1].contents[-1].parts[0].function_response
  assert sent.name == "add" and sent.response["structuredContent"] == {"result": 11}


async def test_edit_and_approve_checks_an_openapi_tools_parameters_and_loses_nothing():
  import threading
  from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

  from adk_nb import Agent
  from adk_nb.models import ScriptedModel
  from adk_nb.tools.openapi_tool import OpenAPIToolset

  received = []

  class Echo(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 - http.server's name
      received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
      self.send_response(201)
      self.send_header("Content-Type", "application/json")
      self.end_headers()
      self.wfile.write(json.dumps({"created": received[-1]}).encode())

    def log_message(self, *args):
      pass

  http = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
  threading.Thread(target=http.serve_forever, daemon=True).start()
  spec = {"openapi": "3.0.0", "servers": [{"url": f"http://127.0.0.1:{http.server_address[1]}"}],
          "paths": {"/pets": {"post": {"operationId": "createPet", "requestBody": {"required": True, "content": {
              "application/json": {"schema": {"type": "object", "required": ["name"], "properties": {
                  "name": {"type": "string"}, "age": {"type": "integer"}}}}}}}}}}

  def ask_first(tool, args, tool_context):
    if tool_context.tool_confirmation is None:
      tool_context.request_confirmation(hint="Creating a pet needs approval.")
      return {"pending": "approval"}
    return None

  agent = Agent(name="pets", model=ScriptedModel([call("create_pet", name="Rex", age=3), "Created."]),
                tools=[OpenAPIToolset(spec_dict=spec)], before_tool_callback=ask_first)
  run = await nb.arun(agent, "add Rex", store="memory://", view=False)
  try:
    (item,) = run.pending
    assert (item.tool, item.args) == ("create_pet", {"name": "Rex", "age": 3})
    with pytest.raises(ValueError, match=r"Edited arguments rejected for create_pet: .*age: 'old' is not of type"):
      run.edit_and_approve({"name": "Rex", "age": "old"})
    with pytest.raises(ValueError, match=r"unknown argument\(s\) colour; create_pet takes age, name"):
      run.edit_and_approve({"name": "Rex", "colour": "red"})
    assert run.status == "paused" and run.pending == [item] and received == []
    await run.edit_and_approve({"name": "Rex", "age": 4})
  finally:
    await run.runner.close()
    http.shutdown()
    http.server_close()
  assert run.status == "done" and received == [{"name": "Rex", "age": 4}]


def test_edit_and_approve_checks_a_tool_of_an_agent_run_through_agent_tool():
  from adk_nb import Agent
  from adk_nb.models import ScriptedModel
  from adk_nb.tools import AgentTool, FunctionTool

  refunds = []

  def refund(order_id: str, amount: float) -> dict:
    """Refunds an order."""
    refunds.append((order_id, amount))
    return {"refunded": amount}

  child = Agent(name="refunder", description="Issues refunds.",
                model=ScriptedModel([call("refund", order_id="A1", amount=250.0), "child done"]),
                tools=[FunctionTool(refund, require_confirmation=True)])
  desk = Agent(name="desk", model=ScriptedModel([call("refunder", request="refund A1"), "Done."]),
               tools=[AgentTool(child)])
  run = nb.run(desk, "refund A1", store="memory://", view=False)
  (item,) = run.pending
  assert item.nested and item.tool == "refund"
  with pytest.raises(ValueError, match="Edited arguments rejected for refund: .*amount"):
    run.edit_and_approve({"order_id": "A1", "amount": "lots"})
  assert run.status == "paused" and refunds == []
  run.edit_and_approve({"order_id": "A1", "amount": 90.0})
  assert refunds == [("A1", 90.0)] and run.status == "done"


def test_a_long_sessions_pending_approvals_show_after_a_resume_and_after_a_restart(make_refund_agent, monkeypatch):
  from adk_nb import pending as pending_module
  from adk_nb.notebook._sessions import registry
  from adk_nb.notebook.live_run import LiveRun

  turns = 30
  agent, refunds = make_refund_agent(["ok"] * turns + [call("refund", order_id="A1", amount=250.0),
                                                        call("refund", order_id="A2", amount=300.0), "Both refunded."])
  for i in range(turns):
    nb.run(agent, f"question {i}")  # the default store (SQLite): the session keeps every turn
  run = nb.run(agent, "Refund A1 and A2")
  assert [(p.tool, p.args["order_id"]) for p in run.pending] == [("refund", "A1")]

  read = []
  add = pending_module._Ledger.add
  monkeypatch.setattr(pending_module._Ledger, "add", lambda self, event: (read.append(event.id), add(self, event))[1])
  run.approve()  # resumes; the model asks for the second refund
  assert refunds == [("A1", 250.0)] and run.status == "paused"
  assert [(p.tool, p.args["order_id"]) for p in run.pending] == [("refund", "A2")]
  row = run.view.panel.children[0]
  assert "support wants to run refund" in row.children[0].value
  # The resume (the runner and the view settling it) read the events it added, not the 30 earlier turns again.
  assert 0 < len(read) < 20

  registry.clear()  # as after a kernel restart: the same SQLite file, a new runner
  runner = registry.get(agent, None).runner
  attached = asyncio.run(LiveRun.attach(runner, session_id=run.session_id, user_id=run.user_id))
  assert [(p.tool, p.args["order_id"]) for p in attached.pending] == [("refund", "A2")]
  assert attached.status == "paused" and len(attached.view.panel.children) == 1
  attached.approve()
  assert attached.status == "done" and attached.final_text == "Both refunded." and attached.pending == []
  assert refunds == [("A1", 250.0), ("A2", 300.0)]


def test_objects_from_before_a_run_sit_out_the_gc_while_it_runs_and_come_back_after():
  import gc

  from adk_nb import Agent
  from adk_nb.models import ScriptedModel

  seen = []

  def probe() -> dict:
    """Notes what the collector sees while the run goes."""
    seen.append(gc.get_freeze_count())
    return {"ok": True}

  agent = Agent(name="probe", model=ScriptedModel([call("probe"), "done"]), tools=[probe])
  assert gc.get_freeze_count() == 0
  run = nb.run(agent, "go", store="memory://")
  assert run.status == "done"
  assert seen and seen[0] > 1000  # the heap from before the run was frozen while the tool ran
  assert gc.get_freeze_count() == 0  # and is collected as usual again

  gc.freeze()  # a process that freezes objects itself keeps its own freeze
  try:
    frozen = gc.get_freeze_count()
    young = [[i] for i in range(20_000)]  # not frozen: a freeze by the run would take them in
    seen.clear()
    run = nb.run(agent.clone(update={"model": ScriptedModel([call("probe"), "done"])}), "go", store="memory://")
    assert run.status == "done" and len(seen) == 1
    # Frozen objects that die leave the count, so it may fall by however many die (the interpreter decides);
    # a freeze by the run would add the 20,000 young lists, an unfreeze would empty it.
    assert frozen // 2 < seen[0] < frozen + 10_000
    assert frozen // 2 < gc.get_freeze_count() < frozen + 10_000  # still the process's own freeze
    del young
  finally:
    gc.unfreeze()


def _coordinator_and_booker():
  """A coordinator that transfers to `booker`, whose `book` tool needs approval (issue 30's notebook)."""
  from adk_nb import Agent
  from adk_nb.models import ScriptedModel
  from adk_nb.tools import FunctionTool

  booked: list = []

  def book(hotel: str) -> dict:
    """Books a hotel."""
    booked.append(hotel)
    return {"booked": hotel}

  booker = Agent(name="booker", model=ScriptedModel([call("book", hotel="Ritz"), "Booked the Ritz."]),
                 tools=[FunctionTool(book, require_confirmation=True)])
  helper = Agent(name="helper", model=ScriptedModel([]))
  root = Agent(name="coordinator", model=ScriptedModel([call("transfer_to_agent", agent_name="booker")]),
               sub_agents=[booker, helper])
  return root, booked


def test_after_an_approved_pause_finishes_no_step_or_graph_node_stays_paused():
  from adk_nb.inspect.graph import GraphStatus, graph_of

  root, booked = _coordinator_and_booker()
  run = nb.run(root, "Book the Ritz", store="memory://", view=False)
  assert run.status == "paused"
  assert {n["title"]: n["status"] for n in run.steps.nodes() if n["kind"] == "agent"} == {
      "coordinator": "paused", "booker": "paused"}
  run.approve()
  assert run.status == "done" and booked == ["Ritz"]
  agents = [(n["title"], n["status"]) for n in run.steps.nodes() if n["kind"] == "agent"]
  # One activation each (the resume goes on in the same step), and what is true now: done.
  assert agents == [("coordinator", "done"), ("booker", "done")]
  assert not [n for n in run.steps.nodes() if n["status"] == "paused"]
  status = GraphStatus(graph_of(root))
  status.update_all(run.steps.steps)
  assert status.status["agent:booker"] == {"status": "done", "runs": 1}
  assert status.status["agent:coordinator"] == {"status": "done", "runs": 1}


def test_an_approved_call_says_approved_and_by_whom_on_its_own_line():
  root, _ = _coordinator_and_booker()
  run = nb.run(root, "Book the Ritz", store="memory://", view=False)
  run.approve()
  (book,) = [n for n in run.steps.nodes() if n["kind"] == "tool_call" and n["title"].startswith("book(")]
  assert book["status"] == "ok" and book["meta"] == "approved by code"

  agent, _ = _coordinator_and_booker()
  run = nb.run(agent, "Book the Ritz", store="memory://", view=False, approve="deny")
  (book,) = [n for n in run.steps.nodes() if n["kind"] == "tool_call" and n["title"].startswith("book(")]
  assert book["status"] == "rejected"
  assert book["meta"].startswith("rejected by policy:deny · reason: rejected by approval policy 'deny'")


def test_a_reopened_session_marks_an_approved_call_approved():
  from adk_nb.inspect import steps_of

  root, _ = _coordinator_and_booker()
  run = nb.run(root, "Book the Ritz", store="memory://", view=False)
  run.approve()
  # Rebuilt from the run's events alone (no decision records): the answer is known, who gave it is not.
  (book,) = [n for n in steps_of(run.events).nodes() if n["kind"] == "tool_call" and n["title"].startswith("book(")]
  assert book["meta"] == "approved"


async def test_wait_awaits_the_persons_click_then_the_resumed_run(make_refund_agent):
  from adk_nb.notebook.waiting import until_answered

  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = await nb.arun(agent, "Refund A1", store="memory://")
  assert run.status == "paused"
  run.shown_in_front_end()  # what the view does when JupyterLab draws it
  clicked = []

  def click_approve(change):  # a person clicks once the wait has begun (the decision wakes it)
    if change.what == "decision":
      clicked.append(run.status)

  run.subscribe(click_approve)
  waiting = asyncio.ensure_future(until_answered(run, timeout=60, grace=0))
  await asyncio.sleep(0)  # the waiter starts and parks on the pause (no time passes: one turn of the loop)
  assert not waiting.done() and refunds == []
  [approve] = [b for b in run.view.panel.children[0].children[3].children if getattr(b, "description", "") == "Approve"]
  approve.click()
  assert (await waiting) is run
  assert run.status == "done" and refunds == [("A1", 250.0)] and clicked == ["paused"]
  assert run.decisions[0]["by"] == "button"


async def test_wait_gives_up_saying_how_to_answer_and_the_run_stays_paused(make_refund_agent):
  from adk_nb.notebook.waiting import NoAnswer

  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = await nb.arun(agent, "Refund A1", store="memory://")
  # No front end drew the view (nbclient, nbmake): nobody can click, so no wait at all.
  with pytest.raises(NoAnswer, match=r"waits for refund\(.*Nobody can click here.*--approve auto\|deny") as caught:
    await asyncio.wait_for(_until(run, grace=0), 30)
  assert caught.value.run is run
  # Drawn, but nobody answers in time.
  run.shown_in_front_end()
  with pytest.raises(NoAnswer, match=r"Nobody answered within 0.05 s \(`--wait SECONDS`\)"):
    await run.wait(timeout=0.05)
  # A person stops waiting (a kernel interrupt does this).
  waiter = asyncio.ensure_future(run.wait(timeout=60))
  await asyncio.sleep(0)
  run.stop_waiting()
  with pytest.raises(NoAnswer, match="You stopped waiting"):
    await waiter
  assert run.status == "paused" and len(run.pending) == 1 and refunds == [] and run.decisions == []
  run.approve()
  assert (await run.wait()).status == "done" and refunds == [("A1", 250.0)]


def _until(run, grace):
  from adk_nb.notebook.waiting import until_answered

  return until_answered(run, timeout=60, grace=grace)
