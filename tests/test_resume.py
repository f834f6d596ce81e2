"""adk_nb.resume: a message answering pending calls becomes a Resume; the agent tree says where it starts."""

from adk_nb import Agent, InMemoryRunner
from adk_nb.agents import SequentialAgent
from adk_nb.pending import answer_message, confirmation_response, pending_items
from adk_nb.resume import Resume, match_answers
from adk_nb.testing import ScriptedModel, call, run_turn
from adk_nb.tools import FunctionTool
from tests.support import last_text


def refund(order_id: str) -> dict:
  """Refunds an order."""
  return {"refunded": order_id}


def pipeline():
  worker = Agent(name="worker", model=ScriptedModel([call("refund", order_id="A"), "done"]),
                 tools=[FunctionTool(refund, require_confirmation=True)])
  return SequentialAgent(name="flow", sub_agents=[worker])


async def paused_session(root):
  runner = InMemoryRunner(root, app_name="app")
  await run_turn(runner, "refund A")
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  return runner, session


async def test_an_answer_becomes_a_resume_at_the_highest_checkpointed_agent():
  root = pipeline()
  _, session = await paused_session(root)
  [item] = pending_items(session.events)
  resume = match_answers(root, session, answer_message([confirmation_response(item, True)]))
  assert isinstance(resume, Resume)
  assert (resume.invocation_id, resume.agent.name, resume.branch) == (item.invocation_id, "flow", None)
  assert list(resume.answers) == [item.call_id] and resume.paused == (item,)
  assert resume.nested_answer_ids == []


async def test_a_plain_message_resumes_nothing():
  root = pipeline()
  _, session = await paused_session(root)
  assert match_answers(root, session, answer_message([])) is None


async def test_the_root_decides_where_a_resume_starts():
  """A graph Workflow overrides resume_entry; the Runner starts wherever the root says."""
  asked = []

  class Rooted(SequentialAgent):
    def resume_entry(self, session, invocation_id, paused):
      asked.append((invocation_id, paused.agent))
      return self.find_agent(paused.agent), None

  worker = Agent(name="worker", model=ScriptedModel([call("refund", order_id="A"), "done"]),
                 tools=[FunctionTool(refund, require_confirmation=True)])
  root = Rooted(name="flow", sub_agents=[worker])
  runner, session = await paused_session(root)
  [item] = pending_items(session.events)
  events = await run_turn(runner, answer_message([confirmation_response(item, True)]))
  assert asked == [(item.invocation_id, "worker")]
  assert {e.author for e in events[1:]} == {"worker"}  # the SequentialAgent itself never ran again
  assert last_text(events) == "done"


async def test_an_answer_sent_again_after_a_resume_that_stopped_continues_the_whole_sequence():
  """The answer of a resume that stopped before its agents ran is in the session; sent again, it
  resumes at the sequence, as the first resume would have, and the next sub-agent runs."""
  from adk_nb.events import Event
  from adk_nb.testing import summarize

  worker = Agent(name="worker", model=ScriptedModel([call("refund", order_id="A"), "refunded"]),
                 tools=[FunctionTool(refund, require_confirmation=True)])
  notifier = Agent(name="notifier", model=ScriptedModel(["customer told"]))
  root = SequentialAgent(name="flow", sub_agents=[worker, notifier])
  runner, session = await paused_session(root)
  [item] = pending_items(session.events)
  answer = answer_message([confirmation_response(item, True)])
  # What a resume killed right after committing the answer leaves behind.
  await runner.session_service.append_event(session, Event(invocation_id=item.invocation_id, author="user",
                                                            content=answer))
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  resume = match_answers(root, session, answer)
  assert (resume.agent.name, resume.branch) == ("flow", None)
  events = await run_turn(runner, answer)
  assert ("notifier", "text", "customer told") in summarize(events)
  notifier.model.assert_complete()
