"""The chat view without a browser: Send returns at once, replies, sessions, pauses, escaping."""

from __future__ import annotations

import asyncio
from typing import AsyncGenerator

import pytest

from adk_nb import Agent
from adk_nb.models import BaseLlm, LlmRequest, LlmResponse, ScriptedModel, call
from adk_nb.models.scripted import to_llm_response
from adk_nb.notebook.chat import ChatView, chat


class GatedModel(BaseLlm):
  """Answers 'reply N' only once the test opens the gate: the turn is observably still running before that."""

  model: str = "gated"

  def __init__(self, **kwargs):
    super().__init__(**kwargs)
    object.__setattr__(self, "gate", asyncio.Event())
    object.__setattr__(self, "calls", 0)

  async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False
                                   ) -> AsyncGenerator[LlmResponse, None]:
    object.__setattr__(self, "calls", self.calls + 1)
    await self.gate.wait()
    yield to_llm_response(f"reply {self.calls}")


def _echo(request: LlmRequest) -> str:
  return "echo: " + request.contents[-1].parts[0].text


async def _stored_texts(view: ChatView, session_id: str) -> list[str]:
  runner = view.entry.runner
  session = await runner.session_service.get_session(app_name=runner.app_name, user_id=view.user_id,
                                                     session_id=session_id)
  return [e.text for e in session.events if e.text]


async def test_send_starts_the_turn_as_a_task_and_returns_at_once():
  model = GatedModel()
  view = chat(Agent(name="helper", model=model), store="memory://")
  await view.idle(timeout=10)
  view.input.value = "hello"
  view.send_button.click()
  turn = view.turn
  # The click handler has returned, yet the turn is a pending task still waiting for the model.
  assert turn is not None and turn._task is not None and not turn._task.done()
  assert turn.status == "running"
  assert view.input.value == "" and view.send_button.disabled and view.sessions.disabled
  assert view.messages == [("user", "hello")]
  assert view.run_box.children == (turn.view,)
  # A second message while the first runs is refused, and says why.
  assert view.send("again") is None and "still answering" in view.status.value
  model.gate.set()
  await asyncio.wait_for(turn, 10)
  assert turn.status == "done" and turn.final_text == "reply 1"
  await view.idle(timeout=10)
  assert view.messages == [("user", "hello"), ("helper", "reply 1")]
  assert not view.send_button.disabled
  assert model.calls == 1


async def test_enter_with_a_turn_running_puts_the_refused_text_back_in_the_box():
  model = GatedModel()
  view = chat(Agent(name="helper", model=model), store="memory://")
  await view.idle(timeout=10)
  sent_to_browser = []
  view.input.send = lambda content, buffers=None: sent_to_browser.append(content)
  view._send_typed("hello")  # Enter: the browser has already emptied its box
  assert view.input.value == ""
  view._send_typed("too soon")
  assert view.input.value == "too soon" and "still answering" in view.status.value
  assert sent_to_browser == [{"type": "restore", "text": "too soon"}]
  model.gate.set()
  await view.idle(timeout=10)
  assert view.messages == [("user", "hello"), ("helper", "reply 1")]


async def test_idle_with_a_timeout_leaves_the_turn_running():
  model = GatedModel()
  view = chat(Agent(name="helper", model=model), store="memory://")
  await view.idle(timeout=10)
  turn = view.send("hello")
  with pytest.raises(asyncio.TimeoutError):
    await view.idle(timeout=0.01)  # the gated model cannot answer first, whatever the machine
  assert turn.status == "running"
  model.gate.set()
  await asyncio.wait_for(turn, 10)
  assert turn.status == "done" and view.messages[-1] == ("helper", "reply 1"), (turn.status, turn.error)


async def test_a_message_to_a_session_that_a_background_cell_is_running_is_refused():
  import adk_nb.notebook as nb

  model = GatedModel()
  agent = Agent(name="helper", model=model)
  background = nb.run(agent, "from a cell", session="s", store="memory://")
  view = chat(agent, store="memory://", session="s")
  await view.idle(timeout=10)
  assert view.send("from the chat") is None
  assert "Session 's' is still running" in view.status.value and "await run" in view.status.value
  model.gate.set()
  await asyncio.wait_for(background, 10)
  turn = view.send("from the chat")
  model.gate.set()
  await asyncio.wait_for(turn, 10)
  assert turn.status == "done" and model.calls == 2


