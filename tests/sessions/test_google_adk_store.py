"""Session stores that google-adk 2.13 wrote, opened by adk_nb: refused with the fix named, moved
with nothing lost (dry run first, a backup kept, reversible), and continued by an adk_nb agent.

The SQLite fixtures in google_adk_store/ were written by google-adk itself with
google_adk_store/write_store.py (its docstring says how); the JSON beside each is what google-adk
read back from it. The PostgreSQL test writes its store with google-adk at test time, from
bench/.venv-adk-db (google-adk plus SQLAlchemy and asyncpg; `./dev test` makes it).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from adk_nb import Agent, Runner
from adk_nb.models import ScriptedModel
from adk_nb.pending import pending_items
from adk_nb.sessions import DatabaseSessionService
from adk_nb.sessions.database_session_service import SessionStorageError
from adk_nb.sessions.google_adk_store import MigrationError, migrate_sessions
from adk_nb.testing import run_turn
from tests.support import last_text

HERE = Path(__file__).parent / "google_adk_store"
REPO = Path(__file__).resolve().parents[2]
LAYOUTS = ["sqlite_session_service", "database_session_service_v1"]
ADK_DB_PYTHON = REPO / "bench" / ".venv-adk-db" / "bin" / "python"


def _digest(path: Path) -> str:
  return hashlib.sha256(path.read_bytes()).hexdigest()


def _dump(path: Path) -> list[str]:
  """Every table's definition and rows, as SQL."""
  with sqlite3.connect(path) as conn:
    return list(conn.iterdump())


@pytest.fixture(params=LAYOUTS)
def google_store(request, tmp_path) -> tuple[str, Path, list[dict]]:
  """(URL, path, what google-adk read back) of a copy of a store google-adk wrote."""
  path = tmp_path / "session.db"
  shutil.copyfile(HERE / f"{request.param}.sqlite", path)
  expected = json.loads((HERE / f"{request.param}.json").read_text())
  return f"sqlite:///{path}", path, expected


def _projection(event: dict) -> dict:
  """What an event says, in the fields both frameworks model (google-adk 2.x adds node_info)."""
  actions = event.get("actions", {})
  return {"id": event["id"], "invocation_id": event["invocation_id"], "author": event["author"],
          "timestamp": event["timestamp"], "content": event.get("content"),
          "long_running_tool_ids": sorted(event.get("long_running_tool_ids") or []),
          "state_delta": actions.get("state_delta") or {},
          "artifact_delta": actions.get("artifact_delta") or {}}


async def _assert_same_as_google(url: str, expected: list[dict]) -> None:
  service = DatabaseSessionService(url)
  try:
    for seen in expected:
      session = await service.get_session(app_name=seen["app_name"], user_id=seen["user_id"],
                                           session_id=seen["id"])
      assert session is not None, seen["id"]
      assert session.state == seen["state"]
      assert session.last_update_time == pytest.approx(seen["last_update_time"])
      mine = [_projection(e.model_dump(mode="json", exclude_none=True)) for e in session.events]
      assert mine == [_projection(e) for e in seen["events"]]
    listed = await service.list_sessions(app_name="shop", user_id="ana")
    assert [s.id for s in listed.sessions] == ["s1"]
  finally:
    await service.close()


async def test_opening_a_google_adk_store_names_the_move_and_changes_nothing(google_store):
  url, path, _ = google_store
  before = _dump(path)
  service = DatabaseSessionService(url)
  with pytest.raises(SessionStorageError) as caught:
    await service.get_session(app_name="shop", user_id="ana", session_id="s1")
  await service.close()
  message = str(caught.value)
  assert "google-adk's" in message and "3 sessions, 7 events" in message
  assert f"adk-nb migrate-sessions '{url}' --dry-run" in message
  assert _dump(path) == before  # (opening it switched the file to WAL journaling, as adk_nb does)


async def test_dry_run_says_what_would_move_and_writes_nothing(google_store):
  url, path, _ = google_store
  before = _digest(path)
  report = await migrate_sessions(url, dry_run=True)
  text = "\n".join(report.lines())
  assert "Would move 3 sessions and 7 events" in text and "Nothing was changed" in text
  assert _digest(path) == before
  assert not list(path.parent.glob("*.google-adk-backup*"))


