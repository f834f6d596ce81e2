"""Code executors: model-written code run in a real child process, what the model reads back, retries."""

import asyncio
import logging
import os
import re
import sys
import time

import pytest
from google.genai import types

from adk_nb import Agent
from adk_nb.code_executors import (BuiltInCodeExecutor, CodeExecutionInput, CodeExecutionUtils, CodeExecutorContext,
                                   UnsafeLocalCodeExecutor)
from adk_nb.models import ScriptedModel
from adk_nb.runners import InMemoryRunner
from adk_nb.testing import run_turn
from tests.support import last_text


def fenced(code, lang="python"):
  return f"```{lang}\n{code}\n```"


def runner_for(model, **executor):
  agent = Agent(name="coder", model=model, code_executor=UnsafeLocalCodeExecutor(**executor))
  return InMemoryRunner(agent, app_name="code")


async def state_of(runner):
  session = await runner.session_service.get_session(app_name="code", user_id="user", session_id="session")
  return session.state


def kinds(events):
  out = []
  for e in events[1:]:
    for p in e.content.parts:
      if p.executable_code:
        out.append(("code", p.executable_code.code))
      elif p.code_execution_result:
        out.append((p.code_execution_result.outcome.name, p.code_execution_result.output))
      else:
        out.append(("text", p.text))
  return out


async def test_code_in_an_answer_runs_in_a_child_process_and_the_model_reads_the_output():
  model = ScriptedModel([f"Let me compute.\n{fenced('import os; print(6 * 7, os.getpid())')}\nnot kept",
                         "The answer is 42."])
  runner = runner_for(model)

  events = await run_turn(runner, "What is 6 x 7?")

  prefix, code_step, result_step, answer = kinds(events)
  assert prefix == ("text", "Let me compute.\n") and code_step == ("code", "import os; print(6 * 7, os.getpid())")
  outcome, output = result_step
  value, pid = output.removeprefix("Code execution result:\n").split()
  assert outcome == "OUTCOME_OK" and value == "42" and int(pid) != os.getpid()
  assert answer == ("text", "The answer is 42.") and events[-1].is_final_response()
  assert not events[2].is_final_response()  # a trailing result: the model goes on
  # The second request shows the code and its output as fenced text (the output from the user side).
  sent = [(c.role, [p.text for p in c.parts]) for c in model.requests[1].contents]
  assert sent[1:] == [("model", ["Let me compute.\n", "```tool_code\nimport os; print(6 * 7, os.getpid())\n```"]),
                      ("user", [f"```tool_output\n{output}\n```"])]
  state = await state_of(runner)
  [run] = state["_code_execution_results"][events[1].invocation_id]
  assert run["code"].startswith("import os") and run["result_stderr"] == ""
  assert state["_code_execution_context"] == {}


async def test_failed_runs_are_retried_up_to_error_retry_attempts_per_invocation():
  boom = f"Trying.\n{fenced('print(1 / 0)')}"
  model = ScriptedModel([boom, boom, boom, boom, "Done."])
  runner = runner_for(model)

  events = await run_turn(runner, "Divide.")

  steps = kinds(events)
  failures = [s for s in steps if s[0] == "OUTCOME_FAILED"]
  assert len(failures) == 2 and all("ZeroDivisionError: division by zero" in out for _, out in failures)
  assert 'File "<code>", line 1' in failures[0][1]  # the traceback names the model's code, not the wrapper
  # The third answer's code is not run: the answer stands as given, and ends the turn.
  assert len(model.requests) == 3 and events[-1].is_final_response() and "```python" in events[-1].text
  invocation = events[1].invocation_id
  assert (await state_of(runner))["_code_executor_error_counts"] == {invocation: 2}

  # A new invocation starts from zero: its code runs again.
  events = await run_turn(runner, "Again.")
  assert [s[0] for s in kinds(events)] == ["text", "code", "OUTCOME_FAILED", "text"]
  counts = (await state_of(runner))["_code_executor_error_counts"]
  assert counts[invocation] == 2 and counts[events[1].invocation_id] == 1


async def test_a_successful_run_resets_the_error_count():
  model = ScriptedModel([fenced("raise ValueError('bad input')"), fenced("print('fixed')"), "ok"])
  runner = runner_for(model)
  events = await run_turn(runner, "Go")
  assert [s[0] for s in kinds(events)] == ["code", "OUTCOME_FAILED", "code", "OUTCOME_OK", "text"]
  assert "ValueError: bad input" in kinds(events)[1][1]
  assert (await state_of(runner))["_code_executor_error_counts"] == {}


