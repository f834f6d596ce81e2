"""The credential round trip: a tool asks for a credential, the client answers, the tool runs again with it.

fixtures/google_adk_credential_turn.json was written by google-adk 2.13 itself
(fixtures/credential_turn.py, run with its interpreter): the same scripted turn is replayed here on
adk_nb and the events a client sees, the model requests and the tool body counts are compared.
"""

import asyncio
import json
import sys

import pytest
from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.auth import AuthConfig, AuthCredential
from adk_nb.errors import AnswerDoesNotFitError, CallAlreadyAnsweredError, WrongAnswerKindError
from adk_nb.events.protocol import REQUEST_CREDENTIAL
from adk_nb.testing import ScriptedModel, answer, call, pending, run_turn, session_of

from tests.auth.fixtures import credential_turn
from tests.support import last_text

GOOGLE = json.loads(credential_turn.FIXTURE.read_text())


def _ids_blanked(value):
  """The records with the random request ids ('adk-<uuid>') replaced, so two runs compare."""
  text = json.dumps(value, sort_keys=True)
  import re

  return json.loads(re.sub(r'adk-[0-9a-f-]{36}', "adk-<id>", text))


def test_the_same_turn_as_google_adk():
  ours = asyncio.run(credential_turn.run_turn("adk_nb"))
  assert _ids_blanked(ours) == _ids_blanked({k: v for k, v in GOOGLE.items() if k != "node_turn"})
  # The tool that asked ran twice (it asked, then it worked); the one that did not ask, once.
  assert ours["counts"] == {"get_forecast": 1, "read_vault": 2}


KEY_CONFIG = dict(auth_scheme={"type": "apiKey", "in": "header", "name": "X-Key"},
                  raw_auth_credential=AuthCredential(auth_type="apiKey"), credential_key="svc_key")


def vault_runner(model, log):
  """An agent whose tools `open_a` and `open_b` both need the `svc_key` credential and `plain` needs none."""
  def opener(name):
    def tool(tool_context) -> dict:
      credential = tool_context.get_auth_response(AuthConfig(**KEY_CONFIG))
      log.append((name, credential.api_key if credential else None))
      if credential is None:
        tool_context.request_credential(AuthConfig(**KEY_CONFIG))
        return {"status": "pending"}
      return {"opened": name, "with": credential.api_key}
    tool.__name__ = name
    tool.__doc__ = f"Opens {name}."
    return tool

  def plain() -> dict:
    """Needs nothing."""
    log.append(("plain", None))
    return {"ok": True}

  return InMemoryRunner(Agent(name="vault", model=model, tools=[opener("open_a"), opener("open_b"), plain]),
                        app_name="app")


def credential_answer(item, api_key="K-1", **overrides):
  response = dict(item.args["authConfig"])
  response["exchangedAuthCredential"] = {"authType": "apiKey", "apiKey": api_key}
  response.update(overrides)
  return types.Part(function_response=types.FunctionResponse(id=item.call_id, name=REQUEST_CREDENTIAL,
                                                             response=response))


async def test_one_request_per_credential_and_its_answer_runs_again_only_the_calls_that_asked():
  log = []
  model = ScriptedModel([[call("open_a"), call("open_b"), call("plain")], "done"])
  runner = vault_runner(model, log)
  events = await run_turn(runner, "open both")
  requests = [p.function_call for e in events for p in (e.content.parts if e.content else []) or []
              if p.function_call is not None and p.function_call.name == REQUEST_CREDENTIAL]
  assert len(requests) == 1  # two calls asked for the same credential_key: one request
  request = requests[0]
  request_event = next(e for e in events if e.get_function_calls() and e.get_function_calls()[0] is request)
  assert request_event.long_running_tool_ids == {request.id}
  assert request.args["authConfig"]["credentialKey"] == "svc_key"
  [item] = await pending(runner)
  assert (item.call_id, item.tool) == (request.id, REQUEST_CREDENTIAL)
  assert len(model.requests) == 1  # paused: the model is not called with "pending"

  log.clear()
  events = await answer(runner, [credential_answer(item, "K-9")])
  assert sorted(log) == [("open_a", "K-9"), ("open_b", "K-9")]  # `plain` did not ask: not run again
  responses = {r.name: r.response for e in events for r in e.get_function_responses()}
  assert responses["open_a"] == {"opened": "open_a", "with": "K-9"}
  assert last_text(events) == "done"
  assert await pending(runner) == []
  # The model reads the real answers, never the "pending" ones nor the request.
  sent = json.dumps([c.model_dump(mode="json") for c in model.requests[-1].contents])
  assert "pending" not in sent and REQUEST_CREDENTIAL not in sent and "K-9" in sent
  # The credential lives in temp: state for the invocation; nothing stored keeps it in state.
  session = await session_of(runner)
  assert not any("svc_key" in k for k in session.state)
  assert all(not e.actions.state_delta for e in session.events)

  # A second answer to the same request is refused, and nothing runs again.
  log.clear()
  with pytest.raises(CallAlreadyAnsweredError):
    await answer(runner, [credential_answer(item, "K-10")])
  assert log == []