async def test_move_in_place_keeps_every_event_and_state_scope_and_a_backup(google_store):
  url, path, expected = google_store
  before = _dump(path)
  report = await migrate_sessions(url)
  assert not report.dry_run and report.backup is not None
  assert _dump(Path(report.backup)) == before  # the copy holds what google-adk left
  await _assert_same_as_google(url, expected)
  service = DatabaseSessionService(url)
  session = await service.get_session(app_name="shop", user_id="ana", session_id="s1")
  await service.close()
  # The confirmation google-adk's run was waiting for is still waiting.
  assert [(i.kind, i.tool, i.args, i.hint) for i in pending_items(session.events)] == [
      ("confirmation", "refund", {"amount": 9}, "Refund 9?")]


async def test_an_adk_nb_agent_continues_a_moved_conversation(google_store):
  url, _, _ = google_store
  await migrate_sessions(url)
  seen = []

  def model(request):
    seen.append([p.text for c in request.contents for p in c.parts if p.text])
    return "Hello again, Ben."

  agent = Agent(name="shop_agent", model=ScriptedModel(model), instruction="Help {user:name}.",
                output_key="greeting")
  service = DatabaseSessionService(url)
  runner = Runner(agent=agent, app_name="shop", session_service=service)
  events = await run_turn(runner, "Still there?", user_id="ben", session_id="s2")
  assert last_text(events) == "Hello again, Ben."
  assert seen == [["Hi", "Still there?"]]  # the model read the turn google-adk stored
  session = await service.get_session(app_name="shop", user_id="ben", session_id="s2")
  assert session.state["greeting"] == "Hello again, Ben." and session.state["note"] == "ünïcode ✓"
  assert len(session.events) == 3
  await service.close()


async def test_revert_puts_google_adks_tables_back(google_store, tmp_path):
  url, path, expected = google_store
  tables_of = lambda: {r[0] for r in sqlite3.connect(path).execute(
      "SELECT name FROM sqlite_master WHERE type = 'table'")}
  google_tables = tables_of()
  await migrate_sessions(url)
  assert (await migrate_sessions(url, revert=True, dry_run=True)).dry_run
  with pytest.raises(MigrationError, match="already moved"):
    await migrate_sessions(url)
  await migrate_sessions(url, revert=True)
  assert tables_of() == google_tables  # google-adk's tables, and none of adk_nb's
  if ADK_DB_PYTHON.exists():
    # google-adk reads its sessions again as it wrote them.
    assert _google_adk_reads(url, expected) == [
        [_projection(e) for e in s["events"]] for s in expected]


def _google_adk_reads(url: str, expected: list[dict]) -> list[list[dict]]:
  script = (
      "import asyncio, json, sys\n"
      "from google.adk.sessions.database_session_service import DatabaseSessionService\n"
      "from google.adk.sessions.sqlite_session_service import SqliteSessionService\n"
      "url, keys = sys.argv[1], json.loads(sys.argv[2])\n"
      "async def main():\n"
      "  import sqlite3\n"
      "  path = url.removeprefix('sqlite:///')\n"
      "  v1 = bool(sqlite3.connect(path).execute(\"SELECT 1 FROM sqlite_master WHERE name = 'adk_internal_metadata'\").fetchall())\n"
      "  s = DatabaseSessionService(db_url=url.replace('sqlite://', 'sqlite+aiosqlite://')) if v1 else SqliteSessionService(db_path=path)\n"
      "  out = []\n"
      "  for app, user, sid in keys:\n"
      "    got = await s.get_session(app_name=app, user_id=user, session_id=sid)\n"
      "    out.append([e.model_dump(mode='json', exclude_none=True) for e in got.events])\n"
      "  print(json.dumps(out))\n"
      "asyncio.run(main())\n")
  keys = [[s["app_name"], s["user_id"], s["id"]] for s in expected]
  done = subprocess.run([str(ADK_DB_PYTHON), "-c", script, url, json.dumps(keys)],
                        capture_output=True, text=True, timeout=120)
  assert done.returncode == 0, done.stderr[-2000:]
  return [[_projection(e) for e in events] for events in json.loads(done.stdout)]