async def test_an_endless_loop_is_stopped_at_the_timeout_with_what_it_started(tmp_path):
  pid_file = tmp_path / "grandchild.pid"
  code = (f"import subprocess, sys\n"
          f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
          f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
          f"print('looping', flush=True)\n"
          f"while True:\n  pass")
  model = ScriptedModel([fenced(code), "It took too long."])
  # The timeout counts from the launch, so it must leave a loaded machine time to start Python and the
  # grandchild (1 s did not always); the loop then runs until the timeout, whatever it is.
  events = await run_turn(runner_for(model, timeout_seconds=3), "Loop")

  outcome, output = kinds(events)[1]
  assert outcome == "OUTCOME_FAILED" and "timed out after 3 seconds" in output
  grandchild = int(pid_file.read_text())
  assert _ends_soon(grandchild)
  assert last_text(events) == "It took too long."


def _ends_soon(pid, within=30.0):
  """The process was sent SIGKILL: it ends once the (maybe busy) machine schedules it."""
  deadline = time.monotonic() + within
  while not _gone_or_zombie(pid):
    if time.monotonic() > deadline:
      return False
    time.sleep(0.05)
  return True


def _gone_or_zombie(pid):
  try:
    with open(f"/proc/{pid}/status") as status:
      return any(line.startswith("State:") and "Z" in line.split()[1] for line in status)
  except FileNotFoundError:
    return True


def test_exit_status_not_stderr_decides_failure():
  executor = UnsafeLocalCodeExecutor(timeout_seconds=30)
  warned = executor.execute_code(None, CodeExecutionInput(code="import sys; print('w', file=sys.stderr); print('ok')"))
  assert (warned.stdout, warned.stderr, warned.exit_code) == ("ok\n", "", 0)
  silent = executor.execute_code(None, CodeExecutionInput(code="import os; os._exit(3)"))
  assert silent.exit_code == 3 and "exit status 3" in silent.stderr
  main = executor.execute_code(None, CodeExecutionInput(code="if __name__ == '__main__':\n  print('main')"))
  assert main.stdout == "main\n"


def test_the_unsafe_executor_warns_and_refuses_state(caplog):
  with caplog.at_level(logging.WARNING, logger="adk_nb.code_executors"):
    UnsafeLocalCodeExecutor()
  assert "no sandbox" in caplog.text
  with pytest.raises(ValueError, match="stateful"):
    UnsafeLocalCodeExecutor(stateful=True)


def test_agents_refuse_what_is_not_an_executor():
  with pytest.raises(ValueError, match="UnsafeLocalCodeExecutor"):
    Agent(name="a", model=ScriptedModel([]), code_executor="python")


async def test_built_in_executor_is_refused_for_a_model_that_is_not_gemini():
  model = ScriptedModel(["never"])
  agent = Agent(name="coder", model=model, code_executor=BuiltInCodeExecutor())
  with pytest.raises(ValueError, match="Gemini's code execution tool"):
    await run_turn(InMemoryRunner(agent, app_name="code"), "Go")
  assert model.requests == []


def test_code_executor_context_keeps_adks_keys_and_never_edits_stored_values():
  state = {"_code_executor_error_counts": {"other": 1}}
  stored = state["_code_executor_error_counts"]
  ctx = CodeExecutorContext(state)
  ctx.increment_error_count("inv")
  ctx.increment_error_count("inv")
  assert ctx.get_error_count("inv") == 2 and stored == {"other": 1}
  ctx.reset_error_count("inv")
  assert state["_code_executor_error_counts"] == {"other": 1}
  ctx.set_execution_id("s1")
  assert ctx.get_state_delta() == {"_code_execution_context": {"execution_session_id": "s1"}}


def test_extract_code_takes_the_earliest_block_and_cuts_the_content():
  content = types.Content(role="model", parts=[types.Part(text="a\n```python\nx = 1\n```\nb ```tool_code\ny\n```")])
  code = CodeExecutionUtils.extract_code_and_truncate_content(content, UnsafeLocalCodeExecutor().code_block_delimiters)
  assert code == "x = 1"
  assert [p.text for p in content.parts] == ["a\n", None] and content.parts[1].executable_code.code == "x = 1"
  answered = types.Content(role="model", parts=[
      types.Part.from_executable_code(code="1", language="PYTHON"),
      types.Part.from_code_execution_result(outcome="OUTCOME_OK", output="1"), types.Part(text="no code")])
  assert CodeExecutionUtils.extract_code_and_truncate_content(answered, [("```python\n", "\n```")]) is None


# Output is capped while it is read, and a run ends with everything it started (issue 28, item 4).