async def test_the_reply_joins_the_history_and_the_store():
  view = chat(Agent(name="echo", model=ScriptedModel(_echo)), store="memory://", session="s1")
  await view.idle(timeout=10)
  view.input.value = "ping"
  view.send_button.click()
  await view.idle(timeout=10)
  assert view.messages == [("user", "ping"), ("echo", "echo: ping")]
  assert "echo: ping" in view.history.value and "<b>you</b>ping" in view.history.value
  assert await _stored_texts(view, "s1") == ["ping", "echo: ping"]
  view.send("pong")
  await view.idle(timeout=10)
  assert [t for _, t in view.messages] == ["ping", "echo: ping", "pong", "echo: pong"]
  assert len(view.turns) == 2 and view.turns[-1].session_id == "s1"


async def test_a_message_sent_in_the_same_cell_as_chat_keeps_its_place_in_the_history():
  view = chat(Agent(name="echo", model=ScriptedModel(_echo)), store="memory://", session="s")
  view.send("right away")  # before the session has even been opened
  await view.idle(timeout=10)
  assert view.messages == [("user", "right away"), ("echo", "echo: right away")]
  assert view.sessions.options == ("s",) and view.sessions.value == "s"


async def test_empty_message_is_not_sent():
  view = chat(Agent(name="echo", model=ScriptedModel(_echo)), store="memory://")
  await view.idle(timeout=10)
  view.input.value = "   "
  view.send_button.click()
  assert view.turn is None and view.status.value == "Write a message first."


async def test_switching_sessions_shows_their_history_and_sends_there():
  view = chat(Agent(name="echo", model=ScriptedModel(_echo)), store="memory://", session="first")
  await view.idle(timeout=10)
  view.send("one")
  await view.idle(timeout=10)
  view.new_session("second")
  await view.idle(timeout=10)
  assert view.session_id == "second" and view.messages == [] and view.run_box.children == ()
  assert list(view.sessions.options) == ["first", "second"] and view.sessions.value == "second"
  view.send("two")
  await view.idle(timeout=10)
  # Choosing a session in the menu (as a click would) loads its history.
  view.sessions.value = "first"
  await view.idle(timeout=10)
  assert view.session_id == "first"
  assert view.messages == [("user", "one"), ("echo", "echo: one")]
  view.send("three")
  await view.idle(timeout=10)
  assert await _stored_texts(view, "first") == ["one", "echo: one", "three", "echo: three"]
  assert await _stored_texts(view, "second") == ["two", "echo: two"]


async def test_new_session_button_creates_an_empty_session_in_the_store():
  view = chat(Agent(name="echo", model=ScriptedModel(_echo)), store="memory://", session="old")
  await view.idle(timeout=10)
  view.send("hi")
  await view.idle(timeout=10)
  view.new_button.click()
  await view.idle(timeout=10)
  new = view.session_id
  assert new != "old" and new.startswith("chat-")
  assert view.messages == [] and new in view.sessions.options and "old" in view.sessions.options
  runner = view.entry.runner
  listed = await runner.session_service.list_sessions(app_name="echo", user_id=view.user_id)
  assert {s.id for s in listed.sessions} == {"old", new}
  assert "No messages yet" in view.history.value


async def test_model_and_user_text_is_escaped_in_the_history():
  evil = '<img src=x onerror="window.__pwned=1">'
  view = chat(Agent(name="evil", model=ScriptedModel([evil])), store="memory://")
  await view.idle(timeout=10)
  view.send("<script>alert(1)</script>")
  await view.idle(timeout=10)
  html = view.history.value
  assert "&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;" in html
  assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
  assert "<img" not in html and "<script" not in html
  bundle = view._repr_mimebundle_()
  data = bundle[0] if isinstance(bundle, tuple) else bundle
  assert "<img" not in data["text/html"] and "&lt;img" in data["text/html"]


async def test_a_paused_turn_is_answered_with_the_views_buttons_and_the_reply_joins_the_history(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "Refunded A1."])
  view = chat(agent, store="memory://")
  await view.idle(timeout=10)
  view.send("refund A1 please")
  await view.idle(timeout=10)
  turn = view.turn
  assert turn.status == "paused" and refunds == []
  assert "buttons below" in view.status.value
  assert view.send("and B2?") is None and "waits for an answer" in view.status.value
  approve = next(b for b in _buttons(turn.view) if b.description == "Approve")
  approve.click()
  await view.idle(timeout=10)
  assert turn.status == "done" and refunds == [("A1", 250.0)]
  assert view.messages[-1] == ("support", "Refunded A1.")
  assert not view.send_button.disabled


