"""What a client sees when a workflow agent (Sequential, Loop, Parallel), or an LlmAgent that handed over by
transfer, pauses for a confirmation and is resumed: the checkpoints google-adk 2.13 streams and no others.
adk_nb's pause checkpoint (where the agent stood when the invocation paused) is committed to the session,
where the resume reads it, but not yielded.

The expected sequences were observed on google-adk 2.13 (bench/.venv-adk) by running these same turns:
the agents below, a FunctionTool(require_confirmation=True), the model calling it then answering
"Done.", the second turn answering adk_request_confirmation with {"confirmed": True} (resumable apps pass
the paused invocation_id too), and listing every yielded event without content as (author, agent_state,
end_of_agent). google-adk streams nothing at any of these pauses, resumable app or not.
"""

from __future__ import annotations

import pytest
from google.genai import types

from adk_nb.agents import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from adk_nb.apps import App, ResumabilityConfig
from adk_nb.events.protocol import is_start_marker
from adk_nb.runners import InMemoryRunner
from adk_nb.testing import ScriptedModel, call
from adk_nb.tools import FunctionTool


def delete_file(path: str) -> dict:
  """Deletes a file."""
  return {"deleted": path}


def worker(name: str = "worker") -> LlmAgent:
  return LlmAgent(name=name, model=ScriptedModel([call("delete_file", path="a"), "Done."]),
                  tools=[FunctionTool(delete_file, require_confirmation=True)])


def build(shape: str) -> LlmAgent:
  if shape == "sequential":
    return SequentialAgent(name="seq", sub_agents=[worker(), LlmAgent(name="after", model=ScriptedModel(["ok"]))])
  if shape == "loop":
    return LoopAgent(name="loop", max_iterations=1, sub_agents=[worker()])
  return ParallelAgent(name="par", sub_agents=[worker("w1"), LlmAgent(name="w2", model=ScriptedModel(["ok"]))])


def records(events) -> list[tuple]:
  """(author, agent_state, end_of_agent) of each content-less event (adk_nb's at-most-once markers aside)."""
  return [(e.author, e.actions.agent_state, bool(e.actions.end_of_agent)) for e in events
          if not (e.content and e.content.parts) and not is_start_marker(e)]


# google-adk 2.13's content-less events, turn by turn (pause, then resume), observed as the docstring says.
OBSERVED = {
    ("sequential", False): [[], []],
    ("loop", False): [[], []],
    ("parallel", False): [[], []],
    ("sequential", True): [
        [("seq", {"current_sub_agent": "worker"}, False)],
        [("worker", None, True), ("seq", {"current_sub_agent": "after"}, False), ("after", None, True),
         ("seq", None, True)]],
    ("loop", True): [
        [("loop", {"current_sub_agent": "worker", "times_looped": 0}, False)],
        [("worker", None, True), ("loop", None, True)]],
    ("parallel", True): [
        [("par", {}, False), ("w2", None, True)],
        [("w1", None, True), ("par", None, True)]],
}

# What adk_nb keeps in the session for the resume (not streamed): where each agent stood at the pause.
STORED_PAUSE = {"sequential": ("seq", {"index": 0}), "loop": ("loop", {"iteration": 0, "index": 0}),
                "parallel": ("par", {"paused": ["w1"]})}


@pytest.mark.parametrize("resumable", [False, True], ids=["plain_app", "resumable_app"])
@pytest.mark.parametrize("shape", ["sequential", "loop", "parallel"])
async def test_a_pause_streams_what_google_adk_streams_and_the_session_keeps_the_checkpoint(shape, resumable):
  config = ResumabilityConfig(is_resumable=True) if resumable else None
  runner = InMemoryRunner(app=App(name="app", root_agent=build(shape), resumability_config=config))
  session = await runner.session_service.create_session(app_name="app", user_id="u")

  async def turn(message, invocation_id=None):
    return [e async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message,
                                              invocation_id=invocation_id)]

  first = await turn(types.Content(role="user", parts=[types.Part(text="delete a")]))
  [request] = [c for e in first for c in e.get_function_calls() if c.name == "adk_request_confirmation"]
  stored = (await runner.session_service.get_session(app_name="app", user_id="u", session_id=session.id)).events
  author, state = STORED_PAUSE[shape]
  assert [(e.author, e.actions.agent_state) for e in stored if e.author == author][-1] == (author, state)

  answer = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
      name="adk_request_confirmation", id=request.id, response={"confirmed": True}))])
  second = await turn(answer, first[-1].invocation_id if resumable else None)

  first_records, second_records = records(first), records(second)
  if shape == "parallel":  # the branches run concurrently: their order is not part of the contract
    first_records, second_records = sorted(first_records, key=repr), sorted(second_records, key=repr)
    expected = [sorted(t, key=repr) for t in OBSERVED[(shape, resumable)]]
  else:
    expected = OBSERVED[(shape, resumable)]
  assert [first_records, second_records] == expected
  # The resume continued from the stored checkpoint: the confirmed call ran, and the worker answered.
  responses = [r.response for e in second for r in e.get_function_responses() if r.name == "delete_file"]
  assert responses == [{"deleted": "a"}]
  assert any(e.content and e.content.parts and e.content.parts[0].text == "Done." for e in second)


# google-adk 2.13, observed the same way: a root LlmAgent transfers to `worker`, which pauses. Nothing about the
# root follows the worker's events (a resumable app ends the root before the transfer, as both frameworks do).
# On the resume only the worker ends (the root's end was streamed before the transfer).
TRANSFER_PAUSE = {False: [], True: [("root", None, True)]}
TRANSFER_RESUME = {False: [], True: [("worker", None, True)]}


@pytest.mark.parametrize("resumable", [False, True], ids=["plain_app", "resumable_app"])
async def test_a_pause_after_a_transfer_streams_no_checkpoint_and_the_resume_no_second_end_of_the_root(resumable):
  root = LlmAgent(name="root", model=ScriptedModel([call("transfer_to_agent", agent_name="worker")]),
                  sub_agents=[worker()])
  config = ResumabilityConfig(is_resumable=True) if resumable else None
  runner = InMemoryRunner(app=App(name="app", root_agent=root, resumability_config=config))
  session = await runner.session_service.create_session(app_name="app", user_id="u")
  first = [e async for e in runner.run_async(user_id="u", session_id=session.id, new_message=types.Content(
      role="user", parts=[types.Part(text="delete a")]))]
  assert records(first) == TRANSFER_PAUSE[resumable]
  stored = (await runner.session_service.get_session(app_name="app", user_id="u", session_id=session.id)).events
  assert [e.actions.agent_state for e in stored if e.author == "root" and e.actions.agent_state] == [
      {"transferred_to": "worker"}]
  [request] = [c for e in first for c in e.get_function_calls() if c.name == "adk_request_confirmation"]
  second = [e async for e in runner.run_async(
      user_id="u", session_id=session.id, invocation_id=first[-1].invocation_id if resumable else None,
      new_message=types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
          name="adk_request_confirmation", id=request.id, response={"confirmed": True}))]))]
  assert [r.response for e in second for r in e.get_function_responses()] == [{"deleted": "a"}]
  assert records(second) == TRANSFER_RESUME[resumable]