async def test_copy_to_another_store_leaves_the_source_untouched(google_store, tmp_path):
  url, path, expected = google_store
  before = _digest(path)
  target = f"sqlite:///{tmp_path / 'adk_nb.db'}"
  report = await migrate_sessions(url, to=target)
  assert report.backup is None and report.kept_tables == ()
  assert _digest(path) == before
  await _assert_same_as_google(target, expected)
  with pytest.raises(MigrationError, match="already has 3 of these sessions"):
    await migrate_sessions(url, to=target)


async def test_nothing_to_move_and_pickled_v0_are_refused_with_the_reason(tmp_path):
  empty = f"sqlite:///{tmp_path / 'new.db'}"
  with pytest.raises(MigrationError, match="no google-adk session tables"):
    await migrate_sessions(empty)
  v0 = tmp_path / "v0.db"
  with sqlite3.connect(v0) as conn:  # the shape google-adk's schema v0 has: pickled actions
    conn.execute("CREATE TABLE sessions (app_name TEXT, user_id TEXT, id TEXT, state TEXT,"
                 " create_time TEXT, update_time TEXT)")
    conn.execute("CREATE TABLE events (id TEXT, app_name TEXT, user_id TEXT, session_id TEXT,"
                 " invocation_id TEXT, author TEXT, actions BLOB, timestamp TEXT)")
  before = _digest(v0)
  with pytest.raises(MigrationError, match="adk migrate session"):
    await migrate_sessions(f"sqlite:///{v0}")
  assert _digest(v0) == before


def test_the_command_line_dry_run_then_move(google_store):
  url, path, _ = google_store

  def cli(*args):
    return subprocess.run([sys.executable, "-m", "adk_nb.cli", "migrate-sessions", url, *args],
                          capture_output=True, text=True, timeout=120, cwd=REPO)

  dry = cli("--dry-run")
  assert dry.returncode == 0 and "Would move 3 sessions" in dry.stdout
  moved = cli()
  assert moved.returncode == 0 and "Moved 3 sessions" in moved.stdout
  again = cli()
  assert again.returncode == 2 and again.stdout == ""
  assert len(again.stderr.strip().splitlines()) == 1 and "--revert" in again.stderr


@pytest.mark.skipif(not ADK_DB_PYTHON.exists(),
                    reason="bench/.venv-adk-db (google-adk with SQLAlchemy and asyncpg) is made by "
                           "`./dev test`; without it google-adk cannot write the PostgreSQL store")
async def test_a_postgresql_store_google_adk_wrote_moves_and_reverts(pg_url):
  adk_url = pg_url.replace("postgresql://", "postgresql+asyncpg://")
  done = subprocess.run([str(ADK_DB_PYTHON), str(HERE / "write_store.py"), "--layout", "database",
                         "--url", adk_url], capture_output=True, text=True, timeout=180)
  assert done.returncode == 0, done.stderr[-2000:]
  expected = json.loads(done.stdout)
  service = DatabaseSessionService(pg_url)
  with pytest.raises(SessionStorageError, match="migrate-sessions"):
    await service.get_session(app_name="shop", user_id="ana", session_id="s1")
  await service.close()
  report = await migrate_sessions(pg_url)
  assert report.backup is None and "google_adk_events" in report.kept_tables
  await _assert_same_as_google(pg_url, expected)
  await migrate_sessions(pg_url, revert=True)
  script = (
      "import asyncio, json, sys\n"
      "from google.adk.sessions.database_session_service import DatabaseSessionService\n"
      "async def main():\n"
      "  s = DatabaseSessionService(db_url=sys.argv[1])\n"
      "  got = await s.get_session(app_name='shop', user_id='ana', session_id='s1')\n"
      "  print(json.dumps({'state': got.state, 'events': len(got.events)}))\n"
      "asyncio.run(main())\n")
  back = subprocess.run([str(ADK_DB_PYTHON), "-c", script, adk_url], capture_output=True,
                        text=True, timeout=120)
  assert back.returncode == 0, back.stderr[-2000:]
  assert json.loads(back.stdout) == {"state": expected[0]["state"], "events": 6}
