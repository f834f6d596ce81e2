"""The sessions view (`%agent sessions AGENT` where a widget front end draws): driven through the widget's messages.

Each test sends what the browser sends (`view.list._handle_custom_msg`) and reads what a person sees:
the rows, the notice, the run opened below, the store and the files written.
"""

from __future__ import annotations

import json

import pytest

from adk_nb.models import call
from adk_nb.notebook import arun
from adk_nb.notebook._sessions import registry
from adk_nb.notebook.sessions_view import SessionsView, sessions_html, sessions_view


async def _view_with_sessions(make_refund_agent, store=None):
  """An agent with a paused session p1 and a done session d1; its sessions view."""
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Hi.", "Refunded."])
  paused = await arun(agent, "Refund A1", session="p1", store=store)
  done = await arun(agent, "hello", session="d1", store=store)
  assert (paused.status, done.status) == ("paused", "done")
  view = await sessions_view(registry.get(agent, store), "agent")
  return agent, refunds, view


async def _send(view: SessionsView, message: dict) -> dict:
  view.list._handle_custom_msg(message, [])
  await view.settled()
  return view.list.notice


def _rows(view):
  return {r["session"]: r for r in view.list.rows}


async def test_the_view_lists_sessions_with_status_and_renames_outside_the_session(make_refund_agent, tmp_path):
  agent, _, view = await _view_with_sessions(make_refund_agent)
  rows = _rows(view)
  assert {k: r["status"] for k, r in rows.items()} == {"p1": "paused", "d1": "done"}
  assert rows["d1"]["current"] and rows["p1"]["last_update"] and rows["p1"]["events"] == 4
  assert view.list.rows[0]["session"] == "d1"  # newest activity first

  notice = await _send(view, {"type": "rename", "session": "p1", "user": "user", "name": "  Ticket <b>7</b> "})
  assert notice == {"text": "Session p1 is now named 'Ticket <b>7</b>'.", "error": False}
  assert _rows(view)["p1"]["name"] == "Ticket <b>7</b>"
  # The name is not agent state, nor in the session: it is beside the SQLite store.
  runner = registry.get(agent).runner
  stored = await runner.session_service.get_session(app_name=runner.app_name, user_id="user", session_id="p1")
  assert "Ticket" not in json.dumps(stored.state) and "Ticket" not in stored.model_dump_json()
  names = json.loads((tmp_path / ".adk_nb" / "session_names.json").read_text())
  assert names == {"sessions.db": {agent.name: {"user": {"p1": "Ticket <b>7</b>"}}}}
  # A fresh view (another kernel) reads the name; the static form escapes it.
  registry.clear()
  again = await sessions_view(registry.get(agent), "agent")
  assert _rows(again)["p1"]["name"] == "Ticket <b>7</b>"
  assert "Ticket &lt;b&gt;7&lt;/b&gt;" in sessions_html(agent.name, again.list.rows)
  # A bad name is refused, naming the fix; nothing changes.
  notice = await _send(again, {"type": "rename", "session": "p1", "user": "user", "name": "a\nb"})
  assert notice["error"] and "one line" in notice["text"] and _rows(again)["p1"]["name"] == "Ticket <b>7</b>"
  assert (await _send(again, {"type": "rename", "session": "p1", "name": ""}))["text"] == "Session p1 has no name now."
  assert _rows(again)["p1"]["name"] == ""


async def test_delete_needs_the_confirmation_and_takes_the_name_with_it(make_refund_agent):
  agent, _, view = await _view_with_sessions(make_refund_agent, store="memory://")
  await _send(view, {"type": "rename", "session": "d1", "user": "user", "name": "greeting"})
  notice = await _send(view, {"type": "delete", "session": "d1", "user": "user"})
  assert notice["error"] and "nothing was deleted" in notice["text"] and "d1" in _rows(view)
  notice = await _send(view, {"type": "delete", "session": "d1", "user": "user", "confirmed": True})
  assert notice == {"text": "Deleted session d1 of user user.", "error": False}
  assert set(_rows(view)) == {"p1"}
  notice = await _send(view, {"type": "delete", "session": "d1", "user": "user", "confirmed": True})
  assert notice["error"] and "No session 'd1'" in notice["text"] and "%agent sessions agent" in notice["text"]


