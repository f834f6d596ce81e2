"""OpenAPIToolset against a real pet-store HTTP server on 127.0.0.1 (stdlib http.server, in a thread)."""

from __future__ import annotations

import json
import textwrap
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from adk_nb import Agent, InMemoryRunner
from adk_nb.testing import ScriptedModel, call, run_turn
from adk_nb.tools.openapi_tool import OpenAPIToolset, OpenApiSpecError
from adk_nb.tools.openapi_tool.auth.auth_helpers import token_to_scheme_credential

from .conftest import free_port

API_KEY = "s3cret"


class PetStore(BaseHTTPRequestHandler):
  """Pets in memory; every request is recorded; X-API-Key (or bearer, or ?api_key) required."""

  pets: dict[int, dict] = {}
  log: list[dict] = []

  def log_message(self, *args):  # keep the test output clean
    pass

  def _send(self, status, payload=None, text=None):
    body = (text if text is not None else json.dumps(payload)).encode() if (payload is not None or text) else b""
    self.send_response(status)
    self.send_header("Content-Type", "text/plain" if text is not None else "application/json")
    self.send_header("Content-Length", str(len(body)))
    self.end_headers()
    self.wfile.write(body)

  def _handle(self, method):
    url = urlsplit(self.path)
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    length = int(self.headers.get("Content-Length") or 0)
    body = json.loads(self.rfile.read(length)) if length else None
    self.log.append({"method": method, "path": url.path, "query": query, "body": body,
                     "headers": {k.lower(): v for k, v in self.headers.items()}})
    authorized = (self.headers.get("X-API-Key") == API_KEY or query.get("api_key") == API_KEY
                  or self.headers.get("Authorization") == f"Bearer {API_KEY}")
    if not authorized:
      return self._send(401, {"message": "missing or wrong API key"})
    parts = url.path.strip("/").split("/")[1:]  # after the /v1 base path
    if parts == ["pets"] and method == "GET":
      found = [p for p in self.pets.values() if query.get("status") in (None, p["status"])]
      return self._send(200, found[: int(query.get("limit", 100))])
    if parts == ["pets"] and method == "POST":
      if not isinstance(body, dict) or "name" not in body:
        return self._send(422, {"message": "name is required"})
      pet = {"id": len(self.pets) + 1, "status": "available", **body}
      self.pets[pet["id"]] = pet
      return self._send(201, pet)
    if len(parts) == 2 and parts[0] == "pets":
      pet = self.pets.get(int(parts[1])) if parts[1].isdigit() else None
      if pet is None:
        return self._send(404, {"message": f"pet {parts[1]} not found"})
      if method == "DELETE":
        del self.pets[pet["id"]]
        return self._send(204)
      return self._send(200, pet)
    if parts == ["notes"]:
      return self._send(200, text="n" * int(query.get("size", 10)))
    return self._send(404, {"message": "no such route"})

  def do_GET(self):
    self._handle("GET")

  def do_POST(self):
    self._handle("POST")

  def do_DELETE(self):
    self._handle("DELETE")


@pytest.fixture
def store():
  PetStore.pets = {1: {"id": 1, "name": "Rex", "status": "available"}, 2: {"id": 2, "name": "Tom", "status": "sold"}}
  PetStore.log = []
  server = ThreadingHTTPServer(("127.0.0.1", 0), PetStore)
  thread = threading.Thread(target=server.serve_forever, daemon=True)
  thread.start()
  try:
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", PetStore.log
  finally:
    server.shutdown()
    server.server_close()


