"""Turns racing on one session: a turn that loses loses before it runs anything.

A turn claims its session before it writes or runs anything (atomically, on every store), so
a second turn that arrives while the first runs is refused with `SessionBusyError` (a
`StaleSessionError`, 409 on the api_server): its message is not stored, its tool does not run,
and the first turn's call is not answered "Interrupted ... may have run" behind its back. A
refusal that says "nothing was written" is checked against the store.
"""

from __future__ import annotations

import asyncio

import pytest

from adk_nb import Agent, Runner
from adk_nb.errors import StaleSessionError
from adk_nb.errors.stale_session_error import SessionBusyError
from adk_nb.events.protocol import interrupted_ids
from adk_nb.testing import ScriptedModel, call, run_turn

APP, USER, SID = "shop", "ada", "s1"


class Charges:
  """A `charge` tool whose first call is held until released; records every start and end."""

  def __init__(self) -> None:
    self.started: list[str] = []
    self.finished: list[str] = []
    self.first_started = asyncio.Event()
    self.release = asyncio.Event()

  async def charge(self, order_id: str) -> dict:
    """Charges an order."""
    self.started.append(order_id)
    if len(self.started) == 1:
      self.first_started.set()
      await self.release.wait()
    self.finished.append(order_id)
    return {"charged": order_id}


def charging_runner(service, charges: Charges) -> Runner:
  def reply(request):
    last = request.contents[-1].parts[-1]
    if last.function_response is not None:
      return "charged"
    return call("charge", order_id=last.text.split()[-1])
  return Runner(app_name=APP, agent=Agent(name="till", model=ScriptedModel(reply), tools=[charges.charge]),
                session_service=service)


async def test_turns_that_arrive_while_a_turn_runs_are_refused_before_they_run_anything(service):
  charges = Charges()
  runner = charging_runner(service, charges)
  await service.create_session(app_name=APP, user_id=USER, session_id=SID)
  first = asyncio.ensure_future(run_turn(runner, "charge A0", user_id=USER, session_id=SID))
  await charges.first_started.wait()  # the first turn is inside its tool

  outcomes = await asyncio.gather(*(run_turn(runner, f"charge A{n}", user_id=USER, session_id=SID)
                                    for n in range(1, 8)), return_exceptions=True)
  charges.release.set()
  await first

  refusals = [o for o in outcomes if isinstance(o, BaseException)]
  assert len(refusals) == 7 and all(isinstance(o, SessionBusyError) for o in refusals), outcomes
  assert all(isinstance(o, StaleSessionError) for o in refusals)  # a 409, as before
  assert "nothing was written" in str(refusals[0]) and "another turn" in str(refusals[0])
  assert charges.started == ["A0"] and charges.finished == ["A0"]  # no loser ran its tool
  session = await service.get_session(app_name=APP, user_id=USER, session_id=SID)
  said = [e.text for e in session.events if e.author == "user" and e.text]
  assert said == ["charge A0"]  # nothing of the refused turns was written
  answers = [r.response for e in session.events for r in e.get_function_responses()]
  assert answers == [{"charged": "A0"}]  # the winner's known result, never "may have run"
  assert not any(interrupted_ids(e) for e in session.events)

  # The session is free again once the turn has ended: the next turn runs.
  await run_turn(runner, "charge A9", user_id=USER, session_id=SID)
  assert charges.finished == ["A0", "A9"]


async def test_a_turn_racing_from_the_same_start_loses_before_it_runs_anything(service):
  """The probe of issue 28: every turn loads the session first, then all run at once."""
  charges = Charges()
  runner = charging_runner(service, charges)
  await service.create_session(app_name=APP, user_id=USER, session_id=SID)
  turns = [run_turn(runner, f"charge B{n}", user_id=USER, session_id=SID) for n in range(6)]
  racing = asyncio.gather(*turns, return_exceptions=True)
  await charges.first_started.wait()
  charges.release.set()
  outcomes = await racing
  won = [n for n, o in enumerate(outcomes) if not isinstance(o, BaseException)]
  lost = [o for o in outcomes if isinstance(o, BaseException)]
  assert all(isinstance(o, StaleSessionError) and "nothing was written" in str(o) for o in lost), lost
  session = await service.get_session(app_name=APP, user_id=USER, session_id=SID)
  said = [e.text for e in session.events if e.author == "user" and e.text]
  assert said == [f"charge B{n}" for n in won]
  assert sorted(charges.started) == sorted(f"B{n}" for n in won)
  assert charges.started == charges.finished
  assert not any(interrupted_ids(e) for e in session.events)


async def test_a_turn_refused_mid_way_by_a_writer_outside_the_turns_says_what_it_had_committed(service):
  from adk_nb.events import Event, EventActions

  charges = Charges()
  runner = charging_runner(service, charges)
  await service.create_session(app_name=APP, user_id=USER, session_id=SID)
  turn = asyncio.ensure_future(run_turn(runner, "charge C1", user_id=USER, session_id=SID))
  await charges.first_started.wait()
  # Not a turn: a direct write (a state edit from a client) while the turn's tool runs.
  copy = await service.get_session(app_name=APP, user_id=USER, session_id=SID)
  await service.append_event(copy, Event(author="user", actions=EventActions(state_delta={"note": "x"})))
  charges.release.set()
  with pytest.raises(StaleSessionError) as refused:
    await turn
  said = str(refused.value)
  assert "nothing was written" not in said  # the turn's message and call were written
  assert "had already committed 2 event(s)" in said and "calls made: charge" in said
  session = await service.get_session(app_name=APP, user_id=USER, session_id=SID)
  assert [e.text for e in session.events if e.text][:1] == ["charge C1"]


async def test_a_run_left_early_with_break_does_not_hold_the_session(service):
  """google-adk's tutorials `break` out of run_async after the final response, then send the next message."""
  from google.genai import types

  charges = Charges()
  charges.release.set()
  runner = charging_runner(service, charges)
  await service.create_session(app_name=APP, user_id=USER, session_id=SID)
  for n in range(3):
    message = types.Content(role="user", parts=[types.Part(text=f"charge D{n}")])
    async for event in runner.run_async(user_id=USER, session_id=SID, new_message=message):
      if event.is_final_response():
        break
  assert charges.finished == ["D0", "D1", "D2"]
