"""`adk-nb run` at a real terminal (a pty): Ctrl-C ends at once and says what was kept; a failed turn does not end the chat."""

import os
import sys

import pexpect

from .conftest import adk_nb, write_agent

FLAKY = '''
from adk_nb import Agent
from adk_nb.models import ModelCallError, ScriptedModel

def script(request):
  text = request.contents[-1].parts[-1].text or ""
  if "fail" in text:
    raise ModelCallError("the provider answered 500 Internal Server Error")
  return f"You said: {text}"

root_agent = Agent(name="flaky", model=ScriptedModel(script))
'''


def test_ctrl_c_at_the_prompt_ends_at_once_with_one_line_saying_what_was_kept(tmp_path):
  adk_nb("create", "weather", cwd=tmp_path)
  child = pexpect.spawn(sys.executable, ["-m", "adk_nb.cli", "run", "weather", "--session", "trip"], cwd=str(tmp_path),
                        env=dict(os.environ), encoding="utf-8", timeout=40)
  try:
    child.expect_exact("[user]: ")
    child.sendline("What is the weather in Rome?")
    child.expect_exact("sunny in Rome.")
    child.expect_exact("[user]: ")
    child.sendintr()  # Ctrl-C at the prompt, and no Enter after it
    child.expect(pexpect.EOF)  # bounded by the timeout: the old code waited here for an Enter
    said = child.before
  finally:
    child.close(force=True)
  assert child.exitstatus == 130
  lines = [line for line in said.splitlines() if line.strip() and line.strip() != "^C"]
  assert len(lines) == 1 and "Traceback" not in said, said
  store = tmp_path / "weather" / ".adk_nb" / "sessions.db"
  assert f"session trip is kept in {store}" in lines[0]
  assert "adk-nb run weather --session trip" in lines[0]
  again = adk_nb("run", "weather", "--session", "trip", cwd=tmp_path, stdin="exit\n")
  assert again.returncode == 0 and "session trip" in again.stdout  # continued, not started over


def test_a_model_error_is_shown_and_the_chat_goes_on(tmp_path):
  write_agent(tmp_path, "flaky", FLAKY)
  ran = adk_nb("run", "flaky", "--session_service_uri", "memory://", cwd=tmp_path, stdin="please fail\nhello\nexit\n")
  assert ran.returncode == 0, ran.stderr
  assert "[flaky] ! ModelCallError: the provider answered 500 Internal Server Error" in ran.stdout
  assert "[flaky]: You said: hello" in ran.stdout
  assert "Traceback" not in ran.stdout + ran.stderr


STUCK = '''
import asyncio
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call

async def wait_forever() -> dict:
  """Never returns: the test interrupts it."""
  await asyncio.Event().wait()
  return {}

def script(request):
  part = request.contents[-1].parts[-1]
  return "Done." if part.function_response else call("wait_forever")

root_agent = Agent(name="stuck", model=ScriptedModel(script), tools=[wait_forever])
'''


def test_ctrl_c_during_a_turn_stops_it_and_keeps_what_it_committed(tmp_path):
  write_agent(tmp_path, "stuck", STUCK)
  child = pexpect.spawn(sys.executable, ["-m", "adk_nb.cli", "run", "stuck", "--session", "s1"], cwd=str(tmp_path),
                        env=dict(os.environ), encoding="utf-8", timeout=40)
  try:
    child.expect_exact("[user]: ")
    child.sendline("go")
    child.expect_exact("[stuck] -> wait_forever()")  # the tool is running now
    child.sendintr()
    child.expect(pexpect.EOF)
    said = child.before
  finally:
    child.close(force=True)
  assert child.exitstatus == 130 and "Traceback" not in said, said
  assert "interrupted; session s1 is kept in" in said

  import asyncio

  from adk_nb.sessions import DatabaseSessionService

  async def stored():
    service = DatabaseSessionService(f"sqlite:///{tmp_path / 'stuck' / '.adk_nb' / 'sessions.db'}")
    session = await service.get_session(app_name="stuck", user_id="user", session_id="s1")
    await service.close()
    return [(e.author, [p.function_call.name for p in e.content.parts if p.function_call])
            for e in session.events if e.content]

  assert asyncio.run(stored()) == [("user", []), ("stuck", ["wait_forever"])]  # the turn up to the interrupt
