"""Events compaction: summaries appended after invocations, and what the model is sent afterwards."""

import logging

import pytest
from google.genai import types

from adk_nb import Agent
from adk_nb.apps import App, EventsCompactionConfig
from adk_nb.apps.compaction import self_contained_prefix
from adk_nb.apps.llm_event_summarizer import LlmEventSummarizer
from adk_nb.events import Event, EventActions
from adk_nb.models import LlmResponse, ScriptedModel, call
from adk_nb.runners import InMemoryRunner, Runner
from adk_nb.sessions import DatabaseSessionService
from adk_nb.testing import run_turn
from tests.support import last_text


def answering(request):
  """The agent's scripted model: answers 'answer to <last user text>'."""
  return f"answer to {request.contents[-1].parts[0].text}"


class Summaries:
  """A scripted summarizer model: 'Summary n', and the prompts it was sent."""

  def __init__(self):
    self.model = ScriptedModel(self.answer)
    self.prompts = []

  def answer(self, request):
    self.prompts.append(request.contents[0].parts[0].text)
    return f"Summary {len(self.prompts)}"


def make_app(interval=2, overlap=1, agent_model=None, summaries=None, **config):
  summaries = summaries or Summaries()
  agent = Agent(name="chat", model=agent_model or ScriptedModel(answering))
  cfg = EventsCompactionConfig(summarizer=LlmEventSummarizer(llm=summaries.model),
                               **({"compaction_interval": interval, "overlap_size": overlap} if interval else {}),
                               **config)
  return App(name="long", root_agent=agent, events_compaction_config=cfg), summaries


def sent(request):
  return [(c.role, c.parts[0].text) for c in request.contents]


async def session_events(runner, session_id="session"):
  session = await runner.session_service.get_session(app_name=runner.app_name, user_id="user", session_id=session_id)
  return session.events


async def test_sliding_window_summaries_replace_older_turns_in_requests():
  app, summaries = make_app(interval=2, overlap=1)
  runner = InMemoryRunner(app=app)
  model = app.root_agent.model

  for n in (1, 2):
    events = await run_turn(runner, f"q{n}")
  # The summary is appended after the invocation, not yielded by it.
  assert all(e.actions.compaction is None for e in events)
  stored = await session_events(runner)
  summary = stored[-1]
  assert summary.actions.compaction.compacted_content.parts[0].text == "Summary 1"
  assert summary.author == "user" and len(stored) == 5  # 4 turn events + the summary
  assert (summary.actions.compaction.start_timestamp, summary.actions.compaction.end_timestamp) == (
      stored[0].timestamp, stored[3].timestamp)
  assert "user: q1\nchat: answer to q1\nuser: q2\nchat: answer to q2" in summaries.prompts[0]

  await run_turn(runner, "q3")
  assert sent(model.requests[2]) == [("model", "Summary 1"), ("user", "q3")]
  assert len(summaries.prompts) == 1  # one new invocation: not due yet

  await run_turn(runner, "q4")
  # The second summary starts from the first, covers the overlap (q2) and the new turns.
  second = summaries.prompts[1]
  assert second.index("model: Summary 1") < second.index("user: q2") < second.index("user: q4")
  await run_turn(runner, "q5")
  assert sent(model.requests[4]) == [("model", "Summary 2"), ("user", "q5")]
  # The session still holds every event.
  texts = [e.content.parts[0].text for e in await session_events(runner) if e.content]
  assert texts[:4] == ["q1", "answer to q1", "q2", "answer to q2"]


async def test_a_long_session_sends_a_bounded_request():
  interval = 5
  app, summaries = make_app(interval=interval, overlap=1)
  runner = InMemoryRunner(app=app)
  for n in range(60):
    await run_turn(runner, f"q{n}")
  sizes = [len(r.contents) for r in app.root_agent.model.requests]
  assert max(sizes) <= 2 * interval and sizes[-1] <= 2 * interval
  assert len(summaries.prompts) >= 60 // interval - 1
  # Without compaction the same session sends its whole history.
  plain = Agent(name="chat", model=ScriptedModel(answering))
  plain_runner = InMemoryRunner(plain, app_name="long")
  for n in range(60):
    await run_turn(plain_runner, f"q{n}")
  assert len(plain.model.requests[-1].contents) == 119


async def test_the_window_stops_before_a_call_still_waiting_for_approval():
  def refund(order: str) -> str:
    """Refunds an order."""
    return "refunded"

  from adk_nb.tools import FunctionTool

  model = ScriptedModel(["hello", call("refund", order="A1"), "done"])
  agent = Agent(name="chat", model=model, tools=[FunctionTool(refund, require_confirmation=True)])
  summaries = Summaries()
  app = App(name="long", root_agent=agent, events_compaction_config=EventsCompactionConfig(
      compaction_interval=2, overlap_size=0, summarizer=LlmEventSummarizer(llm=summaries.model)))
  runner = InMemoryRunner(app=app)
  await run_turn(runner, "hi")
  await run_turn(runner, "refund A1")  # pauses on the confirmation
  stored = await session_events(runner)
  [compaction] = [e for e in stored if e.actions.compaction]
  # The window ends before the call that waits for approval (the user's message is in it, as in google-adk).
  assert stored[2].content.parts[0].text == "refund A1" and stored[3].get_function_calls()
  assert compaction.actions.compaction.end_timestamp == stored[2].timestamp
  assert "called tool" not in summaries.prompts[0]


