"""adk_nb's one GC policy (adk_nb.gc_policy): the heap frozen while notebook runs stream, collection
paused while a store decodes a large load, both off with ADK_NB_GC_TUNING=0, and a process that
manages the collector itself left alone."""

from __future__ import annotations

import gc
import logging

from google.genai import types

import adk_nb.notebook as nb
from adk_nb import Agent
from adk_nb.events.event import Event
from adk_nb.gc_policy import ENV, PAUSE_ABOVE, collection_paused, heap_frozen
from adk_nb.models import ScriptedModel, call
from adk_nb.sessions import DatabaseSessionService


def _freeze_count_seen_by_a_tool() -> int:
  seen = []

  def probe() -> dict:
    """Notes what the collector sees while the run goes."""
    seen.append(gc.get_freeze_count())
    return {"ok": True}

  run = nb.run(Agent(name="probe", model=ScriptedModel([call("probe"), "done"]), tools=[probe]), "go",
               store="memory://")
  assert run.status == "done" and len(seen) == 1
  return seen[0]


def test_a_notebook_run_freezes_the_heap_unless_the_switch_says_0(monkeypatch):
  assert gc.get_freeze_count() == 0
  assert _freeze_count_seen_by_a_tool() > 1000
  monkeypatch.setenv(ENV, "0")
  assert _freeze_count_seen_by_a_tool() == 0
  assert gc.get_freeze_count() == 0


class _Probed(DatabaseSessionService):
  """Notes, for each stored event it decodes, whether automatic collection was on."""

  collector_on: list[bool]

  def _event_from_row(self, seq, data, session_id):
    self.collector_on.append(gc.isenabled())
    return super()._event_from_row(seq, data, session_id)


async def _collector_during_a_load(tmp_path, events: int) -> set[bool]:
  store = _Probed(f"sqlite:///{tmp_path / 'sessions.db'}")
  session = await store.create_session(app_name="app", user_id="u")
  for i in range(events):
    await store.append_event(session, Event(author="user", content=types.Content(role="user", parts=[
        types.Part(text=f"m{i}")])))
  store.collector_on = []
  loaded = await store.get_session(app_name="app", user_id="u", session_id=session.id)
  assert len(loaded.events) == events and gc.isenabled()
  return set(store.collector_on)


async def test_a_large_sqlite_load_decodes_with_collection_paused_unless_the_switch_says_0(tmp_path, monkeypatch):
  (tmp_path / "a").mkdir()
  (tmp_path / "b").mkdir()
  assert await _collector_during_a_load(tmp_path / "a", PAUSE_ABOVE + 1) == {False}
  monkeypatch.setenv(ENV, "0")
  assert await _collector_during_a_load(tmp_path / "b", PAUSE_ABOVE + 1) == {True}


def test_the_policy_leaves_a_collector_the_process_manages_itself_alone():
  with collection_paused(PAUSE_ABOVE):  # a small load: nothing to gain
    assert gc.isenabled()
  gc.disable()
  try:
    with collection_paused(PAUSE_ABOVE + 1):
      assert not gc.isenabled()
    assert not gc.isenabled()  # the process turned it off: it stays off
  finally:
    gc.enable()
  gc.freeze()
  try:
    # The count is of frozen objects still alive, so it may fall by a few as some die (CI saw 2 fewer);
    # an unfreeze would empty it.
    frozen = gc.get_freeze_count()
    assert frozen > 1000
    with heap_frozen():
      assert gc.get_freeze_count() > frozen // 2
    assert gc.get_freeze_count() > frozen // 2  # the process's own freeze is not undone
  finally:
    gc.unfreeze()


def test_a_switch_value_it_does_not_understand_keeps_the_tuning_and_says_how_to_set_it(monkeypatch, caplog):
  monkeypatch.setenv(ENV, "maybe")
  with caplog.at_level(logging.WARNING, logger="adk_nb"):
    with collection_paused(PAUSE_ABOVE + 1):
      assert not gc.isenabled()
  assert gc.isenabled()
  assert f"{ENV}='maybe' is not understood" in caplog.text and f"Set {ENV}=0 to turn it off" in caplog.text