def spec_yaml(base_url: str) -> str:
  return textwrap.dedent(f"""
      openapi: 3.0.3
      info: {{title: Pet store, version: "1"}}
      servers:
        - url: "{{scheme}}://{base_url.split('://', 1)[1]}"
          variables: {{scheme: {{default: http}}}}
      components:
        securitySchemes:
          key: {{type: apiKey, in: header, name: X-API-Key}}
        parameters:
          PetId:
            name: petId
            in: path
            required: true
            description: The pet's id
            schema: {{type: integer}}
        schemas:
          Status: {{type: string, enum: [available, pending, sold]}}
          NewPet:
            type: object
            required: [name]
            properties:
              name: {{type: string, description: What the pet is called}}
              tag: {{type: string}}
              status: {{$ref: "#/components/schemas/Status"}}
              owner:
                type: object
                properties:
                  email: {{type: string}}
          Pet:
            allOf:
              - {{$ref: "#/components/schemas/NewPet"}}
              - {{type: object, properties: {{id: {{type: integer}}}}}}
      paths:
        /pets:
          get:
            operationId: listPets
            summary: List pets, optionally by status.
            parameters:
              - {{name: limit, in: query, schema: {{type: integer}}}}
              - {{name: status, in: query, schema: {{$ref: "#/components/schemas/Status"}}}}
            responses:
              "200":
                description: pets
                content:
                  application/json:
                    schema: {{type: array, items: {{$ref: "#/components/schemas/Pet"}}}}
          post:
            operationId: createPet
            description: Adds a pet to the store.
            requestBody:
              required: true
              content:
                application/json:
                  schema: {{$ref: "#/components/schemas/NewPet"}}
            responses: {{"201": {{description: created}}}}
        /pets/{{petId}}:
          parameters:
            - $ref: "#/components/parameters/PetId"
          get:
            operationId: getPetById
            summary: One pet.
            responses: {{"200": {{description: the pet}}}}
          delete:
            summary: Removes a pet.
            parameters:
              - {{name: X-Request-Id, in: header, required: true, schema: {{type: string}}}}
            responses: {{"204": {{description: gone}}}}
        /notes:
          get:
            operationId: getNotes
            parameters:
              - {{name: size, in: query, schema: {{type: integer}}}}
            responses: {{"200": {{description: text}}}}
  """)


def keyed_toolset(base_url, **kwargs):
  scheme, credential = token_to_scheme_credential("apikey", "header", "X-API-Key", API_KEY)
  return OpenAPIToolset(spec_str=spec_yaml(base_url), spec_str_type="yaml",
                        auth_scheme=scheme, auth_credential=credential, **kwargs)


def answers(events):
  return [(r.name, r.response) for e in events for r in e.get_function_responses()]


async def test_an_adk_program_runs_unchanged_after_the_import_swap(store):
  base_url, log = store
  adk_program = textwrap.dedent("""
      from google.adk.agents import LlmAgent
      from google.adk.runners import InMemoryRunner
      from google.adk.tools.openapi_tool.openapi_spec_parser.openapi_toolset import OpenAPIToolset
      from google.adk.tools.openapi_tool.auth.auth_helpers import token_to_scheme_credential
      from google.genai import types

      scheme, credential = token_to_scheme_credential("apikey", "header", "X-API-Key", api_key)
      toolset = OpenAPIToolset(spec_str=spec, spec_str_type="yaml", auth_scheme=scheme, auth_credential=credential)
      agent = LlmAgent(name="pets", model=model, instruction="Help with pets.", tools=[toolset])

      async def main():
          runner = InMemoryRunner(agent=agent, app_name="pets")
          session = await runner.session_service.create_session(app_name="pets", user_id="u")
          message = types.Content(role="user", parts=[types.Part(text="What is pet 1 called?")])
          final = None
          async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message):
              if event.is_final_response():
                  final = event.content.parts[0].text
          await runner.close()
          return final
  """)
  model = ScriptedModel([call("get_pet_by_id", pet_id=1), "Rex"])
  scope = {"model": model, "spec": spec_yaml(base_url), "api_key": API_KEY}
  exec(compile(adk_program.replace("google.adk", "adk_nb"), "adk_program", "exec"), scope)
  assert await scope["main"]() == "Rex"
  assert model.requests[1].contents[-1].parts[0].function_response.response == {
      "id": 1, "name": "Rex", "status": "available"}
  assert (log[0]["method"], log[0]["path"], log[0]["headers"]["x-api-key"]) == ("GET", "/v1/pets/1", API_KEY)


