"""The views without a browser: buttons, simulated browser messages, coalesced updates, static HTML."""

from __future__ import annotations

import asyncio
import json
import threading
import time

from adk_nb import Context, Workflow
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
  buttons["Approve with edits"].click()
  assert "not valid JSON" in error.value and run.status == "paused"
  args_box.value = '{"order_id": "A1", "amount": "ninety"}'
  buttons["Approve with edits"].click()
  assert "Edited arguments rejected for refund" in error.value
  assert run.status == "paused" and not buttons["Approve"].disabled
  args_box.value = '{"order_id": "A1", "amount": 90}'
  buttons["Approve with edits"].click()
  assert refunds == [("A1", 90.0)] and run.status == "done"


def test_panel_text_is_shown_as_written_not_as_latex_or_markup(make_refund_agent):
  import ipywidgets as widgets

  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=250.0)])
  run = nb.run(agent, "Refund A1", store="memory://")
  _, row = _buttons(run)
  title, hint, error = row.children[0], row.children[1], row.children[4]
  # A Label typesets `$5 and $6` as LaTeX in JupyterLab; HTML with escaped text shows it literally.
  assert not any(isinstance(w, widgets.Label) for w in (title, hint, error))
  run.view.panel.show_error(run.pending[0].call_id, "costs $5 and $6 <b>now</b>")
  assert error.value == "costs $5 and $6 &lt;b&gt;now&lt;/b&gt;"


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


async def _handed_over() -> None:
  """Returns once every callback handed to this loop from other threads so far has run (the queue is FIFO)."""
  loop = asyncio.get_running_loop()
  done = loop.create_future()
  loop.call_soon_threadsafe(done.set_result, None)
  await done


def _on_another_thread(fn, *args) -> None:
  thread = threading.Thread(target=fn, args=args)
  thread.start()
  thread.join()


