"""The views without a browser: buttons, simulated browser messages, coalesced updates, static HTML."""

from __future__ import annotations

import time

from adk_nb.agents.run_config import RunConfig, StreamingMode
from adk_nb.models import call
import adk_nb.notebook as nb


def _buttons(run, index=0):
  row = run.view.panel.children[index]
  controls = row.children[3]
  return {getattr(w, "description", ""): w for w in controls.children}, row


def test_approve_button_resumes_the_run_once_and_disables_itself(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = nb.run(agent, "Refund A1", store="memory://")
  buttons, _ = _buttons(run)
  approve = buttons["Approve"]
  approve.click()
  assert refunds == [("A1", 250.0)]
  assert run.status == "done"
  assert approve.disabled and buttons["Reject"].disabled
  approve.click()  # a second click on the answered row changes nothing
  assert refunds == [("A1", 250.0)]
  assert run.view.panel.children == ()
  assert run.decisions[0]["by"] == "button"


def test_reject_button_sends_the_reason(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Not refunded."])
  run = nb.run(agent, "Refund A1", store="memory://")
  buttons, row = _buttons(run)
  [reason] = [w for w in row.children[3].children if getattr(w, "placeholder", "") == "reason (optional)"]
  reason.value = "needs a manager"
  buttons["Reject"].click()
  assert refunds == [] and run.status == "done"
  assert run.decisions[0]["reason"] == "needs a manager"


def test_edit_arguments_are_validated_before_anything_is_sent(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded 90."])
  run = nb.run(agent, "Refund A1", store="memory://")
  buttons, row = _buttons(run)
  args_box, error = row.children[2], row.children[4]
  args_box.value = "{not json"
  buttons["Approve edited arguments"].click()
  assert "not valid JSON" in error.value and run.status == "paused"
  args_box.value = '{"order_id": "A1", "amount": "ninety"}'
  buttons["Approve edited arguments"].click()
  assert "Edited arguments rejected for refund" in error.value
  assert run.status == "paused" and not buttons["Approve"].disabled
  args_box.value = '{"order_id": "A1", "amount": 90}'
  buttons["Approve edited arguments"].click()
  assert refunds == [("A1", 90.0)] and run.status == "done"


def test_long_running_result_box(make_refund_agent):
  agent, _ = make_refund_agent([call("check_status", ticket="T1"), "Shipped."])
  run = nb.run(agent, "Where is T1?", store="memory://")
  row = run.view.panel.children[0]
  box, send = row.children[3].children
  box.value = '{"status": "shipped"}'
  send.click()
  assert run.status == "done" and run.final_text == "Shipped."


def test_state_edit_from_the_browser_records_a_state_delta_event(make_refund_agent):
  agent, _ = make_refund_agent(["hello"])
  run = nb.run(agent, "hi", store="memory://")
  view = run.view.state
  view._handle_custom_msg({"type": "edit", "key": "note", "value": "not json"}, [])
  assert "not valid JSON" in view.error
  view._handle_custom_msg({"type": "edit", "key": "note", "value": '{"a": 1}'}, [])
  assert view.error == ""
  assert view.scopes["session"]["note"] == {"a": 1}
  assert view.changed == ["note"]
  assert run.events[-1].author == "user" and run.events[-1].actions.state_delta == {"note": {"a": 1}}
  view._handle_custom_msg({"type": "edit", "key": "temp:x", "value": "1"}, [])
  assert "never stored" in view.error


def test_a_view_rendered_mid_run_asks_for_everything(make_refund_agent):
  agent, _ = make_refund_agent(["hello there"])
  run = nb.run(agent, "hi", store="memory://")
  sent = []
  run.view.tree.send = lambda content, buffers=None: sent.append(content)
  run.view.tree._handle_custom_msg({"type": "hello"}, [])
  assert sent[-1]["type"] == "reset"
  assert [n["kind"] for n in sent[-1]["nodes"]] == ["invocation", "user", "agent", "text"]


async def test_updates_are_coalesced_and_replay_to_the_snapshot(make_refund_agent):
  from adk_nb import Agent
  from adk_nb.models import ScriptedModel

  text = "x" * 3000
  script = [call("refund", order_id=f"o{i}", amount=1.0) for i in range(40)] + [text]
  agent = Agent(name="streamer", model=ScriptedModel(script, chunk_size=1),
                tools=make_refund_agent([])[0].tools)
  run = nb.run(agent, "go", store="memory://", run_config=RunConfig(streaming_mode=StreamingMode.SSE))
  messages = []
  run.view.tree.send = lambda content, buffers=None: messages.append(content)
  started = time.monotonic()
  await run
  elapsed = time.monotonic() - started
  assert run.status == "done" and run.final_text == text
  ops_messages = [m for m in messages if m["type"] == "ops"]
  # Bounded by the coalescing rate, whatever the event rate (3,000+ streamed chunks here).
  assert len(ops_messages) <= nb.views.MAX_UPDATES_PER_SECOND * elapsed + 3
  assert [m["seq"] for m in ops_messages] == list(range(1, len(ops_messages) + 1))
  # Replaying the append-only operations in order gives exactly the snapshot kept in the widget state.
  nodes: dict = {}
  for message in ops_messages:
    for op in message["ops"]:
      if op[0] == "add":
        nodes[op[1]["id"]] = dict(op[1])
      elif op[0] == "set":
        nodes[op[1]].update(op[2])
      else:
        nodes[op[1]]["text"] += op[2]
  snapshot = {n["id"]: n for n in run.view.tree.nodes}
  assert nodes == snapshot
  assert run.view.tree.seq == len(ops_messages)
  assert sum(1 for n in snapshot.values() if n["kind"] == "call") == 40


def test_static_html_escapes_model_and_tool_text(make_refund_agent):
  from adk_nb import Agent
  from adk_nb.models import ScriptedModel
  from adk_nb.tools import FunctionTool

  def lookup(q: str) -> dict:
    """Looks up."""
    return {"html": "<script>window.__pwned=1</script>"}

  agent = Agent(name="x", model=ScriptedModel([call("lookup", q="<b>"), '<img src=x onerror="window.__pwned=1">']),
                tools=[FunctionTool(lookup)])
  run = nb.run(agent, "hi", store="memory://", state={"k": "<i>v</i>"})
  html = run.view._repr_mimebundle_()["text/html"]
  assert "<script>" not in html and "<img" not in html and "<i>v" not in html
  assert "&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;" in html
  assert "&lt;script&gt;" in html
  assert "application/vnd.jupyter.widget-view+json" in run.view._repr_mimebundle_()
  tree_bundle, _ = run.view.tree._repr_mimebundle_()
  state_bundle, _ = run.view.state._repr_mimebundle_()
  assert "&lt;img" in tree_bundle["text/html"] and "<img" not in tree_bundle["text/html"]
  assert "&lt;i&gt;v" in state_bundle["text/html"]


def test_tree_marks_transfers_errors_and_pauses(make_refund_agent):
  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=500.0)])
  run = nb.run(agent, "Refund A1", store="memory://")
  kinds = {n["kind"]: n for n in run.view.tree.nodes}
  assert kinds["pause"]["status"] == "pending" and "refund" in kinds["pause"]["title"]
  assert run.view.tree.status == "paused"