async def test_each_operation_is_a_tool_with_parameters_from_path_query_header_and_body(store):
  base_url, _ = store
  toolset = keyed_toolset(base_url)
  model = ScriptedModel(["ok"])
  runner = InMemoryRunner(Agent(name="pets", model=model, tools=[toolset]), app_name="app")
  await run_turn(runner, "hi")
  decls = {d.name: d for t in model.requests[0].config.tools for d in t.function_declarations}
  assert sorted(decls) == ["create_pet", "get_notes", "get_pet_by_id", "list_pets", "pets_pet_id_delete"]
  assert decls["list_pets"].description == "List pets, optionally by status."
  assert decls["list_pets"].parameters_json_schema == {"type": "object", "properties": {
      "limit": {"type": "integer"}, "status": {"type": "string", "enum": ["available", "pending", "sold"]}}}
  assert decls["get_pet_by_id"].parameters_json_schema == {"type": "object", "properties": {
      "pet_id": {"type": "integer", "description": "The pet's id"}}, "required": ["pet_id"]}
  delete = decls["pets_pet_id_delete"].parameters_json_schema
  assert sorted(delete["properties"]) == ["pet_id", "x_request_id"] and sorted(delete["required"]) == ["pet_id", "x_request_id"]
  create = decls["create_pet"].parameters_json_schema
  assert create["required"] == ["name"]
  assert create["properties"]["status"] == {"type": "string", "enum": ["available", "pending", "sold"]}
  assert create["properties"]["owner"] == {"type": "object", "properties": {"email": {"type": "string"}}}
  assert create["properties"]["name"] == {"type": "string", "description": "What the pet is called"}


async def test_calls_send_the_right_request_and_http_errors_reach_the_model(store):
  base_url, log = store
  toolset = keyed_toolset(base_url, tool_name_prefix="shop")
  model = ScriptedModel([
      [call("shop_create_pet", name="Bo", status="pending", owner={"email": "a@b.c"}),
       call("shop_list_pets", status="sold", limit=5)],
      [call("shop_get_pet_by_id", pet_id=99), call("shop_create_pet", tag="no-name"),
       call("shop_pets_pet_id_delete", pet_id=2, x_request_id="r-1")],
      "done"])
  runner = InMemoryRunner(Agent(name="pets", model=model, tools=[toolset]), app_name="app")
  got = answers(await run_turn(runner, "go"))
  await runner.close()
  created, listed = dict(got[:2])["shop_create_pet"], dict(got[:2])["shop_list_pets"]
  assert created == {"id": 3, "status": "pending", "name": "Bo", "owner": {"email": "a@b.c"}}
  assert listed == {"result": [{"id": 2, "name": "Tom", "status": "sold"}]}
  post = next(r for r in log if r["method"] == "POST")
  assert post["path"] == "/v1/pets" and post["body"] == {"name": "Bo", "status": "pending", "owner": {"email": "a@b.c"}}
  get = next(r for r in log if r["path"] == "/v1/pets" and r["method"] == "GET")
  assert get["query"] == {"status": "sold", "limit": "5"}
  second = dict(got[2:])
  assert second["shop_get_pet_by_id"]["error"].startswith("`shop_get_pet_by_id` (GET /pets/{petId}) failed with HTTP 404")
  assert "pet 99 not found" in second["shop_get_pet_by_id"]["error"]
  # A missing required argument is answered without a request.
  assert "missing required argument(s) name for POST /pets" in second["shop_create_pet"]["error"]
  assert sum(1 for r in log if r["method"] == "POST") == 1
  assert second["shop_pets_pet_id_delete"] == {"status_code": 204}
  delete = next(r for r in log if r["method"] == "DELETE")
  assert delete["path"] == "/v1/pets/2" and delete["headers"]["x-request-id"] == "r-1"


@pytest.mark.parametrize("how", ["header", "query", "bearer", "wrong", "adk_objects"])
async def test_auth_schemes(store, how):
  base_url, log = store
  if how == "bearer":
    scheme, credential = token_to_scheme_credential("oauth2Token", "header", "Authorization", API_KEY)
  elif how == "adk_objects":  # google-adk's own scheme and credential shapes (fastapi model, AuthCredential)
    from types import SimpleNamespace

    scheme = {"type": "apiKey", "in": "header", "name": "X-API-Key"}
    credential = SimpleNamespace(auth_type="apiKey", api_key=API_KEY)
  else:
    scheme, credential = token_to_scheme_credential(
        "apikey", "query" if how == "query" else "header", "api_key" if how == "query" else "X-API-Key",
        "nope" if how == "wrong" else API_KEY)
  toolset = OpenAPIToolset(spec_str=spec_yaml(base_url), spec_str_type="yaml", auth_scheme=scheme,
                           auth_credential=credential)
  result = await toolset.get_tool("get_pet_by_id").run_async(args={"pet_id": 1}, tool_context=None)
  await toolset.close()
  if how == "wrong":
    assert "failed with HTTP 401" in result["error"] and "missing or wrong API key" in result["error"]
  else:
    assert result["name"] == "Rex"
  if how == "query":
    assert log[0]["query"] == {"api_key": API_KEY}
  if how == "bearer":
    assert log[0]["headers"]["authorization"] == f"Bearer {API_KEY}"


