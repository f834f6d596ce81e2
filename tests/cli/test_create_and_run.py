"""`adk-nb create` scaffolds a folder that runs offline; `adk-nb run` chats with it in a real subprocess."""

import json

from adk_nb.sessions import DatabaseSessionService

from .conftest import adk_nb


def test_create_then_run_replay_eval_all_offline(tmp_path):
  created = adk_nb("create", "weather", cwd=tmp_path)
  assert created.returncode == 0, created.stderr
  folder = tmp_path / "weather"
  assert sorted(p.name for p in folder.iterdir()) == [
      "__init__.py", "agent.py", "weather.evalset.json", "weather.ipynb"]
  (tmp_path / "replay.json").write_text(json.dumps({"state": {"user:name": "Ada"},
                                                    "queries": ["What is the weather in Rome?"]}))
  ran = adk_nb("run", "weather", "--replay", "replay.json", "--session", "s1", "--save_session", cwd=tmp_path)
  assert ran.returncode == 0, ran.stderr
  assert "[weather] -> get_weather(city='Rome')" in ran.stdout
  assert "[weather]: It is 21 °C and sunny in Rome." in ran.stdout
  saved = json.loads((folder / "s1.session.json").read_text())
  assert saved["id"] == "s1" and saved["appName"] == "weather" and saved["state"]["user:name"] == "Ada"
  assert [e["author"] for e in saved["events"]] == ["user", "weather", "weather", "weather"]
  evaluated = adk_nb("eval", "weather", "weather/weather.evalset.json", "--no-progress", cwd=tmp_path)
  assert evaluated.returncode == 0, evaluated.stdout + evaluated.stderr


def test_create_with_a_model_writes_it_and_a_dotenv(tmp_path):
  assert adk_nb("create", "real", "--model", "gemini-2.5-flash", cwd=tmp_path).returncode == 0
  assert "model='gemini-2.5-flash'" in (tmp_path / "real" / "agent.py").read_text()
  assert "GOOGLE_API_KEY=" in (tmp_path / "real" / ".env").read_text()
  again = adk_nb("create", "real", cwd=tmp_path)
  assert again.returncode == 2 and "already exists" in again.stderr
  assert "not a Python identifier" in adk_nb("create", "my-agent", cwd=tmp_path).stderr


def test_generated_notebooks_have_cell_ids_and_a_key_file_is_git_ignored(tmp_path):
  import warnings

  import nbformat

  from adk_nb.cli.web import web_notebook

  assert adk_nb("create", "real", "--model", "gemini-2.5-flash", cwd=tmp_path).returncode == 0
  folder = tmp_path / "real"
  assert (folder / ".gitignore").read_text().splitlines()[0] == ".env"
  (folder / "real_web.ipynb").write_text(json.dumps(web_notebook("real")))
  for path in (folder / "real.ipynb", folder / "real_web.ipynb"):
    with warnings.catch_warnings():
      warnings.simplefilter("error")  # nbformat warns (MissingIDFieldWarning) about cells without ids
      notebook = nbformat.read(path, as_version=4)
      nbformat.validate(notebook)
    ids = [cell.id for cell in notebook.cells]
    assert len(set(ids)) == len(ids) == len(notebook.cells)


def test_run_continues_a_session_in_the_given_store(tmp_path):
  adk_nb("create", "weather", cwd=tmp_path)
  db = tmp_path / "s.db"
  for city in ("Rome", "Oslo"):
    ran = adk_nb("run", "weather", "--session_service_uri", f"sqlite:///{db}", "--session", "trip",
                 cwd=tmp_path, stdin=f"What is the weather in {city}?\nexit\n")
    assert ran.returncode == 0, ran.stderr

  async def texts():
    service = DatabaseSessionService(f"sqlite:///{db}")
    session = await service.get_session(app_name="weather", user_id="user", session_id="trip")
    await service.close()
    return [e.content.parts[0].text for e in session.events if e.author == "user"]

  import asyncio
  assert asyncio.run(texts()) == ["What is the weather in Rome?", "What is the weather in Oslo?"]


def test_approval_without_a_terminal_fails_closed(refund_agent, tmp_path):
  folder, log = refund_agent
  ran = adk_nb("run", str(folder), "--session_service_uri", "memory://", cwd=tmp_path, stdin="refund please\n")
  assert ran.returncode == 0, ran.stderr
  assert "refund(order_id='B200', amount=349.0)" in ran.stdout
  assert "rejected (no terminal to ask" in ran.stdout and "Refund not approved." in ran.stdout
  assert log.read_text() == ""


def test_approval_policy_auto_approves_and_the_tool_runs_once(refund_agent, tmp_path):
  folder, log = refund_agent
  ran = adk_nb("run", str(folder), "--session_service_uri", "memory://", "--approve", "auto", cwd=tmp_path,
               stdin="refund please\n")
  assert "approved by --approve auto" in ran.stdout and "Refund done." in ran.stdout
  assert log.read_text() == "B200\n"


def test_approval_asked_at_the_terminal(refund_agent):
  import asyncio

  import io

  from google.genai import types

  from adk_nb.cli.agent_loader import load_agent_folder
  from adk_nb.cli.run import TerminalChat
  from adk_nb.runners import InMemoryRunner

  folder, log = refund_agent
  runner = InMemoryRunner(load_agent_folder(folder).agent, app_name="desk_agent")
  asked, out = [], io.StringIO()

  async def go():
    await runner.session_service.create_session(app_name="desk_agent", user_id="u", session_id="s")
    chat = TerminalChat(runner, "u", "s", "ask", stream=True, out=out, ask=lambda q: asked.append(q) or "y")
    await chat.turn(types.Content(role="user", parts=[types.Part(text="refund")]))

  asyncio.run(go())
  assert len(asked) == 1 and asked[0].startswith("[approval] refund(order_id='B200', amount=349.0)")
  assert asked[0].endswith("Approve? [y/N] ")
  assert "[desk]: Refund done." in out.getvalue() and log.read_text() == "B200\n"