def test_self_contained_prefix_skips_calls_nobody_will_answer():
  def ev(inv, *parts, **kw):
    return Event(invocation_id=inv, author="chat", content=types.Content(role="model", parts=list(parts)), **kw)

  fc = lambda i: types.Part(function_call=types.FunctionCall(id=i, name="f", args={}))  # noqa: E731
  fr = lambda i: types.Part(function_response=types.FunctionResponse(id=i, name="f", response={}))  # noqa: E731
  answered = [ev("a", fc("1")), ev("a", fr("1")), ev("b", types.Part(text="x"))]
  assert self_contained_prefix(answered, answered) == answered
  dead = [ev("a", fc("2")), ev("b", types.Part(text="x")), ev("c", types.Part(text="newest"))]
  assert self_contained_prefix(dead[:2], dead) == dead[:2]
  newest_open = [ev("a", types.Part(text="x")), ev("c", fc("3"))]
  assert self_contained_prefix(newest_open, newest_open) == newest_open[:1]


async def test_a_failing_summarizer_is_logged_and_the_turn_goes_on(caplog):
  broken = Summaries()
  broken.model = ScriptedModel([RuntimeError("summarizer down")])
  app, _ = make_app(interval=1, overlap=0, summaries=broken)
  runner = InMemoryRunner(app=app)
  with caplog.at_level(logging.WARNING, logger="adk_nb.compaction"):
    events = await run_turn(runner, "q1")
  assert last_text(events) == "answer to q1"
  assert "Event compaction failed" in caplog.text
  assert not any(e.actions.compaction for e in await session_events(runner))


async def test_token_threshold_keeps_the_last_events(tmp_path):
  def heavy(request):
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text="long answer")]),
                       usage_metadata=types.GenerateContentResponseUsageMetadata(prompt_token_count=5000))

  app, summaries = make_app(interval=None, agent_model=ScriptedModel(heavy), token_threshold=4000,
                            event_retention_size=1)
  runner = InMemoryRunner(app=app)
  await run_turn(runner, "q1")
  await run_turn(runner, "q2")
  stored = await session_events(runner)
  # Turn 1 reached the threshold: its message was summarized, its answer (the last event) kept.
  u1, a1, first, u2, a2, second = stored
  assert (first.actions.compaction.start_timestamp, first.actions.compaction.end_timestamp) == (u1.timestamp, u1.timestamp)
  assert sent(app.root_agent.model.requests[1]) == [("model", "Summary 1"), ("model", "long answer"), ("user", "q2")]
  # Turn 2: a rolling summary from the first one up to q2; the last answer stays as it is.
  assert (second.actions.compaction.start_timestamp, second.actions.compaction.end_timestamp) == (
      u1.timestamp, u2.timestamp)
  assert "model: Summary 1\nchat: long answer\nuser: q2" in summaries.prompts[1]


async def test_compaction_events_survive_a_sqlite_store(tmp_path):
  url = f"sqlite:///{tmp_path / 'long.db'}"
  app, _ = make_app(interval=2, overlap=0)
  runner = Runner(app=app, session_service=DatabaseSessionService(url))
  for n in (1, 2):
    await run_turn(runner, f"q{n}")
  fresh_model = ScriptedModel(answering)
  app2, _ = make_app(interval=2, overlap=0, agent_model=fresh_model)
  runner2 = Runner(app=app2, session_service=DatabaseSessionService(url))
  await run_turn(runner2, "q3")
  assert sent(fresh_model.requests[0]) == [("model", "Summary 1"), ("user", "q3")]


def test_config_needs_complete_triggers():
  with pytest.raises(ValueError, match="together"):
    EventsCompactionConfig(compaction_interval=3)
  with pytest.raises(ValueError, match="needs a trigger"):
    EventsCompactionConfig()
  with pytest.raises(ValueError):
    EventsCompactionConfig(compaction_interval=0, overlap_size=0)
  with pytest.raises(ValueError, match="conversation_history"):
    LlmEventSummarizer(llm=ScriptedModel([]), prompt_template="Summarize.")


def test_an_app_without_a_model_for_summaries_names_the_fix():
  from adk_nb.agents import SequentialAgent

  root = SequentialAgent(name="steps", sub_agents=[Agent(name="a", model=ScriptedModel([]))])
  with pytest.raises(ValueError, match="summarizer=LlmEventSummarizer"):
    App(name="long", root_agent=root, events_compaction_config=EventsCompactionConfig(
        compaction_interval=2, overlap_size=0))
