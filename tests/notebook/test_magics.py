"""%%agent and %agent through IPython's InteractiveShell."""

from __future__ import annotations

import subprocess
import sys

from IPython.core.error import UsageError

from adk_nb.models import call


def _run(shell, code):
  result = shell.run_cell(code, store_history=True)
  return result


def test_agent_cell_awaits_the_run_and_its_value_is_the_live_run(shell, make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  shell.user_ns.update(agent=agent, refunds=refunds)
  result = _run(shell, "%%agent agent --store memory:// --no-wait\nPlease refund order A1")
  assert result.error_in_exec is None, result.error_in_exec
  run = result.result
  assert run.status == "paused" and refunds == []
  assert agent.model.requests[0].contents[-1].parts[0].text == "Please refund order A1"
  assert _run(shell, "_.approve()").error_in_exec is None
  assert _run(shell, "await _").result.status == "done"
  assert refunds == [("A1", 250.0)]


async def test_agent_cell_runs_with_run_cell_async(shell, make_refund_agent):
  agent, _ = make_refund_agent(["Hello!"])
  shell.user_ns["agent"] = agent
  code = "%%agent agent --store memory:// --out r\nhi"
  result = await shell.run_cell_async(code, store_history=True, transformed_cell=shell.transform_cell(code))
  assert result.error_in_exec is None, result.error_in_exec
  assert shell.user_ns["r"] is result.result and result.result.final_text == "Hello!"


def test_bad_options_give_a_one_line_usage_error(shell, make_refund_agent, capsys):
  agent, _ = make_refund_agent([])
  shell.user_ns["agent"] = agent
  result = _run(shell, "%%agent agent --bogus\nhi")
  assert isinstance(result.error_in_exec, UsageError)
  assert "unknown option --bogus" in str(result.error_in_exec)
  assert "usage: %%agent AGENT" in str(result.error_in_exec)
  result = _run(shell, "%%agent nobody\nhi")
  assert "No variable named 'nobody'" in str(result.error_in_exec)
  result = _run(shell, "%%agent agent --approve maybe\nhi")
  assert isinstance(result.error_in_exec, UsageError)
  result = _run(shell, "%%agent agent --store memory://\n")
  assert "The cell is empty" in str(result.error_in_exec)
  result = _run(shell, "%%agent agent --state novalue\nhi")
  assert "--state expects key=value" in str(result.error_in_exec)
  err = capsys.readouterr().err + capsys.readouterr().out
  assert "Traceback" not in err


def test_interpolation_fills_names_and_leaves_json_alone(shell, make_refund_agent):
  agent, _ = make_refund_agent(["ok"])
  shell.user_ns.update(agent=agent, order="A7")
  body = 'Refund {order} with {"priority": 1} and {missing} and {{order}}'
  assert _run(shell, f"%%agent agent --store memory:// -i\n{body}").error_in_exec is None
  sent = agent.model.requests[0].contents[-1].parts[0].text
  assert sent == 'Refund A7 with {"priority": 1} and {missing} and {{order}}'


def test_interpolate_a_name_at_the_end_of_a_json_object():
  from adk_nb.notebook.magics import interpolate

  assert interpolate('{"order": {order}}', {"order": "A7"}) == '{"order": A7}'
  assert interpolate('[{a}]{b}', {"a": 1, "b": 2}) == '[1]2'


def test_agent_cell_with_leading_blank_lines(shell, make_refund_agent):
  agent, _ = make_refund_agent(["ok"])
  shell.user_ns.update(agent=agent, x=5)
  result = _run(shell, '\n\n%%agent agent --store memory:// -i\nx is {x} {}\n')
  assert result.error_in_exec is None, result.error_in_exec
  assert agent.model.requests[0].contents[-1].parts[0].text == 'x is 5 {}'


def test_agent_cell_body_keeps_prompt_like_lines(shell, make_refund_agent):
  agent, _ = make_refund_agent(["ok"])
  shell.user_ns["agent"] = agent
  body = ">>> x = 1\n... y = 2\nWhy does this fail?"
  result = _run(shell, f"%%agent agent --store memory://\n{body}")
  assert result.error_in_exec is None, result.error_in_exec
  assert agent.model.requests[0].contents[-1].parts[0].text == body


def test_agent_line_inside_a_string_literal_is_left_alone(shell):
  result = shell.run_cell('doc = """\n%agent sessions\n"""\n', store_history=False)
  assert result.error_in_exec is None and result.error_before_exec is None
  assert shell.user_ns["doc"] == "\n%agent sessions\n"


async def test_an_agent_cell_on_a_session_still_running_in_the_background_is_a_usage_error(shell, make_refund_agent):
  agent, _ = make_refund_agent(["one", "two"])
  shell.user_ns["agent"] = agent
  code = "%%agent agent --session s --background --out first\nhi"
  await shell.run_cell_async(code, store_history=True, transformed_cell=shell.transform_cell(code))
  assert shell.user_ns["first"].status == "running"
  code = "%%agent agent --session s\nagain"
  result = await shell.run_cell_async(code, store_history=True, transformed_cell=shell.transform_cell(code))
  assert isinstance(result.error_in_exec, UsageError) and "still running" in str(result.error_in_exec)
  await shell.user_ns["first"]
  assert shell.user_ns["first"].status == "done"


def test_state_session_new_and_quiet(shell, make_refund_agent, capsys):
  agent, _ = make_refund_agent(["one", "two", "three"])
  shell.user_ns["agent"] = agent
  first = _run(shell, "%%agent agent --store memory:// --state user:tier=gold limit=100 --session s1\nhi").result
  assert first.session_id == "s1"
  assert first.state["user:tier"] == "gold" and first.state["limit"] == 100
  second = _run(shell, "%%agent agent --store memory:// --quiet\nagain").result
  assert second.session_id == "s1"
  assert "two" in capsys.readouterr().out
  third = _run(shell, "%%agent agent --store memory:// --new\nfresh").result
  assert third.session_id != "s1"


def test_line_magic_sessions_state_pending_reset(shell, make_refund_agent, capsys):
  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=250.0)])
  shell.user_ns["agent"] = agent
  run = _run(shell, "%%agent agent --store memory:// --no-wait --state note=hi\nRefund A1").result
  sessions = _run(shell, "%agent sessions").result
  assert list(sessions["session"]) == [run.session_id] and bool(sessions["current"].iloc[0])
  assert _run(shell, "%agent state").result == {"note": "hi"}
  (item,) = _run(shell, "%agent pending").result
  assert item.tool == "refund"
  _run(shell, "%agent reset")
  assert "starts a new session" in capsys.readouterr().out
  assert _run(shell, "%agent state").result == {}
  assert isinstance(_run(shell, "%agent frobnicate").error_in_exec, UsageError)


