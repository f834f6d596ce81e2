"""A turn's claim on its session: who may take a claim over, and what a refusal leaves behind."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
import time

import pytest

from adk_nb.errors import SessionBusyError, StaleSessionError
from adk_nb.events import Event
from adk_nb.sessions import DatabaseSessionService

APP, USER, SID = "shop", "ada", "s1"


def leave_claim(path, owner: str, since: float) -> None:
  """A claim row as another process (or host) would have left it."""
  with sqlite3.connect(path) as db:
    db.execute("INSERT INTO session_turns VALUES (?, ?, ?, ?, 'e-other', ?)", (APP, USER, SID, owner, since))


@pytest.fixture
async def service(tmp_path):
  async with DatabaseSessionService(f"sqlite:///{tmp_path / 's.db'}") as service:
    await service.create_session(app_name=APP, user_id=USER, session_id=SID)
    yield service


async def test_a_claim_left_by_a_process_that_died_is_taken_over(service, tmp_path):
  gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
  leave_claim(tmp_path / "s.db", f"{socket.gethostname()}/{int(gone.stdout)}/deadbeef/1", time.time())
  session = await service.get_session(app_name=APP, user_id=USER, session_id=SID)
  claim = await service.claim_turn(session, "e-mine")
  await claim.release()


async def test_a_claim_of_another_host_holds_for_the_lease_then_is_taken_over(service, tmp_path):
  leave_claim(tmp_path / "s.db", "elsewhere.example/4242/deadbeef/1", time.time())
  session = await service.get_session(app_name=APP, user_id=USER, session_id=SID)
  with pytest.raises(SessionBusyError, match="'e-other'.*refused before it ran anything.*nothing was written"):
    await service.claim_turn(session, "e-mine")
  service.turn_lease = 0.0  # as if the lease had run out
  claim = await service.claim_turn(session, "e-mine")
  await claim.release()


async def test_a_refused_claim_writes_nothing_and_a_stale_copy_cannot_claim(service, tmp_path):
  session = await service.get_session(app_name=APP, user_id=USER, session_id=SID)
  stale = await service.get_session(app_name=APP, user_id=USER, session_id=SID)
  claim = await service.claim_turn(session, "e-first")
  with pytest.raises(SessionBusyError):
    await service.claim_turn(stale, "e-second")
  await service.append_event(session, Event(author="agent"))
  await claim.release()
  with pytest.raises(StaleSessionError, match="changed by another writer.*nothing was written"):
    await service.claim_turn(stale, "e-second")
  with sqlite3.connect(tmp_path / "s.db") as db:
    assert db.execute("SELECT count(*) FROM session_turns").fetchone() == (0,)
    assert db.execute("SELECT count(*) FROM events").fetchone() == (1,)