@pytest.mark.parametrize("response, says", [
    ({"authScheme": {"type": "apiKey", "in": "header", "name": "X-Key"}, "credentialKey": "svc_key"},
     "exchangedAuthCredential"),
    ({"exchangedAuthCredential": {"authType": "no-such-kind"}}, "does not parse"),
    ({"apiKey": "K"}, "authType"),
])
async def test_an_answer_without_a_usable_credential_is_refused_and_nothing_is_committed(response, says):
  log = []
  runner = vault_runner(ScriptedModel([call("open_a"), "done"]), log)
  await run_turn(runner, "open a")
  [item] = await pending(runner)
  before = len((await session_of(runner)).events)
  log.clear()
  with pytest.raises(AnswerDoesNotFitError) as raised:
    await answer(runner, [types.Part(function_response=types.FunctionResponse(
        id=item.call_id, name=REQUEST_CREDENTIAL, response=response))])
  assert says in str(raised.value) and "Nothing was changed" in str(raised.value)
  assert len((await session_of(runner)).events) == before and log == []
  assert [i.call_id for i in await pending(runner)] == [item.call_id]
  # The request still waits: a good answer goes through.
  await answer(runner, [credential_answer(item)])
  assert log == [("open_a", "K-1")]


async def test_a_credential_request_answered_under_another_name_is_refused():
  log = []
  runner = vault_runner(ScriptedModel([call("open_a"), "done"]), log)
  await run_turn(runner, "open a")
  [item] = await pending(runner)
  part = credential_answer(item)
  part.function_response.name = "open_a"
  with pytest.raises(WrongAnswerKindError, match="adk_request_credential"):
    await answer(runner, [part])


async def test_a_bare_credential_answers_too():
  log = []
  runner = vault_runner(ScriptedModel([call("open_a"), "done"]), log)
  await run_turn(runner, "open a")
  [item] = await pending(runner)
  await answer(runner, [types.Part(function_response=types.FunctionResponse(
      id=item.call_id, name=REQUEST_CREDENTIAL, response={"authType": "apiKey", "apiKey": "K-2"}))])
  assert log[-1] == ("open_a", "K-2")


# ---- a workflow function node with auth_config (google-adk 2.13's workflows/auth_api_key) -------------------


def _request_messages(record):
  return [v for v in _walk(record, "message")]


def _walk(value, key):
  if isinstance(value, dict):
    for k, v in value.items():
      if k == key and isinstance(v, str):
        yield v
      else:
        yield from _walk(v, key)
  elif isinstance(value, list):
    for v in value:
      yield from _walk(v, key)


def _request_message(record):
  [message] = set(_request_messages(record))
  return message


def _message_masked(record):
  return json.loads(json.dumps(record).replace(json.dumps(_request_message(record)), '"<message>"'))


def test_a_function_node_with_auth_config_as_google_adk():
  ours = asyncio.run(credential_turn.run_node_turn("adk_nb"))
  # Everything but the request's human-readable `message` is google-adk's (names, ids, config, order,
  # runs); that sentence is adk_nb's own wording and names the same key.
  theirs = GOOGLE["node_turn"]
  ours_message, their_message = _request_message(ours), _request_message(theirs)
  assert "X-Api-Key" in ours_message and ours_message != their_message
  assert _message_masked(ours) == _message_masked(theirs)
  assert ours["runs"] == ["SECRET-KEY"]  # the function did not run before the credential arrived, then once


def key_node_workflow(runs, rerun_on_resume=True):
  from adk_nb import Workflow
  from adk_nb.workflow import node

  config = AuthConfig(**KEY_CONFIG)

  @node(auth_config=config, rerun_on_resume=rerun_on_resume)
  def fetch(ctx):
    runs.append(ctx.get_auth_response(config).api_key)
    return "fetched"

  return InMemoryRunner(agent=Workflow(name="wf", edges=[("START", fetch)]), app_name="app")


async def test_a_node_whose_credential_is_in_state_runs_without_asking():
  runs = []
  runner = key_node_workflow(runs)
  events = await run_turn(runner, "go", state_delta={"svc_key": {"authType": "apiKey", "apiKey": "K-S"}})
  assert runs == ["K-S"]
  assert not any(c.name == REQUEST_CREDENTIAL for e in events for c in e.get_function_calls())


