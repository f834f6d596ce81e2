"""Credentials at google-adk's paths: a tool saves one through its context and a later call finds it."""

import pytest

from adk_nb import Agent, InMemoryRunner
from adk_nb.auth import AuthConfig, AuthCredential, AuthCredentialTypes, OAuth2Auth
from adk_nb.auth.auth_credential import HttpAuth, HttpCredentials
from adk_nb.auth.credential_service.in_memory_credential_service import InMemoryCredentialService
from adk_nb.auth.credential_service.session_state_credential_service import SessionStateCredentialService
from adk_nb.testing import ScriptedModel, call, run_turn

SCHEME = {"type": "http", "scheme": "bearer"}


def _config(token=None):
  exchanged = None if token is None else AuthCredential(
      auth_type=AuthCredentialTypes.HTTP, http=HttpAuth(scheme="bearer", credentials=HttpCredentials(token=token)))
  return AuthConfig(auth_scheme=SCHEME, exchanged_auth_credential=exchanged)


def _runner(service):
  seen = []

  async def remember(token: str, tool_context) -> str:
    """Keeps a token."""
    await tool_context.save_credential(_config(token))
    return "kept"

  async def recall(tool_context) -> str:
    """Finds the token again."""
    found = await tool_context.load_credential(_config())
    seen.append(found.http.credentials.token if found else None)
    return "found" if found else "none"

  model = ScriptedModel([call("remember", token="s3cret"), "ok", call("recall"), "ok"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[remember, recall]), app_name="app")
  runner.credential_service = service
  return runner, seen


@pytest.mark.parametrize("service", [InMemoryCredentialService(), SessionStateCredentialService()])
async def test_a_saved_credential_is_found_by_a_later_call(service):
  runner, seen = _runner(service)
  await run_turn(runner, "remember")
  await run_turn(runner, "recall")
  assert seen == ["s3cret"]


async def test_without_a_credential_service_the_error_names_the_fix():
  runner, _ = _runner(None)
  with pytest.raises(ValueError, match="credential_service=InMemoryCredentialService"):
    await run_turn(runner, "remember")


def test_the_key_ignores_tokens_of_one_grant_and_secrets_stay_out_of_repr():
  client = OAuth2Auth(client_id="app", client_secret="hush")
  granted = client.model_copy(update={"access_token": "t0k3n", "state": "xyz"})
  key = AuthConfig(auth_scheme=SCHEME, raw_auth_credential=AuthCredential(auth_type="oauth2", oauth2=client))
  later = AuthConfig(auth_scheme=SCHEME, raw_auth_credential=AuthCredential(auth_type="oauth2", oauth2=granted))
  assert key.credential_key == later.credential_key
  assert AuthConfig(auth_scheme=SCHEME, credential_key="mine").credential_key == "mine"
  assert "hush" not in repr(client) and "t0k3n" not in repr(granted)
  assert AuthCredential.model_validate({"authType": "apiKey", "apiKey": "k"}).api_key == "k"