async def test_open_shows_the_session_below_with_its_buttons(make_refund_agent):
  agent, refunds, view = await _view_with_sessions(make_refund_agent, store="memory://")
  notice = await _send(view, {"type": "open", "session": "p1", "user": "user"})
  assert not notice["error"] and "waits for 1 answer" in notice["text"]
  assert view.list.opened == "p1" and view.run.status == "paused"
  assert view.below.children == (view.run.view,) and view.run.pending[0].tool == "refund"
  assert registry.get(agent, "memory://").session_id == "p1"  # the next %%agent cell continues it
  view.run.approve()
  await view.run
  await view.settled()
  assert refunds == [("A1", 250.0)]
  assert _rows(view)["p1"]["status"] == "done"  # the list follows the opened run
  # Opening another session lets go of the first: its list row is no longer followed.
  await _send(view, {"type": "open", "session": "d1", "user": "user"})
  assert view.list.opened == "d1" and view.below.children == (view.run.view,)


async def test_export_and_import_in_google_adks_session_json(make_refund_agent, tmp_path):
  agent, _, view = await _view_with_sessions(make_refund_agent, store="memory://")
  sent = []
  view.list.send = lambda content, buffers=None: sent.append(content)
  notice = await _send(view, {"type": "export", "session": "p1", "user": "user"})
  assert notice == {"text": "Exported session p1 to p1.session.json (google-adk's session JSON).", "error": False}
  written = (tmp_path / "p1.session.json").read_text()
  # The file's text goes to the browser as one message (for the download link), not into the widget state.
  assert sent == [{"type": "download", "file": "p1.session.json", "text": written}]
  again = await _send(view, {"type": "export", "session": "p1", "user": "user"})
  assert again["text"].endswith("(google-adk's session JSON; the file there before was replaced).")
  exported = json.loads(written)
  assert exported["id"] == "p1" and exported["userId"] == "user" and "invocationId" in exported["events"][0]
  # By path, under a new id: the same events, the pause kept.
  notice = await _send(view, {"type": "import", "path": "p1.session.json", "session": "p1-again"})
  assert notice == {"text": "Imported session p1-again of user user (4 events).", "error": False}
  assert _rows(view)["p1-again"]["status"] == "paused"
  # From a file the browser read: the file's id is taken, so it comes in as p1-copy, then p1-copy2.
  notice = await _send(view, {"type": "import", "text": written, "file": "p1.session.json"})
  assert notice == {"text": "Imported session p1-copy of user user (4 events).", "error": False}
  notice = await _send(view, {"type": "import", "text": written, "file": "p1.session.json"})
  assert notice["text"].startswith("Imported session p1-copy2 ")
  # An id asked for and taken is refused, and nothing is written.
  notice = await _send(view, {"type": "import", "text": written, "file": "p1.session.json", "session": "d1"})
  assert notice["error"] and "already exists" in notice["text"] and "nothing was imported" in notice["text"]
  notice = await _send(view, {"type": "import", "text": '{"not": "a session"}', "file": "x.json"})
  assert notice["error"] and "'x.json' is not a session in google-adk's JSON format" in notice["text"]
  notice = await _send(view, {"type": "import", "path": " "})
  assert notice["error"] and "Name the file" in notice["text"]
  assert set(_rows(view)) == {"p1", "d1", "p1-again", "p1-copy", "p1-copy2"}
  assert _rows(view)["d1"]["events"] == 2


def test_percent_agent_sessions_gives_the_table_without_a_widget_front_end(shell, make_refund_agent):
  agent, _ = make_refund_agent(["Hi."])
  shell.user_ns["agent"] = agent
  shell.run_cell("%%agent agent --store memory:// --session s1\nhello", store_history=True)
  assert shell.run_cell("%agent rename agent --session s1 'my first'", store_history=True).error_in_exec is None
  table = shell.run_cell("%agent sessions agent", store_history=True).result
  assert dict(zip(table["session"], table["name"])) == {"s1": "my first"}
  shell.kernel = object()  # a Jupyter kernel: a front end may draw the view
  try:
    view = shell.run_cell("%agent sessions agent", store_history=True).result
    assert isinstance(view, SessionsView) and _rows(view)["s1"]["name"] == "my first"
    bundle = view._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    assert "<b>Sessions of support</b>" in data["text/html"] and "application/vnd.jupyter.widget-view+json" in data
    table = shell.run_cell("%agent sessions agent --table", store_history=True).result
    assert list(table["session"]) == ["s1"]
    assert shell.run_cell("%agent sessions agent --table --user nobody", store_history=True).result.empty
    assert shell.run_cell("%agent sessions agent --user user", store_history=True).result.list.user == "user"
  finally:
    del shell.kernel