async def test_a_node_refuses_a_malformed_credential_answer_and_nothing_is_committed():
  runs = []
  runner = key_node_workflow(runs)
  await run_turn(runner, "go")
  [item] = await pending(runner)
  assert item.call_id == "wf_auth:wf@1/fetch@1" and runs == []
  before = len((await session_of(runner)).events)
  with pytest.raises(AnswerDoesNotFitError, match="exchangedAuthCredential"):
    await answer(runner, [types.Part(function_response=types.FunctionResponse(
        id=item.call_id, name=REQUEST_CREDENTIAL, response={"authScheme": {"type": "apiKey"}}))])
  assert len((await session_of(runner)).events) == before and runs == []
  await answer(runner, [credential_answer(item, "K-7")])
  assert runs == ["K-7"]


@pytest.mark.parametrize("rerun", [False, None])
def test_auth_config_needs_a_node_that_runs_again(rerun):
  with pytest.raises(ValueError, match="with auth_config requires rerun_on_resume=True"):
    key_node_workflow([], rerun_on_resume=rerun)


# ---- the answer arriving elsewhere: in another process, or for an agent run through AgentTool -----------------


async def test_the_answer_resumes_a_session_read_back_from_storage():
  from adk_nb import Runner
  from adk_nb.events import Event
  from adk_nb.sessions import InMemorySessionService

  log = []
  model = ScriptedModel([[call("open_a"), call("plain")], "done"])
  runner = vault_runner(model, log)
  await run_turn(runner, "open a")
  [item] = await pending(runner)
  # A new process: the events as JSON (requested_auth_configs read back as plain dicts), a new Runner.
  service = InMemorySessionService()
  session = await service.create_session(app_name="app", user_id="user", session_id="session")
  for event in (await session_of(runner)).events:
    await service.append_event(session, Event.model_validate(json.loads(event.model_dump_json(by_alias=True))))
  again = Runner(app_name="app", agent=runner.agent, session_service=service)
  log.clear()
  events = await answer(again, [credential_answer(item, "K-3")])
  assert log == [("open_a", "K-3")]
  assert last_text(events) == "done"


async def test_a_credential_asked_inside_an_agent_tool_reaches_that_agent():
  from adk_nb.tools import AgentTool

  log = []
  inner = vault_runner(ScriptedModel([call("open_a"), "inner done"]), log).agent
  inner.description = "Opens the vault."
  outer = Agent(name="outer", model=ScriptedModel([call("vault", request="open a"), "outer done"]),
                tools=[AgentTool(inner)])
  runner = InMemoryRunner(outer, app_name="app")
  await run_turn(runner, "go")
  [item] = await pending(runner)
  assert item.tool == REQUEST_CREDENTIAL and item.nested
  log.clear()
  events = await answer(runner, [credential_answer(item, "K-4")])
  assert log == [("open_a", "K-4")]
  responses = [r.response for e in events for r in e.get_function_responses() if r.name == "vault"]
  assert responses == [{"result": "inner done"}]
  assert last_text(events) == "outer done"


async def test_the_round_trip_on_sqlite_across_runners(tmp_path):
  from adk_nb import Runner
  from adk_nb.sessions.sqlite_session_service import SqliteSessionService

  log = []
  path = tmp_path / "s.db"
  first = vault_runner(ScriptedModel([call("open_a"), "done"]), log)
  first = Runner(app_name="app", agent=first.agent, session_service=SqliteSessionService(str(path)))
  await run_turn(first, "open a")
  [item] = await pending(first)
  second = Runner(app_name="app", agent=first.agent, session_service=SqliteSessionService(str(path)))
  log.clear()
  events = await answer(second, [credential_answer(item, "K-5")])
  assert log == [("open_a", "K-5")] and last_text(events) == "done"
  # The credential was kept for the invocation only: nothing stored holds it except the client's own answer.
  stored = [e for e in (await session_of(second)).events if e.author != "user"]
  assert "K-5" not in json.dumps([e.actions.model_dump(mode="json") for e in stored])
  assert not any("svc_key" in k for k in (await session_of(second)).state)