def test_run_reports_a_broken_agent_with_its_traceback(tmp_path):
  (tmp_path / "bad").mkdir()
  (tmp_path / "bad" / "__init__.py").write_text("from . import agent\n")
  (tmp_path / "bad" / "agent.py").write_text("raise RuntimeError('my bug')\n")
  ran = adk_nb("run", "bad", cwd=tmp_path)
  assert ran.returncode == 2 and "RuntimeError: my bug" in ran.stderr and "agent.py" in ran.stderr


def test_web_writes_a_dev_notebook_that_continues_the_terminal_conversation(tmp_path):
  assert adk_nb("create", "weather", cwd=tmp_path).returncode == 0
  ran = adk_nb("run", "weather", cwd=tmp_path, stdin="What is the weather in Rome?\nexit\n")
  assert ran.returncode == 0, ran.stderr
  assert not (tmp_path / "weather" / ".adk").exists()  # google-adk's own store path stays free
  shown = adk_nb("web", "weather", "--print-command", "--no-browser", "--port", "9999", "--allow-root", cwd=tmp_path)
  assert shown.returncode == 0, shown.stderr
  notebook = tmp_path / "weather" / "weather_web.ipynb"
  assert f"-m jupyterlab {notebook}" in shown.stdout and "--port=9999" in shown.stdout and "--no-browser" in shown.stdout
  assert "--allow-root" in shown.stdout
  import subprocess
  import sys

  ran = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--nbmake",
                        "--nbmake-timeout=300", notebook.name], cwd=notebook.parent, capture_output=True, text=True,
                       timeout=600)
  assert ran.returncode == 0, ran.stdout[-2000:]

  async def conversations():
    service = DatabaseSessionService(f"sqlite:///{tmp_path / 'weather' / '.adk_nb' / 'sessions.db'}")
    listed = await service.list_sessions(app_name="weather", user_id="user")
    sessions = [await service.get_session(app_name="weather", user_id="user", session_id=s.id)
                for s in listed.sessions]
    await service.close()
    return [[e.content.parts[0].text for e in s.events if e.author == "user"] for s in sessions]

  import asyncio
  # One conversation: the terminal's question, then the notebook's turn in the same session.
  assert asyncio.run(conversations()) == [["What is the weather in Rome?", "Hello!"]]


def _pause_in_sqlite(folder, db) -> None:
  """Runs the refund agent in this process on `db` until it pauses for approval (session 'refund-1')."""
  import asyncio

  from adk_nb.cli.agent_loader import load_agent_folder
  from adk_nb.runners import Runner
  from adk_nb.testing import pending, run_turn

  async def go():
    service = DatabaseSessionService(f"sqlite:///{db}")
    runner = Runner(agent=load_agent_folder(folder).agent, app_name="desk_agent", session_service=service)
    await run_turn(runner, "refund please", session_id="refund-1", user_id="user")
    assert [item.tool for item in await pending(runner, session_id="refund-1", user_id="user")] == ["refund"]
    await service.close()

  asyncio.run(go())


def test_continuing_a_paused_session_offers_its_approval_first_and_fails_closed_without_a_terminal(
    refund_agent, tmp_path):
  folder, log = refund_agent
  db = tmp_path / "paused.db"
  _pause_in_sqlite(folder, db)
  ran = adk_nb("run", str(folder), "--session_service_uri", f"sqlite:///{db}", "--session", "refund-1", cwd=tmp_path,
               stdin="")
  assert ran.returncode == 0, ran.stderr
  assert "Session refund-1 is paused; 1 call(s) wait for an answer." in ran.stdout
  assert "[approval] refund(order_id='B200', amount=349.0)" in ran.stdout
  assert "rejected (no terminal to ask" in ran.stdout and "[desk]: Refund not approved." in ran.stdout
  assert log.read_text() == ""
  again = adk_nb("run", str(folder), "--session_service_uri", f"sqlite:///{db}", "--session", "refund-1",
                 "--approve", "auto", cwd=tmp_path)
  assert "is paused" not in again.stdout and "[approval]" not in again.stdout  # answered: nothing waits any more
  assert log.read_text() == ""


def test_continuing_a_paused_session_asks_y_n_at_a_real_terminal_and_the_tool_runs_once(refund_agent, tmp_path):
  import os
  import pty
  import subprocess
  import sys

  folder, log = refund_agent
  db = tmp_path / "paused.db"
  _pause_in_sqlite(folder, db)
  master, slave = pty.openpty()  # the child's stdin is a terminal, so `ask` asks [y/N]
  os.write(master, b"y\nexit\n")  # the terminal holds the lines until the child reads them
  child = subprocess.run([sys.executable, "-m", "adk_nb.cli", "run", str(folder), "--session_service_uri",
                          f"sqlite:///{db}", "--session", "refund-1"], stdin=slave, capture_output=True, text=True,
                         cwd=tmp_path, timeout=120)
  os.close(slave)
  os.close(master)
  assert child.returncode == 0, child.stderr
  out = child.stdout
  assert "[approval] refund(order_id='B200', amount=349.0) (" in out and "Approve? [y/N] " in out
  assert out.index("Approve? [y/N]") < out.index("[desk] <- refund") < out.index("[desk]: Refund done.")
  assert out.index("[desk]: Refund done.") < out.index("[user]: ")  # answered before any new message is read
  assert log.read_text() == "B200\n"
