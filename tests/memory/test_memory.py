"""Memory: keyword search over past sessions, and the load_memory / preload_memory tools."""

from __future__ import annotations

from google.genai import types

from adk_nb import Agent, Runner
from adk_nb.events.event import Event
from adk_nb.memory import InMemoryMemoryService, MemoryEntry, SearchMemoryResponse
from adk_nb.sessions import InMemorySessionService
from adk_nb.testing import ScriptedModel, call, run_turn
from adk_nb.tools import load_memory, preload_memory
from tests.support import last_text

APP, USER = "app", "user"


def said(author: str, text: str, **kw) -> Event:
  return Event(author=author, content=types.Content(
      role="user" if author == "user" else "model", parts=[types.Part(text=text)]), **kw)


async def remembered_session(memory, sessions, texts, *, user_id=USER, session_id=None):
  session = await sessions.create_session(app_name=APP, user_id=user_id, session_id=session_id)
  for author, text in texts:
    await sessions.append_event(session, said(author, text))
  await memory.add_session_to_memory(session)
  return session


async def search(memory, query, user_id=USER):
  response = await memory.search_memory(app_name=APP, user_id=user_id, query=query)
  assert isinstance(response, SearchMemoryResponse)
  return [_text(m) for m in response.memories]


def _text(memory: MemoryEntry) -> str:
  return "".join(p.text or "" for p in memory.content.parts)


async def test_search_finds_past_events_by_keyword_case_insensitively():
  memory, sessions = InMemoryMemoryService(), InMemorySessionService()
  await remembered_session(memory, sessions, [
      ("user", "My favourite colour is Blue."), ("agent", "Noted: blue."), ("user", "I live in Lyon.")])
  assert await search(memory, "what is my favourite COLOUR?") == ["My favourite colour is Blue."]
  assert await search(memory, "blue") == ["My favourite colour is Blue.", "Noted: blue."]
  assert await search(memory, "tokyo") == []
  assert await search(memory, "   ") == []


async def test_results_carry_author_time_and_id_and_rank_by_words_matched():
  memory, sessions = InMemoryMemoryService(), InMemorySessionService()
  session = await remembered_session(memory, sessions, [
      ("user", "the red car"), ("agent", "a red car parked near the red house")])
  response = await memory.search_memory(app_name=APP, user_id=USER, query="red house")
  best, second = response.memories
  assert _text(best).startswith("a red car parked") and best.author == "agent"
  assert best.id == session.events[1].id and best.timestamp[:4].isdigit()
  assert _text(second) == "the red car"


async def test_memories_are_per_app_and_user():
  memory, sessions = InMemoryMemoryService(), InMemorySessionService()
  await remembered_session(memory, sessions, [("user", "secret plan")], user_id="alice")
  assert await search(memory, "plan", user_id="bob") == []
  assert (await memory.search_memory(app_name="other", user_id="alice", query="plan")).memories == []


async def test_adding_a_session_again_refreshes_it_without_duplicates():
  memory, sessions = InMemoryMemoryService(), InMemorySessionService()
  session = await remembered_session(memory, sessions, [("user", "alpha beta")])
  await sessions.append_event(session, said("agent", "beta gamma"))
  await memory.add_session_to_memory(session)
  await memory.add_session_to_memory(session)
  assert await search(memory, "beta") == ["alpha beta", "beta gamma"]


async def test_at_most_ten_results_the_best_first():
  memory, sessions = InMemoryMemoryService(), InMemorySessionService()
  texts = [("user", f"note {i} about cats") for i in range(15)] + [("user", "cats and dogs together")]
  await remembered_session(memory, sessions, texts)
  found = await search(memory, "cats dogs")
  assert len(found) == 10 and found[0] == "cats and dogs together"


async def test_words_inside_text_written_without_spaces_are_found():
  memory, sessions = InMemoryMemoryService(), InMemorySessionService()
  await remembered_session(memory, sessions, [("user", "私はPythonを使う"), ("user", "東京に住んでいます")])
  assert await search(memory, "python") == ["私はPythonを使う"]
  assert await search(memory, "東京") == ["東京に住んでいます"]