async def test_a_click_from_another_thread_changes_widgets_only_on_the_kernels_loop(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = await nb.arun(agent, "Refund A1", store="memory://")
  buttons, _ = _buttons(run)
  loop_thread = threading.get_ident()
  seen = []
  buttons["Approve"].observe(lambda change: seen.append(threading.get_ident()), names="disabled")
  _on_another_thread(buttons["Approve"].click)  # as an ipykernel subshell delivers it
  await _handed_over()
  await run
  assert refunds == [("A1", 250.0)] and run.status == "done"
  assert seen and set(seen) == {loop_thread}


async def test_a_state_edit_from_another_thread_is_made_on_the_kernels_loop(make_refund_agent):
  agent, _ = make_refund_agent(["hello"])
  run = await nb.arun(agent, "hi", store="memory://")
  view = run.view.state
  loop_thread = threading.get_ident()
  seen, shown = [], asyncio.Event()

  def on_scopes(change):
    seen.append(threading.get_ident())
    shown.set()

  view.observe(on_scopes, names="scopes")
  _on_another_thread(view._handle_custom_msg, {"type": "edit", "key": "note", "value": '"x"'}, [])
  await _handed_over()
  await asyncio.wait_for(shown.wait(), 10)
  assert view.scopes["session"]["note"] == "x" and view.error == ""
  assert set(seen) == {loop_thread}


async def test_a_hello_from_another_thread_is_answered_on_the_kernels_loop(make_refund_agent):
  agent, _ = make_refund_agent(["hello there"])
  run = await nb.arun(agent, "hi", store="memory://")
  sent = []
  run.view.tree.send = lambda content, buffers=None: sent.append((threading.get_ident(), content["type"]))
  _on_another_thread(run.view.tree._handle_custom_msg, {"type": "hello"}, [])
  await _handed_over()
  assert sent == [(threading.get_ident(), "reset")]


async def test_a_double_click_on_approve_runs_the_tool_once_and_keeps_the_buttons_disabled(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = await nb.arun(agent, "Refund A1", store="memory://")
  buttons, row = _buttons(run)
  buttons["Approve"].click()
  buttons["Approve"].click()  # two comm messages back to back
  assert run.status == "running"
  assert buttons["Approve"].disabled and buttons["Reject"].disabled and row.children[4].value == ""
  await run
  assert refunds == [("A1", 250.0)] and len(run.decisions) == 1


async def test_reject_right_after_approve_keeps_the_approval(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = await nb.arun(agent, "Refund A1", store="memory://")
  buttons, row = _buttons(run)
  buttons["Approve"].click()
  buttons["Reject"].click()
  assert buttons["Approve"].disabled and buttons["Reject"].disabled and row.children[4].value == ""
  await run
  assert refunds == [("A1", 250.0)] and [d["decision"] for d in run.decisions] == ["approved"]


def test_state_edit_while_paused_then_approve(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = nb.run(agent, "Refund A1", store="memory://")
  run.view.state._handle_custom_msg({"type": "edit", "key": "note", "value": '"x"'}, [])
  assert run.view.state.error == "" and run.view.state.scopes["session"]["note"] == "x"
  run.approve()
  assert run.status == "done" and refunds == [("A1", 250.0)], (run.status, run.error)


def test_a_run_without_a_view_keeps_no_tree_operations(make_refund_agent):
  from adk_nb import Agent
  from adk_nb.models import ScriptedModel

  agent = Agent(name="s", model=ScriptedModel(["y" * 5000], chunk_size=1))
  run = nb.run(agent, "go", store="memory://", view=False, run_config=RunConfig(streaming_mode=StreamingMode.SSE))
  assert run.status == "done"
  assert run.steps.readers == 0 and run.steps.seq == 0, "operations recorded with no view to take them"


def _replay(nodes: list, messages: list) -> dict:
  """What a browser draws after `nodes` and then the ops `messages`, in order."""
  drawn = {n["id"]: dict(n) for n in nodes}
  for message in messages:
    for op in message["ops"]:
      if op[0] == "add":
        drawn[op[1]["id"]] = dict(op[1])
      elif op[0] == "set":
        drawn[op[1]].update(op[2])
      else:
        drawn[op[1]]["text"] += op[2]
  return {k: {f: v for f, v in n.items() if v not in ("", None)} for k, n in drawn.items()}


async def test_two_views_of_one_run_opened_at_different_times_both_receive_every_step(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = await nb.arun(agent, "Refund A1", store="memory://")
  first = run.view  # drawn when the run started
  assert run.status == "paused"
  second = nb.RunView(run)  # a second display of the same run, opened at the pause
  at_pause = run.steps.nodes()
  sent: dict = {"first": [], "second": []}
  first.tree.send = lambda content, buffers=None: sent["first"].append(content)
  second.tree.send = lambda content, buffers=None: sent["second"].append(content)
  run.approve()
  await run
  assert run.status == "done" and refunds == [("A1", 250.0)]
  final = _replay(run.steps.nodes(), [])
  assert "Refunded." in [n.get("text") for n in final.values()]
  for name, messages in sent.items():  # each view replays the resumed step in full from its own cursor
    assert _replay(at_pause, [m for m in messages if m["type"] == "ops"]) == final, name
  second.close()  # a closed view stops reading; the first still does
  assert run.steps.readers == 1


async def test_a_view_closed_inside_another_widget_stops_reading_its_run(make_refund_agent):
  import ipywidgets as widgets
  from adk_nb.notebook.views import close_widgets

  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = await nb.arun(agent, "Refund A1", store="memory://")
  assert run.status == "paused" and run.steps.readers == 1
  inside_a_box, closed_directly = nb.RunView(run), nb.RunView(run)
  sent = []
  for view in (inside_a_box, closed_directly):
    view.tree.send = lambda content, buffers=None: sent.append(content)
  assert run.steps.readers == 3
  close_widgets(widgets.VBox([inside_a_box]))  # the box's children closed with it, not through RunView.close
  widgets.Widget.close(closed_directly)        # ipywidgets' own close, as a generic container calls it
  assert run.steps.readers == 1  # only the run's own view still reads
  closed_directly.close()  # closing again is harmless
  run.approve()
  await run
  assert run.status == "done" and sent == [], "a closed view was still sent the run's changes"


def test_a_view_rendered_mid_run_asks_for_everything(make_refund_agent):
  agent, _ = make_refund_agent(["hello there"])
  run = nb.run(agent, "hi", store="memory://")
  sent = []
  run.view.tree.send = lambda content, buffers=None: sent.append(content)
  run.view.tree._handle_custom_msg({"type": "hello"}, [])
  assert sent[-1]["type"] == "reset"
  assert [n["kind"] for n in sent[-1]["nodes"]] == ["invocation", "user", "agent", "model_call"]


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

  def drawn(node):  # what the browser draws: an empty field and a missing one look the same
    return {k: v for k, v in node.items() if v not in ("", None)}
  assert {k: drawn(n) for k, n in nodes.items()} == {k: drawn(n) for k, n in snapshot.items()}
  assert run.view.tree.seq == len(ops_messages)
  assert sum(1 for n in snapshot.values() if n["kind"] == "tool_call") == 40


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
  assert kinds["approval"]["status"] == "pending" and "refund" in kinds["approval"]["title"]
  assert kinds["tool_call"]["status"] == "needs approval"
  assert run.view.tree.status == "paused"


def test_details_on_demand_show_the_request_as_sent_and_cut_large_payloads(make_refund_agent):
  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=20.0), "Done " + "x" * 30_000])
  run = nb.run(agent, "Refund A1", store="memory://")
  sent = []
  run.view.tree.send = lambda content, buffers=None: sent.append(content)
  models = [s for s in run.steps.steps.values() if s.kind == "model_call"]
  run.view.tree._handle_custom_msg({"type": "detail", "id": models[0].id}, [])
  sections = {s["title"]: s for s in sent[-1]["sections"]}
  assert "Help with refunds." in sections["request: system instruction"]["text"]
  assert '"name": "refund"' in sections["request: tool declarations (2)"]["text"]
  assert "Refund A1" in sections["request: contents (1)"]["text"]
  assert '"functionCall"' in sections["raw response (event)"]["text"]
  # The last answer is 30,000 characters: cut in the panel until "show all" asks for the whole.
  run.view.tree._handle_custom_msg({"type": "detail", "id": models[1].id}, [])
  response = next(s for s in sent[-1]["sections"] if s["title"] == "raw response (event)")
  assert response["cut"] > 30_000 and len(response["text"]) == 20_000
  run.view.tree._handle_custom_msg({"type": "detail", "id": models[1].id, "full": True}, [])
  response = next(s for s in sent[-1]["sections"] if s["title"] == "raw response (event)")
  assert response["cut"] == 0 and "x" * 30_000 in response["text"]
  assert "x" * 30_000 not in json.dumps(run.view.tree.get_state())  # never in the widget state
  run.view.tree._handle_custom_msg({"type": "detail", "id": "nope"}, [])
  assert sent[-1]["sections"][0]["text"] == "No details for this step."



def test_what_a_person_opened_in_the_tree_is_widget_state_that_a_step_end_keeps(make_refund_agent):
  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = nb.run(agent, "Refund A1", store="memory://")
  tree = run.view.tree
  step = next(n["id"] for n in tree.nodes if n["kind"] == "tool_call")
  # What the browser writes when a person opens the folded tool call, its details and "errors only".
  tree.set_state({"opened": {step: True}, "selected": step, "errors_only": True})
  buttons, _ = _buttons(run)
  buttons["Approve"].click()  # the run resumes and ends: a new snapshot, the display refreshed
  assert run.status == "done"
  state = tree.get_state()
  assert state["opened"] == {step: True} and state["selected"] == step
  assert state["errors_only"] is True and state["tracebacks"] == {} and state["expanded"] is False

def test_a_workflow_question_gets_a_reply_form_that_resumes_the_workflow():
  from adk_nb.events import RequestInput

  async def ask(node_input: str):
    yield RequestInput(message="Ship <img src=x onerror=alert(1)>?", payload={"draft": node_input})

  def ship(node_input: dict):
    return "shipped" if node_input.get("approved") else "kept"

  run = nb.run(Workflow(name="release", edges=[("START", ask, ship)]), "v1", store="memory://")
  assert run.status == "paused"
  row = run.view.panel.children[0]
  question, _, payload, answer, send = row.children[:5]
  # Escaped: the question reads as written and no tag reaches the page.
  assert question.value == "release asks: Ship &lt;img src=x onerror=alert(1)&gt;?"
  assert '"draft": "v1"' in payload.value and "<img" not in payload.value
  bundle = run.view._repr_mimebundle_()
  saved = (bundle[0] if isinstance(bundle, tuple) else bundle)["text/html"]  # what a saved notebook shows
  assert "release asks: Ship &lt;img src=x onerror=alert(1)&gt;?" in saved and "<img" not in saved
  answer.value = '{"approved": true}'
  send.click()
  assert run.status == "done", run.error
  assert [e.output for e in run.events if e.output is not None][-1] == "shipped"
  assert run.decisions[0]["by"] == "button" and run.decisions[0]["decision"] == "responded"
  [decision] = [s for s in run.steps.steps.values() if s.kind == "decision"]
  assert decision.title == "responded by button: Ship <img src=x onerror=alert(1)>?"
  assert json.loads(decision.text) == {"approved": True}


async def test_a_repeated_request_after_an_interrupted_run_says_it_may_have_run():
  from contextlib import suppress

  from adk_nb import Agent, InMemoryRunner
  from adk_nb.notebook.live_run import LiveRun
  from adk_nb.pending import confirmation_response
  from adk_nb.testing import ScriptedModel, answer, pending, run_turn
  from adk_nb.tools import FunctionTool

  started, starts = asyncio.Event(), []

  async def refund(order_id: str) -> dict:
    """Refunds an order."""
    starts.append(order_id)
    started.set()
    await asyncio.Event().wait()  # held until cancelled
    return {}

  model = ScriptedModel([call("refund", order_id="A"), call("refund", order_id="A")])
  runner = InMemoryRunner(Agent(name="desk", model=model, tools=[FunctionTool(refund, require_confirmation=True)]),
                          app_name="app")
  await run_turn(runner, "refund A")
  [item] = await pending(runner)
  task = asyncio.ensure_future(answer(runner, [confirmation_response(item, True)]))
  await started.wait()
  task.cancel()  # the process is interrupted while the approved tool runs
  with suppress(asyncio.CancelledError):
    await task
  await answer(runner, [confirmation_response(item, True)])  # the retry: the model asks again
  run = await LiveRun.attach(runner, session_id="session", user_id="user")
  [repeat] = run.pending
  assert repeat.may_have_run and starts == ["A"]
  row = run.view.panel.children[0]
  assert row.children[1].value.startswith("⚠ may have run:")
  assert "adknb-may-have-run" in row.children[1]._dom_classes


def test_a_workflow_run_view_draws_its_graph_live_and_a_click_filters_the_tree():
  def classify(ctx: Context, node_input: str):
    ctx.route = "<img src=x onerror=alert(1)>"
    return node_input

  def handle(node_input: str):
    return "handled"

  flow = Workflow(name="triage", edges=[("START", classify, {"<img src=x onerror=alert(1)>": handle})])
  run = nb.run(flow, "hi", store="memory://")
  assert run.status == "done", run.error
  view = run.view
  assert view.children[0] is view.graph
  labels = {n["id"]: n["label"] for n in view.graph.graph["nodes"]}
  assert {labels[k]: v for k, v in view.graph.status.items()} == {
      "classify": {"status": "done", "runs": 1}, "handle": {"status": "done", "runs": 1}}
  view.graph._on_browser_msg(view.graph, {"type": "select", "id": "node:triage/handle"}, [])
  assert view.tree.filter == "handle"
  bundle = view._repr_mimebundle_()
  saved = (bundle[0] if isinstance(bundle, tuple) else bundle)["text/html"]
  assert "&lt;img src=x onerror=alert(1)&gt;" in saved and "<img" not in saved
  assert "✓ done" in saved


def test_a_single_agent_has_no_graph_and_an_agent_alone_shows_its_graph(make_refund_agent):
  from adk_nb.notebook.graph import graph_view

  agent, _ = make_refund_agent(["hello"])
  run = nb.run(agent, "hi", store="memory://")
  assert run.view.graph is None and run.view.children[0] is run.view.tree
  view = graph_view(agent)
  assert {n["kind"] for n in view.graph["nodes"]} == {"agent", "tool"} and view.status == {}


async def test_the_artifacts_tab_lists_versions_and_previews_them_safely():
  from google.genai import types

  from adk_nb import Agent
  from adk_nb.models import ScriptedModel
  from adk_nb.tools import ToolContext

  png = b"\x89PNG\r\n\x1a\n" + b"\0" * 64

  async def make_files(tool_context: ToolContext) -> dict:
    """Saves the report files."""
    await tool_context.save_artifact("notes.txt", types.Part(text="draft"))
    await tool_context.save_artifact("notes.txt", types.Part(text="<img src=x onerror=alert(1)> final"))
    await tool_context.save_artifact("chart.png", types.Part.from_bytes(data=png, mime_type="image/png"))
    await tool_context.save_artifact("logo.svg", types.Part.from_bytes(data=b"<svg onload='alert(1)'/>",
                                                                        mime_type="image/svg+xml"))
    await tool_context.save_artifact("report.pdf", types.Part.from_bytes(data=b"%PDF-1.4", mime_type="application/pdf"))
    return {"saved": 4}

  agent = Agent(name="reporter", model=ScriptedModel([call("make_files"), "Saved."]), tools=[make_files])
  run = await nb.arun(agent, "report", store="memory://")
  assert run.status == "done", run.error
  view = run.view.artifacts
  assert [(i["name"], [(v["version"], v["mime_type"]) for v in i["versions"]]) for i in view.items] == [
      ("chart.png", [(0, "image/png")]), ("logo.svg", [(0, "image/svg+xml")]),
      ("notes.txt", [(0, "text/plain"), (1, "text/plain")]), ("report.pdf", [(0, "application/pdf")])]
  assert (await view.content("report.pdf", 0))["kind"] == "file"  # a download link
  text = await view.content("notes.txt", 1)
  assert (text["kind"], text["text"]) == ("text", "<img src=x onerror=alert(1)> final")  # drawn with textContent
  assert (await view.content("notes.txt", 0))["text"] == "draft"
  image = await view.content("chart.png", None)
  assert image["kind"] == "image" and image["mime"] == "image/png" and image["size"] == len(png)
  svg = await view.content("logo.svg", 0)  # SVG can carry scripts: its source as text, never drawn
  assert (svg["kind"], svg["text"]) == ("text", "<svg onload='alert(1)'/>")
  assert (await view.content("gone.txt", 0))["kind"] == "missing"
  bundle = run.view._repr_mimebundle_()
  saved = (bundle[0] if isinstance(bundle, tuple) else bundle)["text/html"]
  assert "notes.txt: v0 (text/plain), v1 (text/plain)" in saved


def test_a_workflow_node_waiting_for_approval_gets_approve_and_reject_buttons():
  from adk_nb.workflow import FunctionNode

  for click, expected in (("Approve", [250.0]), ("Reject", [])):
    refunds = []

    def refund(amount: float = 250.0) -> dict:
      refunds.append(amount)
      return {"refunded": amount}

    wf = Workflow(name="wf", edges=[("START", FunctionNode(func=refund, require_confirmation=True))])
    run = nb.run(wf, "go", store="memory://")
    assert run.status == "paused" and refunds == []
    row = run.view.panel.children[0]
    assert row.children[0].value == "wf wants to run the node refund"
    assert json.loads(row.children[2].value) == {"amount": 250.0}
    buttons = {w.description: w for w in row.children[3].children}
    assert set(buttons) == {"Approve", "Reject"}  # not the answer box of a plain RequestInput
    buttons[click].click()
    assert run.status == "done", run.exception
    assert refunds == expected
    assert run.decisions[0]["decision"] == ("approved" if click == "Approve" else "rejected")
    assert run.decisions[0]["by"] == "button"