def test_names_of_a_database_url_live_in_the_working_folder_without_its_password(tmp_path):
  from types import SimpleNamespace

  from adk_nb.notebook._session_names import names_of, set_name
  from adk_nb.notebook._sessions import NotebookAgent
  from adk_nb.sessions import InMemorySessionService

  runner = SimpleNamespace(app_name="support", session_service=InMemorySessionService())
  entry = NotebookAgent(target=None, runner=runner, store="postgresql+asyncpg://ada:s3cret@db.example/adk")
  set_name(entry, "user", "s1", "first")
  written = (tmp_path / ".adk_nb" / "session_names.json").read_text()
  assert "s3cret" not in written
  assert json.loads(written) == {"postgresql+asyncpg://ada:***@db.example/adk": {"support": {"user": {"s1": "first"}}}}
  assert names_of(entry) == {("user", "s1"): "first"}
  # A Runner built by hand (no store URI): names stay in memory, per session service.
  mine = NotebookAgent(target=None, runner=runner, store=None)
  set_name(mine, "user", "s1", "mine")
  assert names_of(mine) == {("user", "s1"): "mine"} and names_of(entry) == {("user", "s1"): "first"}
  other = NotebookAgent(target=None, runner=SimpleNamespace(app_name="support", session_service=InMemorySessionService()),
                        store=None)
  assert names_of(other) == {}  # another store's sessions never share a name
  # A damaged names file is named, with the fix; the sessions are not in it.
  (tmp_path / ".adk_nb" / "session_names.json").write_text("{oops")
  with pytest.raises(ValueError, match="fix or delete that file"):
    names_of(entry)
  with pytest.raises(ValueError, match="fix or delete that file"):  # never written over: other names are in it
    set_name(entry, "user", "s2", "second")
  assert (tmp_path / ".adk_nb" / "session_names.json").read_text() == "{oops"


async def test_a_damaged_names_file_still_lists_the_sessions(make_refund_agent, tmp_path, caplog):
  agent, _, view = await _view_with_sessions(make_refund_agent)
  (tmp_path / ".adk_nb" / "session_names.json").write_text("{oops")
  await view.refresh()
  assert set(_rows(view)) == {"p1", "d1"} and "fix or delete that file" in caplog.text
  notice = await _send(view, {"type": "rename", "session": "p1", "user": "user", "name": "x"})
  assert notice["error"] and "fix or delete that file" in notice["text"]


async def test_the_view_lists_one_users_sessions_and_imports_for_that_user(make_refund_agent, tmp_path):
  agent, _ = make_refund_agent(["Hi ada.", "Hi bob."])
  await arun(agent, "hello", session="a1", user="ada", store="memory://")
  await arun(agent, "hello", session="b1", user="bob", store="memory://")
  entry = registry.get(agent, "memory://")
  everyone = await sessions_view(entry, "agent")
  assert {(r["session"], r["user"]) for r in everyone.list.rows} == {("a1", "ada"), ("b1", "bob")}
  ada = await sessions_view(entry, "agent", user="ada")
  assert [r["session"] for r in ada.list.rows] == ["a1"] and ada.list.user == "ada"
  await _send(everyone, {"type": "export", "session": "b1", "user": "bob"})
  notice = await _send(ada, {"type": "import", "path": "b1.session.json"})
  assert notice["text"].startswith("Imported session b1 of user ada ")  # into the listed user's sessions
  assert sorted(r["session"] for r in ada.list.rows) == ["a1", "b1"]


async def test_an_import_the_store_refuses_half_way_leaves_nothing(make_refund_agent, tmp_path):
  agent, _, view = await _view_with_sessions(make_refund_agent)  # the SQLite store
  exported = json.loads((await _export_text(view, "d1")))
  exported["events"][1]["id"] = "e" * 200  # an event id longer than the database's 128 characters
  notice = await _send(view, {"type": "import", "text": json.dumps(exported), "file": "long.json", "session": "long"})
  assert notice["error"] and "refused event 2 of 2" in notice["text"] and "nothing was imported" in notice["text"]
  assert "long" not in _rows(view)


async def _export_text(view, session):
  sent = []
  view.list.send = lambda content, buffers=None: sent.append(content)
  await _send(view, {"type": "export", "session": session, "user": "user"})
  return sent[-1]["text"]
