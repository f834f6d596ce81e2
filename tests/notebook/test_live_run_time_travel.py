"""run.edit(step, ...) and run.fork(...): edit a step of a LiveRun and continue in a new run; fork its session."""

from __future__ import annotations

import asyncio

import pytest
from google.genai import types

from adk_nb.sessions import lineage
import adk_nb.notebook as nb
from tests.support import forecaster


@pytest.fixture
def forecast():
  runs: list[str] = []
  agent, model = forecaster(runs)
  run = nb.run(agent, "weather?", store="memory://", view=False)
  assert run.final_text == "Paris: 21 degrees"
  return run, model, runs


def test_editing_a_tool_step_continues_in_a_new_run_from_the_edit(forecast):
  run, model, runs = forecast
  [tool_step] = [s for s in run.steps.steps.values() if s.kind == "tool_call"]
  calls = len(model.requests)

  edited = run.edit(tool_step, types.Content(parts=[types.Part(function_response=types.FunctionResponse(
      name="lookup", response={"city": "Paris", "temp": 35}))]))

  assert edited.status == "done" and edited.final_text == "Paris: 35 degrees"
  assert len(model.requests) == calls + 1 and runs == ["Paris"]  # one live model call, the tool did not run
  assert edited.session_id != run.session_id and edited.invocation_id == run.invocation_id
  assert [s.kind for s in edited.steps.steps.values() if s.kind == "model_call"] == ["model_call"]
  assert run.final_text == "Paris: 21 degrees"  # the original run is as it was


def test_fork_of_a_run_starts_before_it_and_says_where_it_came_from(forecast):
  run, _, _ = forecast
  fork = asyncio.run(run.fork(new_session_id="what-if"))
  assert fork.id == "what-if" and fork.events == []
  assert lineage(fork).session_id == run.session_id and lineage(fork).before_invocation_id == run.invocation_id


def test_edit_names_what_it_takes_when_the_step_is_not_this_runs(forecast):
  run, _, _ = forecast
  with pytest.raises(ValueError, match="run.events"):
    run.edit("no-such-event", types.Content(parts=[types.Part(text="x")]))


def test_agent_sessions_lists_forks_with_their_lineage(shell, make_refund_agent):
  agent, _ = make_refund_agent(["one"])
  shell.user_ns["agent"] = agent
  run = shell.run_cell("%%agent agent --store memory:// --session s1\nhi", store_history=True).result
  asyncio.run(run.fork(new_session_id="s1-what-if"))
  sessions = shell.run_cell("%agent sessions", store_history=True).result.set_index("session")
  assert sessions.loc["s1-what-if", "forked_from"] == "s1"
  assert sessions.loc["s1-what-if", "forked_at"] == run.invocation_id
  assert not isinstance(sessions.loc["s1", "forked_from"], str)  # not a fork (None, shown as NaN)
