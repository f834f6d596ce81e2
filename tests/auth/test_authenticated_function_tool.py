"""AuthenticatedFunctionTool and fastapi's OpenAPI security models (Google's oauth2_client_credentials,
workflows/auth_api_key and workflows/auth_oauth samples build their schemes with them)."""

import asyncio
import json
import sys
from urllib.parse import parse_qs

import pytest
from google.genai import types

from adk_nb import Agent, InMemoryRunner
from adk_nb.auth import AuthConfig, AuthCredential, AuthCredentialTypes, OAuth2Auth
from adk_nb.auth.credential_service.in_memory_credential_service import InMemoryCredentialService
from adk_nb.testing import ScriptedModel, call, run_turn
from adk_nb.tools.authenticated_function_tool import PENDING_ANSWER, AuthenticatedFunctionTool
from tests.support import last_text


def weather(city: str, credential=None) -> dict:
  """The weather in a city."""
  return {"city": city, "token": credential.oauth2.access_token if credential else None}


async def _token_server(grants: list):
  """A loopback OAuth2 token endpoint: answers each client-credentials grant with a new token."""
  async def handle(reader, writer):
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    form = {k: v[0] for k, v in parse_qs((await reader.readexactly(length)).decode()).items()}
    grants.append(form)
    body = json.dumps({"access_token": f"token-{len(grants)}", "token_type": "bearer", "expires_in": 3600}).encode()
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                 b"Connection: close\r\n\r\n%s" % (len(body), body))
    await writer.drain()
    writer.close()

  server = await asyncio.start_server(handle, "127.0.0.1", 0)
  return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/token"


def client_credentials_config(token_url, scheme_kind="dict"):
  flow = {"tokenUrl": token_url, "scopes": {"read": "Read weather"}}
  if scheme_kind == "fastapi":
    from fastapi.openapi.models import OAuth2, OAuthFlowClientCredentials, OAuthFlows

    scheme = OAuth2(flows=OAuthFlows(clientCredentials=OAuthFlowClientCredentials(**flow)))
  else:
    scheme = {"type": "oauth2", "flows": {"clientCredentials": flow}}
  return AuthConfig(auth_scheme=scheme, credential_key="weather_api_client",
                    raw_auth_credential=AuthCredential(auth_type=AuthCredentialTypes.OAUTH2,
                                                       oauth2=OAuth2Auth(client_id="c1", client_secret="s1")))


async def _run_client_credentials(scheme_kind):
  grants = []
  server, token_url = await _token_server(grants)
  async with server:
    tool = AuthenticatedFunctionTool(func=weather, auth_config=client_credentials_config(token_url, scheme_kind))
    assert "credential" not in json.dumps(tool._get_declaration().parameters_json_schema)
    model = ScriptedModel([call("weather", city="Oslo"), "ok", call("weather", city="Rome"), "ok"])
    runner = InMemoryRunner(Agent(name="a", model=model, tools=[tool]), app_name="app")
    runner.credential_service = InMemoryCredentialService()
    first = await run_turn(runner, "weather in Oslo")
    second = await run_turn(runner, "and Rome")
  answers = [e.get_function_responses()[0].response for e in first + second if e.get_function_responses()]
  assert answers == [{"city": "Oslo", "token": "token-1"}, {"city": "Rome", "token": "token-1"}]
  # One grant (the token is kept in the credential service), with the client's id, secret and scopes.
  assert grants == [{"grant_type": "client_credentials", "client_id": "c1", "client_secret": "s1", "scope": "read"}]


async def test_a_client_credentials_scheme_gets_a_token_once_and_the_function_receives_it():
  await _run_client_credentials("dict")


async def test_fastapis_openapi_models_are_accepted_as_the_scheme():
  pytest.importorskip("fastapi", reason="fastapi is not installed here (adk_nb does not depend on it); "
                                        "Google's samples that build schemes with it need it")
  await _run_client_credentials("fastapi")


async def test_without_a_usable_credential_the_tool_asks_the_client_and_runs_once_answered():
  ran = []

  def secret_data(credential=None) -> str:
    """Reads protected data."""
    ran.append(credential.oauth2.access_token)
    return "data"

  config = AuthConfig(auth_scheme={"type": "oauth2", "flows": {"authorizationCode": {
      "authorizationUrl": "https://example.invalid/auth", "tokenUrl": "https://example.invalid/token"}}},
      raw_auth_credential=AuthCredential(auth_type=AuthCredentialTypes.OAUTH2,
                                         oauth2=OAuth2Auth(client_id="c1", client_secret="s1")))
  tool = AuthenticatedFunctionTool(func=secret_data, auth_config=config)
  model = ScriptedModel([call("secret_data"), "Here it is."])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[tool]), app_name="app")
  events = await run_turn(runner, "read it")
  assert ran == []
  [answer] = [e.get_function_responses()[0].response for e in events if e.get_function_responses()]
  assert answer == {"result": PENDING_ANSWER}  # a plain string answer, as google-adk's (whose words differ)
  assert PENDING_ANSWER != "Pending User Authorization."
  [request] = [c for e in events for c in e.get_function_calls() if c.name == "adk_request_credential"]
  assert "s1" not in json.dumps(request.args)  # the client secret never goes to the client
  response = dict(request.args["authConfig"])
  response["exchangedAuthCredential"] = {"authType": "oauth2", "oauth2": {"clientId": "c1", "accessToken": "T-1"}}
  events = await run_turn(runner, [types.Part(function_response=types.FunctionResponse(
      id=request.id, name="adk_request_credential", response=response))])
  assert ran == ["T-1"]
  assert last_text(events) == "Here it is."


def test_adk_nb_does_not_import_fastapi():
  import subprocess

  probe = ("import sys, adk_nb.auth.auth_tool, adk_nb.auth.auth_handler, adk_nb.tools.authenticated_function_tool;"
           "print('fastapi' in sys.modules)")
  assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip() == "False"
