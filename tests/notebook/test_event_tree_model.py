"""The event tree's browser side draws what Python computes: one vocabulary, one trace, checked without a browser."""

from __future__ import annotations

import re

from adk_nb.inspect import LABELS, STATUS_TEXT
from adk_nb.inspect.step import CONTAINER_KINDS
from adk_nb.models import call
import adk_nb.notebook as nb
from adk_nb.notebook.views import WIDGETS_DIR
from tests.support import forecaster

JS = (WIDGETS_DIR / "event_tree.js").read_text()
CODE = re.sub(r"^\s*//.*$", "", JS, flags=re.M)  # comments may name kinds; code may not


def _literals(code: str) -> set[str]:
  return set(re.findall(r'"([^"\\]*)"', code)) | set(re.findall(r"'([^'\\]*)'", code))


def test_the_browser_declares_no_step_kind_or_status_of_its_own():
  # Kinds, statuses and their words are declared once, in adk_nb.inspect, and sent to the browser.
  declared = (set(LABELS) | set(STATUS_TEXT) | set(CONTAINER_KINDS) | {"running", "paused"}) - {""}
  ops = {"add", "set", "text"}  # the op batches' own words (["text", id, chunk] appends to a step's text)
  copied = sorted(_literals(CODE) & declared - ops)
  assert copied == [], (f"event_tree.js names {copied}: declare them in adk_nb.inspect (step.vocabulary(), "
                        "the trace) and read them from the model")


def test_the_browser_and_python_agree_on_which_steps_are_still_running():
  from adk_nb.inspect.timeline import RUNNING_STATUSES

  # A set of running statuses written in the JS must be Python's (the old copy lacked '', so a workflow's
  # root step, status '' while it runs, was drawn as a sliver in the browser and to "now" by Python).
  for body in re.findall(r"new Set\(\[([^\]]*)\]\)", CODE):
    words = set(re.findall(r'"([^"]*)"', body))
    if "running" in words:
      assert words == set(RUNNING_STATUSES), f"the JS's running statuses {sorted(words)} differ from Python's"


def test_the_widget_sends_the_vocabulary_and_the_js_reads_only_what_is_sent(make_refund_agent):
  from adk_nb.inspect.step import vocabulary
  from adk_nb.inspect.timeline import Span, trace

  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=20.0), "Refunded."])
  tree = nb.run(agent, "Refund A1", store="memory://").view.tree
  assert tree.vocabulary == vocabulary() and tree.labels == LABELS and tree.status_text == STATUS_TEXT
  read = set(re.findall(r"\bv\.(\w+)", CODE)) | set(re.findall(r'get\("vocabulary"\)\.(\w+)', CODE))
  keys = {re.sub(r"_(\w)", lambda m: m.group(1).upper(), k) for k in vocabulary()} | set(vocabulary())
  assert read and read <= keys, f"the JS reads {sorted(read - keys)} that Python does not send"
  # The trace rows: every field the timeline reads (r.<field>) is one Python sends.
  fields = set(trace({}).as_message()["fields"])
  assert fields == {f for f in Span.__dataclass_fields__ if f not in ("start", "end")}
  drawn = set(re.findall(r"\br\.(\w+)", CODE))
  assert drawn and drawn <= fields, f"the timeline draws {sorted(drawn - fields)}, which the trace does not carry"


def _sent(tree) -> list[dict]:
  sent: list[dict] = []
  tree.send = lambda content, buffers=None: sent.append(content)
  return sent


def test_the_timeline_is_computed_in_python_only_while_it_is_shown(make_refund_agent):
  from adk_nb.inspect.timeline import trace

  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = nb.run(agent, "Refund A1", store="memory://")
  tree = run.view.tree
  sent = _sent(tree)
  run.approve()  # the run resumes and ends: tree batches, a snapshot, no timeline (its tab is closed)
  assert run.status == "done" and sent and not [m for m in sent if m["type"] == "trace"]
  tree.set_state({"timeline": True})  # a person opens the tab; the browser asks for the rows
  tree._handle_custom_msg({"type": "trace"}, [])
  (message,) = [m for m in sent if m["type"] == "trace"]
  assert message == trace(run.steps).as_message()
  rows = [dict(zip(message["fields"], row)) for row in message["rows"]]
  assert [r["kind"] for r in rows][:3] == ["invocation", "agent", "model_call"]
  assert any(r["label"].startswith("human wait: approval refund(") for r in rows)