async def test_switching_away_from_a_paused_turn_and_back_shows_its_buttons_again(make_refund_agent):
  agent, refunds = make_refund_agent([call("refund", order_id="A1", amount=250.0), "hi from b", "Refunded A1."])
  view = chat(agent, store="memory://", session="a")
  await view.idle(timeout=10)
  view.send("refund A1 please")
  await view.idle(timeout=10)
  paused = view.turn
  assert paused.status == "paused"
  view.switch("b")
  await view.idle(timeout=10)
  assert view.run_box.children == () and view.send("hello b") is not None
  await view.idle(timeout=10)
  view.switch("a")
  await view.idle(timeout=10)
  assert view.turn is paused and view.run_box.children == (paused.view,)
  assert "waits for an answer" in view.status.value
  next(b for b in _buttons(view) if b.description == "Approve").click()
  await view.idle(timeout=10)
  assert paused.status == "done" and refunds == [("A1", 250.0)]
  assert view.messages[-1] == ("support", "Refunded A1.")


async def test_each_turn_closes_the_view_of_the_turn_it_replaces():
  import ipywidgets as widgets

  view = chat(Agent(name="echo", model=ScriptedModel(_echo)), store="memory://")
  await view.idle(timeout=10)
  view.send("m0")
  await view.idle(timeout=10)
  first = view.turn
  first_view = first.view
  before = len(widgets.Widget.widgets)
  for i in range(1, 21):
    view.send(f"m{i}")
    await view.idle(timeout=10)
  assert len(widgets.Widget.widgets) <= before, "the replaced turns' widgets are still open"
  assert first_view.comm is None and first_view.tree.comm is None
  assert first.view is not first_view and first.view.comm is not None  # shown again later: a fresh view
  assert view.messages[-1] == ("echo", "echo: m20")


async def test_a_click_from_another_thread_starts_the_turn_on_the_chats_loop():
  view = chat(Agent(name="echo", model=ScriptedModel(_echo)), store="memory://")
  await view.idle(timeout=10)
  view.input.value = "from a thread"
  await asyncio.to_thread(view.send_button.click)  # as ipykernel subshells may deliver a click
  await asyncio.wait_for(_until(lambda: view.turn is not None), 10)
  await view.idle(timeout=10)
  assert view.messages[-1] == ("echo", "echo: from a thread")


async def test_sessions_in_the_default_sqlite_store_reopen_with_their_history():
  agent = Agent(name="echo", model=ScriptedModel(_echo))
  view = chat(agent, session="kept")
  await view.idle(timeout=10)
  view.send("remember me")
  await view.idle(timeout=10)
  from adk_nb.notebook._sessions import registry

  registry.clear()  # as after a kernel restart: a fresh runner on the same file
  again = chat(agent, session="kept")
  await again.idle(timeout=10)
  assert again.entry is not view.entry
  assert again.messages == [("user", "remember me"), ("echo", "echo: remember me")]


async def test_chat_and_agent_cells_share_the_current_session():
  from adk_nb.notebook import arun

  agent = Agent(name="echo", model=ScriptedModel(_echo))
  view = chat(agent, store="memory://", session="shared")
  await view.idle(timeout=10)
  run = await arun(agent, "from a cell", store="memory://", view=False)
  assert run.session_id == "shared"


async def test_a_failing_turn_is_shown_as_an_error():
  view = chat(Agent(name="broken", model=ScriptedModel([RuntimeError("model down")])), store="memory://")
  await view.idle(timeout=10)
  view.send("hi")
  await view.idle(timeout=10)
  assert view.turn.status == "error"
  assert view.messages[-1][0] == "error" and "model down" in view.messages[-1][1]
  assert not view.send_button.disabled


def test_outside_a_kernel_send_runs_the_turn_to_its_end():
  view = chat(Agent(name="echo", model=ScriptedModel(_echo)), store="memory://", session="plain")
  assert view.sessions.options == ("plain",)
  turn = view.send("sync")
  assert turn.status == "done" and view.messages == [("user", "sync"), ("echo", "echo: sync")]


def test_a_runner_cannot_take_a_store():
  from adk_nb import InMemoryRunner

  with pytest.raises(ValueError, match="--store does not apply to a Runner"):
    chat(InMemoryRunner(Agent(name="echo", model=ScriptedModel(_echo)), app_name="echo"), store="memory://")


def _buttons(widget):
  import ipywidgets as widgets

  if isinstance(widget, widgets.Button):
    yield widget
  for child in getattr(widget, "children", ()):
    yield from _buttons(child)


async def _until(condition):
  while not condition():
    await asyncio.sleep(0)  # yields to the loop; bounded by the caller's wait_for


async def test_enter_in_the_message_box_sends_the_text_it_had():
  view = chat(Agent(name="echo", model=ScriptedModel(_echo)), store="memory://")
  await view.idle(timeout=10)
  # What the browser's box sends when Enter is pressed (Shift+Enter only adds a newline in the box).
  view.input._on_browser_msg(view.input, {"type": "send", "text": "two\nlines"}, [])
  await view.idle(timeout=10)
  assert view.messages == [("user", "two\nlines"), ("echo", "echo: two\nlines")]
  assert view.input.value == ""