async def test_long_bodies_are_cut_and_an_unreachable_server_is_an_error_response(store):
  base_url, _ = store
  toolset = keyed_toolset(base_url, max_result_chars=20)
  notes = await toolset.get_tool("get_notes").run_async(args={"size": 50}, tool_context=None)
  assert notes["text"] == "n" * 20 + "...[truncated: 30 of 50 characters left out; raise max_result_chars on the toolset to pass more]"
  dead = keyed_toolset(f"http://127.0.0.1:{free_port()}/v1")
  result = await dead.get_tool("list_pets").run_async(args={}, tool_context=None)
  await toolset.close()
  await dead.close()
  assert result["error"].startswith("`list_pets` (GET /pets) could not reach http://127.0.0.1:")


async def test_json_spec_and_filters():
  spec = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "servers": [{"url": "https://api.example.com"}],
          "paths": {"/a": {"get": {"operationId": "getA", "responses": {}}},
                    "/b": {"post": {"operationId": "HTTPPostB", "requestBody": {"content": {"application/json": {
                        "schema": {"type": "array", "items": {"type": "string"}}}}}, "responses": {}}}}}
  by_dict = OpenAPIToolset(spec_dict=spec, tool_filter=lambda tool, ctx: tool.name != "get_a")
  assert [t.name for t in await by_dict.get_tools()] == ["http_post_b"]
  by_str = OpenAPIToolset(spec_str=json.dumps(spec), tool_filter=["get_a"])
  assert [t.name for t in await by_str.get_tools()] == ["get_a"]
  whole_body = by_dict.get_tool("http_post_b")
  assert whole_body._get_declaration().parameters_json_schema == {
      "type": "object", "properties": {"body": {"type": "array", "items": {"type": "string"}}}}
  assert whole_body.build_request({"body": ["x"]})["json"] == ["x"]


@pytest.mark.parametrize("spec, message", [
    ("openapi: [3", "The OpenAPI spec is not valid YAML"),
    ("swagger: '2.0'\npaths: {}", "Only OpenAPI 3.x specs are supported; this one has swagger '2.0'"),
    ("openapi: 3.0.0", "has no 'paths' mapping"),
    ("openapi: 3.0.0\nservers: [{url: /api}]\npaths: {}", r"server URL '/api' is not an absolute http\(s\) URL"),
    ("openapi: 3.0.0\nservers: [{url: 'http://x'}]\npaths:\n  /p/{id}:\n    get: {responses: {}}",
     r"operation GET /p/{id}: path parameter {id} is not declared"),
    ("openapi: 3.0.0\nservers: [{url: 'http://x'}]\npaths:\n  /p:\n    get:\n      parameters: [{name: q}]",
     "operation GET /p: parameter #1 needs a 'name' and an 'in'"),
    ("openapi: 3.0.0\nservers: [{url: 'http://x'}]\npaths:\n  /p:\n    get: {operationId: same}\n"
     "  /q:\n    get: {operationId: same}", "operations GET /p and GET /q both become tool 'same'"),
    ("openapi: 3.0.0\nservers: [{url: 'http://x'}]\npaths:\n  /p:\n    post:\n      requestBody:\n"
     "        content: {application/json: {schema: {$ref: '#/components/schemas/Missing'}}}",
     r"operation POST /p: \$ref '#/components/schemas/Missing' names nothing"),
    ("openapi: 3.0.0\nservers: [{url: 'http://x'}]\npaths:\n  /p:\n    post:\n      requestBody:\n"
     "        content: {application/xml: {schema: {type: string}}}", "operation POST /p: only JSON request bodies"),
])
def test_malformed_specs_are_clear_errors(spec, message):
  with pytest.raises(OpenApiSpecError, match=message):
    OpenAPIToolset(spec_str=spec, spec_str_type="yaml")


def test_auth_helper_rejects_bad_input():
  with pytest.raises(ValueError, match="An API key goes in 'header', 'query' or 'cookie'"):
    token_to_scheme_credential("apikey", "body", "k", "v")
  with pytest.raises(ValueError, match="token_type must be 'apikey' or 'oauth2Token'"):
    token_to_scheme_credential("basic", "header", "k", "v")