def test_help_and_unload(shell, capsys):
  _run(shell, "%%agent?")
  assert "Runs an agent on the cell's text" in capsys.readouterr().out
  from adk_nb.notebook.magics import transform_agent_cells

  shell.run_cell("%unload_ext adk_nb", store_history=False)
  assert transform_agent_cells not in shell.input_transformers_cleanup
  assert "agent" not in shell.magics_manager.magics["cell"]
  shell.run_cell("%load_ext adk_nb", store_history=False)
  assert "agent" in shell.magics_manager.magics["cell"]


def test_run_cell_magic_called_directly_runs_to_the_end(shell, make_refund_agent):
  agent, _ = make_refund_agent(["Hi."])
  shell.user_ns["agent"] = agent
  run = shell.run_cell_magic("agent", "agent --store memory://", "hello")
  assert run.status == "done" and run.final_text == "Hi."


def test_import_adk_nb_stays_light():
  code = ("import sys, adk_nb; heavy = [m for m in ('IPython', 'ipywidgets', 'pandas', 'anywidget') "
          "if m in sys.modules]; print(heavy)")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
  assert out.strip() == "[]"
  assert callable(__import__("adk_nb").load_ipython_extension)


def test_state_values_with_spaces_and_named_agent_uses_its_own_store(shell, make_refund_agent, tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  agent, _ = make_refund_agent(["one"])
  shell.user_ns["agent"] = agent
  run = _run(shell, '%%agent agent --store memory:// --state "tagline=a b" motto="c d"\nhi').result
  assert run.state["tagline"] == "a b" and run.state["motto"] == "c d"
  # Naming the agent finds the memory store it ran with, not the default SQLite store.
  assert _run(shell, "%agent state agent").result == {"tagline": "a b", "motto": "c d"}
  assert not (tmp_path / ".adk_nb").exists()


def test_an_option_typo_names_the_nearest_option_and_the_usage(shell, make_refund_agent):
  agent, _ = make_refund_agent(["ok"])
  shell.user_ns["agent"] = agent
  result = _run(shell, "%%agent agent --sesion trip\nhi")
  assert isinstance(result.error_in_exec, UsageError)
  message = str(result.error_in_exec)
  assert "unknown option --sesion. Did you mean --session?" in message
  assert "usage: %%agent AGENT [--session NAME]" in message
  assert agent.model.requests == []  # nothing ran


def test_a_run_that_ends_in_error_fails_its_cell_after_showing_the_view(shell, make_refund_agent, capsys):
  agent, _ = make_refund_agent([RuntimeError("model down")])
  shell.user_ns["agent"] = agent
  result = _run(shell, "%%agent agent --store memory:// --out failed\nhi")
  assert isinstance(result.error_in_exec, RuntimeError) and "model down" in str(result.error_in_exec)
  run = shell.user_ns["failed"]
  assert run.status == "error" and "model down" in run.error
  assert run.view.tree.status == "error"  # the view shows the error before the cell fails
  result = _run(shell, "print('after')")
  assert result.error_in_exec is None


def test_with_no_wait_a_paused_run_does_not_fail_its_cell(shell, make_refund_agent):
  agent, _ = make_refund_agent([call("refund", order_id="A1", amount=250.0), call("refund", order_id="A2", amount=300.0)])
  shell.user_ns["agent"] = agent
  result = _run(shell, "%%agent agent --store memory:// --no-wait\nRefund A1")
  assert result.error_in_exec is None and result.result.status == "paused"
  result = _run(shell, "%%agent agent --store memory:// --new --wait 0\nRefund A1")
  assert result.error_in_exec is None and result.result.status == "paused"


def test_a_paused_cell_nobody_can_click_fails_saying_how_to_answer_and_stays_paused(shell, make_refund_agent):
  from adk_nb.notebook.waiting import NoAnswer

  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded."])
  shell.user_ns["agent"] = agent
  # Plain IPython draws no widgets: the cell fails at once (Run All stops here) instead of going on paused.
  result = _run(shell, "%%agent agent --store memory:// --out booking\nRefund A1")
  assert isinstance(result.error_in_exec, NoAnswer)
  message = str(result.error_in_exec)
  assert "waits for refund(" in message and "Nobody can click here" in message
  assert "--out booking --no-wait" in message and "booking.approve()" in message
  assert "--approve auto|deny" in message and "the run stays paused" in message
  assert _run(shell, "booking.status").result == "paused" and refunds == []
  assert _run(shell, "booking.approve()").error_in_exec is None
  assert _run(shell, "await booking").result.status == "done" and refunds == [("A1", 250.0)]


def test_a_quiet_failed_run_prints_the_error_then_fails_the_cell(shell, make_refund_agent, capsys):
  agent, _ = make_refund_agent([RuntimeError("model down")])
  shell.user_ns["agent"] = agent
  result = _run(shell, "%%agent agent --store memory:// --quiet\nhi")
  assert isinstance(result.error_in_exec, RuntimeError)
  assert "model down" in capsys.readouterr().err


def test_after_a_restart_pending_finds_the_pause_and_resume_reopens_it_with_buttons(shell, make_refund_agent, capsys):
  from adk_nb.notebook._sessions import registry

  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded A1."])
  shell.user_ns["agent"] = agent
  first = _run(shell, "%%agent agent --no-wait\nRefund A1").result  # the default store: SQLite in the working folder
  assert first.status == "paused"
  registry.clear()  # as after a kernel restart: a fresh registry, the same SQLite file
  (item,) = _run(shell, "%agent pending agent").result
  assert item.tool == "refund" and f"session {first.session_id} (user user): 1 pending: refund" in capsys.readouterr().out
  run = _run(shell, "%agent resume agent").result
  assert run is not first and (run.status, run.session_id) == ("paused", first.session_id)
  assert [n["kind"] for n in run.steps.nodes()][:3] == ["invocation", "user", "agent"]
  assert any(n["kind"] == "approval" and n["status"] == "pending" for n in run.steps.nodes())
  [approve] = [b for b in run.view.panel.children[0].children[3].children if getattr(b, "description", "") == "Approve"]
  approve.click()
  assert refunds == [("A1", 250.0)] and run.status == "done" and run.final_text == "Refunded A1."
  assert _run(shell, "%agent pending agent --session " + first.session_id).result == []
  assert "No session of support waits" in str(_run(shell, "%agent resume agent").error_in_exec)
  assert "is not in support's store" in str(_run(shell, "%agent resume agent --session nope").error_in_exec)


def test_pending_and_resume_open_another_users_session_as_its_owner(shell, make_refund_agent, capsys):
  from adk_nb.notebook._sessions import registry

  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded A1."])
  shell.user_ns["agent"] = agent
  first = _run(shell, "%%agent agent --user alice --no-wait\nRefund A1").result
  assert (first.status, first.user_id) == ("paused", "alice")
  registry.clear()  # a restarted kernel: the agent's current user is the default one, not alice
  (item,) = _run(shell, f"%agent pending agent --session {first.session_id}").result
  assert item.tool == "refund"
  run = _run(shell, f"%agent resume agent --session {first.session_id}").result
  assert (run.status, run.session_id, run.user_id) == ("paused", first.session_id, "alice")
  [approve] = [b for b in run.view.panel.children[0].children[3].children if getattr(b, "description", "") == "Approve"]
  approve.click()
  assert refunds == [("A1", 250.0)] and run.status == "done"
  assert run.user_id == "alice" and registry.get(agent).user_id == "alice"
  wrong = _run(shell, f"%agent resume agent --session {first.session_id} --user bob").error_in_exec
  assert "of user 'bob' is not in" in str(wrong)


def test_resume_of_a_session_id_two_other_users_share_names_them(shell, make_refund_agent):
  agent, _ = make_refund_agent(["Hi.", "Hi.", "Hi."])
  shell.user_ns["agent"] = agent
  for user, session in (("ann", "s1"), ("bob", "s1"), ("cy", "s2")):
    assert _run(shell, f"%%agent agent --store memory:// --user {user} --session {session}\nhi").result.status == "done"
  shared = _run(shell, "%agent resume agent --session s1").error_in_exec
  assert isinstance(shared, UsageError) and "exists for users 'ann', 'bob'" in str(shared) and "--user ann" in str(shared)
  assert _run(shell, "%agent pending agent --session s1 --user bob").result == []


def test_importing_adk_nb_in_a_notebook_loads_the_magics_without_load_ext(tmp_path):
  # A fresh process: the first `import adk_nb` in an IPython shell registers %%agent.
  code = ("from IPython.core.interactiveshell import InteractiveShell\n"
          "shell = InteractiveShell.instance()\n"
          "assert 'agent' not in shell.magics_manager.magics['cell']\n"
          "assert shell.run_cell('from adk_nb import Agent').success\n"
          "assert 'agent' in shell.magics_manager.magics['cell'], 'not registered'\n"
          "result = shell.run_cell('%load_ext adk_nb')\n"  # a later %load_ext is harmless
          "print('ok', result.success)\n")
  done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
  assert done.returncode == 0, done.stderr[-2000:]
  assert done.stdout.strip().endswith("ok True")
  # Plain Python: importing adk_nb does not import IPython.
  plain = subprocess.run([sys.executable, "-c", "import sys, adk_nb; print('IPython' in sys.modules)"],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
  assert plain.stdout.strip() == "False", plain.stderr


def test_sessions_list_status_export_import_and_delete(shell, make_refund_agent, capsys, tmp_path):
  import json

  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Hello again.", "Hi."])
  shell.user_ns["agent"] = agent
  paused = _run(shell, "%%agent agent --store memory:// --no-wait --session p1\nRefund A1").result
  assert paused.status == "paused"
  _run(shell, "%%agent agent --store memory:// --session p1 --no-wait\nhello")  # answers nothing: still paused
  done = _run(shell, "%%agent agent --store memory:// --session d1\nhi").result
  assert done.status == "done"
  table = _run(shell, "%agent sessions agent").result
  assert dict(zip(table["session"], table["status"])) == {"p1": "paused", "d1": "done"}
  assert list(table.columns) == ["session", "name", "user", "current", "last_update", "events", "status", "forked_from",
                                 "forked_at"]
  # Export in google-adk's session JSON, import it under a new id: the same events, the pause kept.
  assert _run(shell, f"%agent export agent --session p1 {tmp_path}/p1.json").error_in_exec is None
  exported = json.loads((tmp_path / "p1.json").read_text())
  assert exported["id"] == "p1" and exported["appName"] and exported["userId"] == "user"
  assert {"invocationId", "author"} <= set(exported["events"][0])
  assert _run(shell, f"%agent import agent {tmp_path}/p1.json --session copy").result == "copy"
  again = _run(shell, f"%agent import agent {tmp_path}/p1.json --session copy").error_in_exec
  assert "already exists" in str(again) and "nothing was imported" in str(again)
  table = _run(shell, "%agent sessions agent").result
  status = dict(zip(table["session"], table["status"]))
  events = dict(zip(table["session"], table["events"]))
  assert status["copy"] == "paused" and events["copy"] == events["p1"]
  reopened = _run(shell, "%agent resume agent --session copy").result
  assert reopened.status == "paused" and reopened.pending[0].tool == "refund"
  # Delete: gone from the list; a missing session is named with the fix.
  assert _run(shell, "%agent delete agent --session d1").error_in_exec is None
  assert "d1" not in set(_run(shell, "%agent sessions agent").result["session"])
  missing = _run(shell, "%agent delete agent --session d1").error_in_exec
  assert "No session 'd1'" in str(missing) and "%agent sessions agent" in str(missing)
  assert "Deleted session d1" in capsys.readouterr().out and refunds == []


def test_dollar_names_on_the_agent_line_are_expanded_as_in_any_magic(shell, make_refund_agent):
  agent, _ = make_refund_agent(["one", "two"])
  shell.user_ns.update(helper=agent, which="helper", session="s-$", tier="gold")
  run = _run(shell, "%%agent $which --store memory:// --session $session --state user:tier=$tier note=$$5\nhi").result
  assert run is not None and run.session_id == "s-$"
  assert run.state["user:tier"] == "gold" and run.state["note"] == "$5"
  assert _run(shell, "%agent state $which").result["note"] == "$5"
