"""An SQLite store that cannot be written opens read-only: loads work, writes say read-only."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from adk_nb.events import Event, EventActions
from adk_nb.sessions import DatabaseSessionService
from adk_nb.sessions.database_session_service import SessionStorageError

APP, USER = "shop", "ada"


async def make_store(path, events=2):
  async with DatabaseSessionService(f"sqlite:///{path}") as service:
    session = await service.create_session(app_name=APP, user_id=USER, session_id="s1",
                                           state={"k": 1, "user:lang": "fr"})
    for i in range(events):
      await service.append_event(session, Event(invocation_id="i", author="agent",
                                                actions=EventActions(state_delta={"n": i})))


async def test_read_only_store_loads_and_refuses_every_write_without_changing_the_file(tmp_path):
  path = tmp_path / "s.db"
  await make_store(path)
  before = path.read_bytes()
  async with DatabaseSessionService(f"sqlite:///{path}", read_only=True) as service:
    session = await service.get_session(app_name=APP, user_id=USER, session_id="s1")
    assert len(session.events) == 2 and session.state == {"k": 1, "user:lang": "fr", "n": 1}
    assert [s.id for s in (await service.list_sessions(app_name=APP)).sessions] == ["s1"]
    writes = [
        service.create_session(app_name=APP, user_id=USER),
        service.append_event(session, Event(author="agent")),
        service.delete_session(app_name=APP, user_id=USER, session_id="s1"),
    ]
    for write in writes:
      with pytest.raises(SessionStorageError, match="open read-only .*nothing was written.*read_only=True"):
        await write
  assert path.read_bytes() == before


async def test_a_read_only_file_without_adk_nb_tables_or_with_an_old_schema_says_what_to_do(tmp_path):
  empty = tmp_path / "empty.db"
  sqlite3.connect(empty).close()
  async with DatabaseSessionService(f"sqlite:///{empty}", read_only=True) as service:
    with pytest.raises(SessionStorageError, match="read-only and has no adk_nb session tables"):
      await service.get_session(app_name=APP, user_id=USER, session_id="s1")
  old = tmp_path / "old.db"
  await make_store(old)
  with sqlite3.connect(old) as conn:
    conn.execute("UPDATE adk_nb_schema SET value = '1'")
  async with DatabaseSessionService(f"sqlite:///{old}", read_only=True) as service:
    with pytest.raises(SessionStorageError, match="version '1' and is open read-only.*writable copy"):
      await service.get_session(app_name=APP, user_id=USER, session_id="s1")


def test_read_only_applies_to_sqlite_files_only():
  with pytest.raises(ValueError, match="SQLite file"):
    DatabaseSessionService("postgresql://u@localhost/db", read_only=True)


CHILD = textwrap.dedent("""
    import asyncio, json, sys
    from adk_nb.events import Event
    from adk_nb.sessions import DatabaseSessionService

    async def main(url):
      out = {}
      async with DatabaseSessionService(url) as service:
        try:
          session = await service.get_session(app_name="shop", user_id="ada", session_id="s1")
          out["events"] = len(session.events)
          await service.append_event(session, Event(author="agent"))
        except Exception as exc:
          out["error"] = f"{type(exc).__name__}: {exc}"
      print(json.dumps(out))

    asyncio.run(main(sys.argv[1]))
""")

KILLED_WRITER = textwrap.dedent("""
    import asyncio, os, sys
    from adk_nb.events import Event
    from adk_nb.sessions import DatabaseSessionService

    async def main(url):
      service = DatabaseSessionService(url)
      session = await service.create_session(app_name="shop", user_id="ada", session_id="s1")
      for _ in range(3):
        await service.append_event(session, Event(author="agent"))
      os._exit(0)  # no close: the events stay in the -wal file, not yet merged

    asyncio.run(main(sys.argv[1]))
""")


def on_read_only_mount(folder, script, *args):
  """Runs `script` in a child that sees `folder` mounted read-only (needs mount namespaces)."""
  if not shutil.which("unshare") or sys.platform != "linux":
    pytest.skip("needs Linux unshare to make a read-only mount")
  mount = folder.parent / "ro"
  mount.mkdir()
  command = (f"mount --bind {folder} {mount} && mount -o remount,bind,ro {mount} && "
             f"exec {sys.executable} -c \"$0\" \"$@\"")
  done = subprocess.run(["unshare", "-m", "sh", "-c", command, script,
                         *(a.replace(str(folder), str(mount)) for a in args)],
                        capture_output=True, text=True, timeout=120)
  if done.returncode != 0 and "mount" in done.stderr:
    pytest.skip(f"cannot make a read-only mount here: {done.stderr.strip()[:200]}")
  assert done.returncode == 0, done.stderr
  return json.loads(done.stdout.strip().splitlines()[-1])


async def test_a_store_on_a_read_only_mount_is_detected_and_loads(tmp_path):
  folder = tmp_path / "media"
  folder.mkdir()
  await make_store(folder / "s.db")
  out = on_read_only_mount(folder, CHILD, f"sqlite:///{folder / 's.db'}")
  assert out["events"] == 2
  assert "open read-only" in out["error"] and "not writable" in out["error"]


def test_a_store_left_by_a_killed_writer_on_a_read_only_mount_shows_all_its_events(tmp_path):
  folder = tmp_path / "media"
  folder.mkdir()
  url = f"sqlite:///{folder / 's.db'}"
  subprocess.run([sys.executable, "-c", KILLED_WRITER, url], check=True, timeout=120)
  assert os.path.getsize(folder / "s.db-wal") > 0
  out = on_read_only_mount(folder, CHILD, url)
  assert out["events"] == 3 and "open read-only" in out["error"]