async def test_events_without_text_are_not_remembered():
  memory, sessions = InMemoryMemoryService(), InMemorySessionService()
  session = await sessions.create_session(app_name=APP, user_id=USER)
  await sessions.append_event(session, Event(author="agent", content=types.Content(
      role="model", parts=[types.Part(function_call=types.FunctionCall(name="lookup", args={"q": "lookup"}))])))
  await sessions.append_event(session, Event(author="agent"))
  await memory.add_session_to_memory(session)
  assert await search(memory, "lookup") == []


async def test_explicit_memories_single_events_and_deletion():
  memory = InMemoryMemoryService()
  await memory.add_memory(app_name=APP, user_id=USER, memories=[
      MemoryEntry(content=types.Content(parts=[types.Part(text="allergic to peanuts")]))])
  event = said("user", "peanuts are fine in sauces")
  await memory.add_events_to_memory(app_name=APP, user_id=USER, events=[event, event], session_id="s")
  response = await memory.search_memory(app_name=APP, user_id=USER, query="peanuts")
  assert [_text(m) for m in response.memories] == ["allergic to peanuts", "peanuts are fine in sauces"]
  assert all(m.id for m in response.memories)
  await memory.delete_memory(app_name=APP, user_id=USER, memory_id=event.id)
  assert await search(memory, "peanuts") == ["allergic to peanuts"]
  # A forgotten memory does not come back when its events are added again.
  await memory.add_events_to_memory(app_name=APP, user_id=USER, events=[event], session_id="s")
  assert await search(memory, "sauces") == []


async def test_changing_a_result_does_not_change_the_memory():
  memory, sessions = InMemoryMemoryService(), InMemorySessionService()
  await remembered_session(memory, sessions, [("user", "keep this")])
  first = (await memory.search_memory(app_name=APP, user_id=USER, query="keep")).memories[0]
  first.content.parts[0].text = "changed"
  assert await search(memory, "keep") == ["keep this"]


# -- tools ----------------------------------------------------------------------


async def _runner_with_memory(model, tools):
  memory, sessions = InMemoryMemoryService(), InMemorySessionService()
  await remembered_session(memory, sessions, [
      ("user", "My favourite colour is blue."), ("user", "I adopted a cat named Miso.")],
      session_id="past")
  agent = Agent(name="helper", model=model, instruction="Be helpful.", tools=tools)
  return Runner(agent=agent, app_name=APP, session_service=sessions, memory_service=memory)


async def test_preload_memory_puts_matching_memories_in_the_system_instruction():
  model = ScriptedModel(["Blue!"])
  runner = await _runner_with_memory(model, [preload_memory])
  events = await run_turn(runner, "What is my favourite colour?", user_id=USER, session_id="now")
  assert last_text(events) == "Blue!"
  [request] = model.requests
  instruction = request.system_instruction_text
  # The agent's own instruction comes first, the memories after it.
  assert 0 <= instruction.index("Be helpful.") < instruction.index("<PAST_CONVERSATIONS>")
  assert "user: My favourite colour is blue." in instruction
  assert "Miso" not in instruction
  # It is never offered to the model as a function.
  assert "preload_memory" not in request.tools_dict
  model.assert_complete()


async def test_preload_memory_adds_nothing_when_nothing_matches():
  model = ScriptedModel(["Hello."])
  runner = await _runner_with_memory(model, [preload_memory])
  await run_turn(runner, "zzz qqq", user_id=USER, session_id="now")
  assert "PAST_CONVERSATIONS" not in model.requests[0].system_instruction_text


async def test_load_memory_lets_the_model_search_and_tells_it_so():
  model = ScriptedModel([call("load_memory", query="cat"), "Your cat is Miso."])
  runner = await _runner_with_memory(model, [load_memory])
  events = await run_turn(runner, "What is my cat called?", user_id=USER, session_id="now")
  first = model.requests[0]
  assert "load_memory" in first.tools_dict
  assert "call the load_memory function" in first.system_instruction_text
  [response] = [r for e in events for r in e.get_function_responses()]
  memories = response.response["result"]["memories"]
  assert [m["content"]["parts"][0]["text"] for m in memories] == ["I adopted a cat named Miso."]
  assert memories[0]["author"] == "user"
  assert last_text(events) == "Your cat is Miso."
  model.assert_complete()
