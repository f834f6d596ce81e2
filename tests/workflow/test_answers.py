"""A person's answer to a RequestInput, as google-adk 2.x hands it to the node: a lone {"result": v} is v, an
answer is checked (and coerced) against the request's response_schema before anything is committed, and the
session's events can be read back per node run (`workflow.utils._rehydration_utils`)."""

import pytest
from google.genai import types

from adk_nb import InMemoryRunner, Workflow
from adk_nb.errors import AnswerDoesNotFitError
from adk_nb.events import RequestInput
from adk_nb.testing import run_turn
from adk_nb.workflow.utils._rehydration_utils import _reconstruct_node_states


def answer(call_id, response):
  return types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
      id=call_id, name="adk_request_input", response=response))])


def asking_workflow(schema=None):
  def ask(node_input):
    return RequestInput(interrupt_id="q1", message="How many?", response_schema=schema)

  def use(node_input):
    return {"got": node_input}

  return Workflow(name="wf", edges=[("START", ask, use)])


async def test_a_wrapped_answer_reaches_the_next_node_unwrapped():
  runner = InMemoryRunner(asking_workflow(), app_name="app")
  await run_turn(runner, "go")
  events = await run_turn(runner, answer("q1", {"result": "hello world"}))
  assert [e.output for e in events if e.output is not None][-1] == {"got": "hello world"}


async def test_an_answer_is_coerced_to_the_requests_schema():
  runner = InMemoryRunner(asking_workflow(int), app_name="app")
  await run_turn(runner, "go")
  events = await run_turn(runner, answer("q1", {"result": "42"}))
  assert [e.output for e in events if e.output is not None][-1] == {"got": 42}


async def test_an_answer_that_does_not_fit_is_refused_before_it_is_committed_and_the_request_stays_open():
  runner = InMemoryRunner(asking_workflow(int), app_name="app")
  await run_turn(runner, "go")
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  before = len(session.events)
  # google-adk's wording leads (clients match it), then ours with the fix.
  with pytest.raises(AnswerDoesNotFitError, match="^Validation failed for interrupt q1: .*'q1' does not fit its "
                                                  "response_schema .*nothing was changed"):
    await run_turn(runner, answer("q1", {"result": "many"}))
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert len(session.events) == before
  events = await run_turn(runner, answer("q1", {"result": 3}))
  assert [e.output for e in events if e.output is not None][-1] == {"got": 3}


async def test_the_reader_finds_each_node_runs_output_request_and_answer_in_adk_nb_events():
  runner = InMemoryRunner(asking_workflow(int), app_name="app")
  first = await run_turn(runner, "go")
  await run_turn(runner, answer("q1", {"result": "7"}))
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  states = _reconstruct_node_states(session.events, "wf@1", first[-1].invocation_id, group_by_direct_child=True)
  assert sorted(states) == ["ask@1", "use@1"]
  assert (states["ask@1"].interrupt_ids, states["ask@1"].resolved_responses) == ({"q1"}, {"q1": 7})
  assert (states["use@1"].output, states["use@1"].error_code) == ({"got": 7}, None)


def test_an_auth_request_event_asks_for_the_credential_without_its_secret():
  from adk_nb.auth.auth_credential import AuthCredential, AuthCredentialTypes
  from adk_nb.auth.auth_tool import AuthConfig
  from adk_nb.workflow.utils._workflow_hitl_utils import create_auth_request_event

  config = AuthConfig(auth_scheme={"type": "apiKey", "in": "header", "name": "X-Api-Key"}, credential_key="c",
                      raw_auth_credential=AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="secret"))
  event = create_auth_request_event(config, "auth-1")
  [call] = event.get_function_calls()
  assert (call.name, call.id, event.long_running_tool_ids) == ("adk_request_credential", "auth-1", {"auth-1"})
  assert call.args["functionCallId"] == "auth-1" and call.args["authConfig"]["credentialKey"] == "c"
  assert "X-Api-Key" in call.args["message"]  # google-adk's field; the sentence is adk_nb's own
  assert call.args["message"] != "Please provide your API key for X-Api-Key."
  assert "secret" not in str(call.args)