def test_an_open_timeline_follows_the_run_in_throttled_pushes(make_refund_agent):
  from adk_nb.inspect.timeline import trace

  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  run = nb.run(agent, "Refund A1", store="memory://")
  tree = run.view.tree
  tree.set_state({"timeline": True})
  sent = _sent(tree)
  run.approve()
  traces = [m for m in sent if m["type"] == "trace"]
  assert traces and traces[-1] == trace(run.steps).as_message()  # the last push shows the finished run
  assert not any(row[message["fields"].index("running")] for message in traces[-1:] for row in message["rows"])
  # After tree batches a push waits TRACE_EVERY after the last one; the run's end always pushes; a closed tab none.
  sent.clear()
  tree.TRACE_EVERY = 3600.0
  tree.send_trace()  # as at the run's end: always sent
  tree.send_trace(throttled=True)  # after a tree batch, within TRACE_EVERY of the last: not computed
  assert len(sent) == 1
  tree.send_trace()
  assert len(sent) == 2
  tree.set_state({"timeline": False})
  tree.send_trace()
  assert len(sent) == 2


def _detail(tree, step_id: str, sent: list[dict]) -> dict:
  tree._handle_custom_msg({"type": "detail", "id": step_id}, [])
  return sent[-1]


def test_edit_and_continue_from_a_tool_step_opens_the_continued_run_below():
  runs: list[str] = []
  agent, model = forecaster(runs)
  run = nb.run(agent, "weather?", store="memory://")
  view, tree = run.view, run.view.tree
  sent = _sent(tree)
  [tool] = [s for s in run.steps.steps.values() if s.kind == "tool_call"]
  actions = _detail(tree, tool.id, sent)["actions"]
  assert actions["what"] == "the tool's result" and '"temp": 21' in actions["value"]
  calls = len(model.requests)
  # Bad JSON: the kernel says how to fix it and nothing runs.
  tree._handle_custom_msg({"type": "edit", "id": tool.id, "value": '{"city": "Paris", temp: 35}'}, [])
  assert sent[-1]["type"] == "step_error" and "not valid JSON" in sent[-1]["message"]
  assert "nothing was sent" in sent[-1]["message"] and view.continued == [] and len(model.requests) == calls
  tree._handle_custom_msg({"type": "edit", "id": tool.id,
                           "value": actions["value"].replace('"temp": 21', '"temp": 35')}, [])
  [edited] = view.continued
  assert sent[-1] == {"type": "continued", "id": tool.id, "session": edited.session_id}
  assert edited.final_text == "Paris: 35 degrees" and runs == ["Paris"]  # the tool did not run again
  assert len(model.requests) == calls + 1  # one live model call: only what follows the edit
  assert view.children[-1] is edited.view  # shown below the run it came from
  assert run.final_text == "Paris: 21 degrees"  # the original is as it was


def test_fork_here_on_a_model_step_continues_from_its_answer_and_edits_check_the_shape():
  runs: list[str] = []
  agent, model = forecaster(runs)
  run = nb.run(agent, "weather?", store="memory://")
  tree = run.view.tree
  sent = _sent(tree)
  first, last = [s for s in run.steps.steps.values() if s.kind == "model_call"]
  assert _detail(tree, first.id, sent)["actions"]["value"] == '{\n  "call": "lookup",\n  "args": {\n    "city": "Paris"\n  }\n}'
  assert _detail(tree, last.id, sent)["actions"] == {"what": "the model's answer", "value": '"Paris: 21 degrees"'}
  tree._handle_custom_msg({"type": "edit", "id": first.id, "value": '{"call": "lookup", "args": ["Rome"]}'}, [])
  assert sent[-1]["type"] == "step_error" and "must be a JSON object" in sent[-1]["message"]
  tree._handle_custom_msg({"type": "fork", "id": first.id}, [])  # the same call, continued live: the tool runs
  [forked] = run.view.continued
  assert forked.final_text == "Paris: 21 degrees" and runs == ["Paris", "Paris"]
  tree._handle_custom_msg({"type": "edit", "id": first.id, "value": '{"call": "lookup", "args": {"city": "Rome"}}'}, [])
  assert run.view.continued[-1].final_text == "Rome: 21 degrees" and runs[-1] == "Rome"
  # Steps with nothing to continue from offer nothing, and a message naming one is refused.
  [agent_step] = [s for s in run.steps.steps.values() if s.kind == "agent"]
  assert "actions" not in _detail(tree, agent_step.id, sent)
  tree._handle_custom_msg({"type": "fork", "id": agent_step.id}, [])
  assert sent[-1]["type"] == "step_error" and len(run.view.continued) == 2