def test_a_print_loop_past_its_timeout_keeps_a_bounded_head_and_tail():
  # 3 s from the launch: time for a loaded machine to start Python and print past the 10,000 kept characters.
  executor = UnsafeLocalCodeExecutor(timeout_seconds=3, max_output_chars=10_000)
  code = "print('start')\ni = 0\nwhile True:\n  print(i)\n  i += 1"

  result = executor.execute_code(None, CodeExecutionInput(code=code))

  assert "timed out after 3 seconds" in result.stderr and result.exit_code != 0
  cut = re.fullmatch(r"(.*)\n\.\.\.\[\d+ characters of output left out; raise max_output_chars "
                     r"on the code executor to keep more\]\.\.\.\n(.*)", result.stdout, re.S)
  assert cut, f"{len(result.stdout)} characters kept, no marker"
  head, tail = cut.groups()
  assert head.startswith("start\n0\n1\n2\n") and len(head) == 5_000 and len(tail) == 5_000


def test_a_long_output_keeps_its_first_and_last_characters_with_a_marker_between():
  executor = UnsafeLocalCodeExecutor(timeout_seconds=30, max_output_chars=1_000)
  code = "import sys\nsys.stdout.write('a' * 600 + 'é' * 1000 + 'c' * 400)\nsys.stderr.write('w' * 5000)\nsys.exit(2)"

  result = executor.execute_code(None, CodeExecutionInput(code=code))

  marker = "\n...[{} characters of output left out; raise max_output_chars on the code executor to keep more]...\n"
  assert result.stdout == "a" * 500 + marker.format(1_000) + "é" * 100 + "c" * 400
  assert result.stderr == "w" * 500 + marker.format(4_000) + "w" * 500 and result.exit_code == 2
  at_the_limit = executor.execute_code(None, CodeExecutionInput(code="print('é' * 999)"))
  assert at_the_limit.stdout == "é" * 999 + "\n"


def _starts_a_sleeper(pid_file, keep_pipes=False):
  """Code that starts a grandchild sleeping two minutes and writes its pid to `pid_file`."""
  quiet = "" if keep_pipes else ", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL"
  return (f"import subprocess, sys\n"
          f"sleeper = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']{quiet})\n"
          f"open({str(pid_file)!r}, 'w').write(str(sleeper.pid))\n")


def test_what_the_code_started_does_not_outlive_a_successful_or_failed_run(tmp_path):
  executor = UnsafeLocalCodeExecutor(timeout_seconds=60)
  ok = executor.execute_code(None, CodeExecutionInput(code=_starts_a_sleeper(tmp_path / "ok") + "print('done')"))
  failed = executor.execute_code(None, CodeExecutionInput(code=_starts_a_sleeper(tmp_path / "failed") + "1 / 0"))

  assert (ok.stdout, ok.stderr, ok.exit_code) == ("done\n", "", 0)
  assert "ZeroDivisionError" in failed.stderr and failed.exit_code == 1
  assert _ends_soon(int((tmp_path / "ok").read_text()))
  assert _ends_soon(int((tmp_path / "failed").read_text()))


def test_a_grandchild_holding_the_output_pipes_does_not_keep_the_run_going(tmp_path):
  # Before, the run waited for the pipes to close: until the grandchild ended, or the timeout.
  executor = UnsafeLocalCodeExecutor(timeout_seconds=20)
  code = _starts_a_sleeper(tmp_path / "pid", keep_pipes=True) + "print('done', flush=True)"

  result = executor.execute_code(None, CodeExecutionInput(code=code))

  assert (result.stdout, result.stderr, result.exit_code) == ("done\n", "", 0)
  assert _ends_soon(int((tmp_path / "pid").read_text()))


async def test_cancelling_the_run_kills_the_code_and_what_it_started():
  reported = asyncio.get_running_loop().create_future()

  async def on_report(reader, writer):
    reported.set_result((await reader.read()).decode().split())
    writer.close()

  server = await asyncio.start_server(on_report, "127.0.0.1", 0)
  port = server.sockets[0].getsockname()[1]
  code = ("import os, socket, subprocess, sys\n"
          "sleeper = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
          f"with socket.create_connection(('127.0.0.1', {port})) as s:\n"
          "  s.sendall(f'{os.getpid()} {sleeper.pid}'.encode())\n"
          "while True:\n  pass")
  runner = runner_for(ScriptedModel([fenced(code), "never"]), timeout_seconds=60)
  turn = asyncio.ensure_future(run_turn(runner, "Loop"))
  async with server:
    child, sleeper = await asyncio.wait_for(reported, 60)

  turn.cancel()
  with pytest.raises(asyncio.CancelledError):
    await turn
  assert _ends_soon(int(child)) and _ends_soon(int(sleeper))