async def test_a_tool_that_rejects_the_credential_can_ask_again_and_runs_once_per_answer():
  runs = []
  config = AuthConfig(**KEY_CONFIG)

  def picky(tool_context) -> dict:
    """Needs a good key."""
    credential = tool_context.get_auth_response(config)
    runs.append(credential.api_key if credential else None)
    if credential is None or credential.api_key != "GOOD":
      tool_context.request_credential(config)
      return {"status": "pending"}
    return {"ok": True}

  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel([call("picky"), "done"]), tools=[picky]),
                          app_name="app")
  await run_turn(runner, "go")
  [first] = await pending(runner)
  await answer(runner, [credential_answer(first, "BAD")])
  [second] = await pending(runner)  # asked again, with a new request
  assert second.call_id != first.call_id and runs == [None, "BAD"]
  events = await answer(runner, [credential_answer(second, "GOOD")])
  assert runs == [None, "BAD", "GOOD"]
  assert last_text(events) == "done" and await pending(runner) == []


async def test_two_credentials_answered_one_at_a_time_the_model_continues_once_both_are_in():
  log = []
  other = dict(KEY_CONFIG, credential_key="other_key")

  def second_vault(tool_context) -> dict:
    """Needs the other key."""
    credential = tool_context.get_auth_response(AuthConfig(**other))
    log.append(("second_vault", credential.api_key if credential else None))
    if credential is None:
      tool_context.request_credential(AuthConfig(**other))
      return {"status": "pending"}
    return {"opened": "second", "with": credential.api_key}

  model = ScriptedModel([[call("open_a"), call("second_vault")], "both open"])
  runner = vault_runner(model, log)
  runner.agent.tools.append(second_vault)
  await run_turn(runner, "open both")
  items = await pending(runner)
  assert sorted(i.args["authConfig"]["credentialKey"] for i in items) == ["other_key", "svc_key"]
  by_key = {i.args["authConfig"]["credentialKey"]: i for i in items}
  log.clear()
  events = await answer(runner, [credential_answer(by_key["svc_key"], "K-A")])
  assert log == [("open_a", "K-A")] and len(model.requests) == 1  # still waiting for the other key
  assert [i.call_id for i in await pending(runner)] == [by_key["other_key"].call_id]
  events = await answer(runner, [credential_answer(by_key["other_key"], "K-B")])
  assert log == [("open_a", "K-A"), ("second_vault", "K-B")]
  assert last_text(events) == "both open"
  # The model reads one answer per call, the real ones, in one turn.
  last = model.requests[-1].contents[-1]
  assert last.role == "user" and [p.function_response.response for p in last.parts] == [
      {"opened": "open_a", "with": "K-A"}, {"opened": "second", "with": "K-B"}]


async def test_an_answer_without_an_id_finds_the_one_credential_request_waiting():
  runs = []
  config = AuthConfig(**KEY_CONFIG)

  def picky(tool_context) -> dict:
    """Needs a good key."""
    credential = tool_context.get_auth_response(config)
    runs.append(credential.api_key if credential else None)
    if credential is None or credential.api_key != "GOOD":
      tool_context.request_credential(config)
      return {"status": "pending"}
    return {"ok": True}

  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel([call("picky"), "done"]), tools=[picky]),
                          app_name="app")
  await run_turn(runner, "go")
  for key in ("BAD", "GOOD"):  # the second time, the first request (answered) must not make it ambiguous
    [item] = await pending(runner)
    part = credential_answer(item, key)
    part.function_response.id = None
    await answer(runner, [part])
  assert runs == [None, "BAD", "GOOD"]


async def test_google_adks_generate_auth_event_builds_the_same_request():
  from adk_nb.events import Event
  from adk_nb.events.event_actions import EventActions
  from adk_nb.flows.llm_flows import functions

  runner = vault_runner(ScriptedModel(["hi"]), [])
  await run_turn(runner, "hi")
  ctx = type("Ctx", (), {"invocation_id": "inv", "branch": None, "agent": runner.agent})()
  response = Event(author="vault", content=types.Content(role="user", parts=[types.Part(
      function_response=types.FunctionResponse(id="c1", name="open_a", response={"status": "pending"}))]),
      actions=EventActions(requested_auth_configs={"c1": AuthConfig(**KEY_CONFIG), "c2": AuthConfig(**KEY_CONFIG)}))
  event = functions.generate_auth_event(ctx, response)
  [request] = event.get_function_calls()  # one per credential_key
  assert request.name == REQUEST_CREDENTIAL and event.long_running_tool_ids == {request.id}
  assert request.args["functionCallId"] == "c1" and event.author == "vault" and event.content.role == "user"
  assert functions.generate_auth_event(ctx, Event(author="vault")) is None
  built = functions.build_auth_request_event(ctx, {"c3": AuthConfig(**KEY_CONFIG)}, author="x", role="model")
  assert built.author == "x" and built.get_function_calls()[0].args["functionCallId"] == "c3"
