"""`adk-nb api_server` in a real process on 127.0.0.1, driven over HTTP with google-adk's documented bodies."""

import json

from tests.cli.conftest import write_agent

WEATHER = '''
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call

def get_weather(city: str) -> dict:
  """Weather for a city."""
  return {"city": city, "temp_c": 21}

def script(request):
  part = request.contents[-1].parts[-1]
  if part.function_response:
    return f"It is {part.function_response.response['temp_c']} degrees in {part.function_response.response['city']}."
  return call("get_weather", city="Paris")

root_agent = Agent(name="weather", description="Weather answers.", model=ScriptedModel(script), tools=[get_weather])
'''


def sse_events(response) -> list[dict]:
  """The JSON payloads of a text/event-stream response's `data:` lines."""
  assert response.headers["content-type"].startswith("text/event-stream")
  return [json.loads(line[len("data:"):]) for line in response.text.splitlines() if line.startswith("data:")]


def message(text: str) -> dict:
  return {"role": "user", "parts": [{"text": text}]}


def test_meta_and_session_crud(tmp_path, start_server):
  write_agent(tmp_path / "apps", "weather_app", WEATHER)
  write_agent(tmp_path / "apps", "other_app", WEATHER)
  server = start_server(str(tmp_path / "apps"), "--session_service_uri", "memory://")
  c = server.client
  assert c.get("/health").json() == {"status": "ok"}
  assert c.get("/version").json()["language"] == "python"
  assert c.get("/list-apps").json() == ["other_app", "weather_app"]
  assert c.get("/list-apps?detailed=true").json()["apps"][1] == {
      "name": "weather_app", "rootAgentName": "weather", "description": "Weather answers.", "language": "python"}

  base = "/apps/weather_app/users/u1/sessions"
  created = c.post(base, json={"sessionId": "s1", "state": {"k": 1}})
  assert created.status_code == 200 and created.json()["appName"] == "weather_app"
  assert created.json()["userId"] == "u1" and created.json()["state"] == {"k": 1}
  assert c.post(base, json={"sessionId": "s1"}).status_code == 409
  generated = c.post(base).json()["id"]
  assert c.post(f"{base}/s2", json={"x": "y"}).json()["state"] == {"x": "y"}
  assert sorted(s["id"] for s in c.get(base).json()) == sorted(["s1", "s2", generated])
  patched = c.patch(f"{base}/s1", json={"stateDelta": {"k": 2, "user:pref": "metric"}})
  assert patched.json()["state"] == {"k": 2, "user:pref": "metric"}
  assert c.get(f"{base}/s1").json()["state"]["k"] == 2
  assert c.delete(f"{base}/s2").status_code == 200
  missing = c.get(f"{base}/s2")
  assert missing.status_code == 404 and missing.json()["error_code"] == "SESSION_NOT_FOUND"
  unknown = c.get("/apps/nope/users/u1/sessions")
  assert unknown.status_code == 404 and "serves: other_app, weather_app" in unknown.json()["detail"]


def test_run_and_run_sse_answer_adk_events_in_camel_case(tmp_path, start_server):
  folder = write_agent(tmp_path, "weather_app", WEATHER)
  server = start_server(str(folder), "--session_service_uri", f"sqlite:///{tmp_path / 's.db'}")
  c = server.client
  c.post("/apps/weather_app/users/u1/sessions", json={"sessionId": "s1"})
  events = c.post("/run", json={"appName": "weather_app", "userId": "u1", "sessionId": "s1",
                               "newMessage": message("weather?")}).json()
  assert [e["author"] for e in events] == ["weather", "weather", "weather"]
  assert events[0]["content"]["parts"][0]["functionCall"]["name"] == "get_weather"
  assert events[1]["content"]["parts"][0]["functionResponse"]["response"] == {"city": "Paris", "temp_c": 21}
  assert events[2]["content"]["parts"][0]["text"] == "It is 21 degrees in Paris."
  assert {"invocationId", "author", "id", "timestamp"} <= set(events[0])

  streamed = c.post("/run_sse", json={"app_name": "weather_app", "user_id": "u1", "session_id": "s1",
                                      "new_message": message("again"), "streaming": True})
  assert streamed.status_code == 200
  payloads = sse_events(streamed)
  assert payloads[-1]["content"]["parts"][0]["text"] == "It is 21 degrees in Paris."
  session = c.get("/apps/weather_app/users/u1/sessions/s1").json()
  assert [e["author"] for e in session["events"]].count("user") == 2 and len(session["events"]) == 8


def test_a_confirmation_is_answered_through_run_and_the_tool_runs_once(desk, start_server, tmp_path):
  folder, log = desk
  server = start_server(str(folder), "--session_service_uri", "memory://", env={"REFUND_LOG": str(log)})
  c = server.client
  c.post("/apps/desk_agent/users/u/sessions", json={"sessionId": "s"})
  body = {"appName": "desk_agent", "userId": "u", "sessionId": "s"}
  paused = c.post("/run", json={**body, "newMessage": message("refund please")}).json()
  request = next(p["functionCall"] for e in paused for p in e["content"]["parts"]
                 if p.get("functionCall", {}).get("name") == "adk_request_confirmation")
  assert request["args"]["originalFunctionCall"]["name"] == "refund" and log.read_text() == ""
  answer = {"role": "user", "parts": [{"functionResponse": {
      "id": request["id"], "name": "adk_request_confirmation", "response": {"confirmed": True}}}]}
  resumed = c.post("/run", json={**body, "newMessage": answer})
  assert resumed.status_code == 200, resumed.text
  assert resumed.json()[-1]["content"]["parts"][0]["text"] == "Refund done."
  again = c.post("/run", json={**body, "newMessage": answer})
  assert again.status_code == 409 and again.json()["error_code"] == "CALL_ALREADY_ANSWERED"
  assert log.read_text() == "B200\n"


def test_bad_input_gets_the_right_status_and_a_message(tmp_path, start_server):
  folder = write_agent(tmp_path, "weather_app", WEATHER)
  server = start_server(str(folder), "--session_service_uri", "memory://", "--max_body_bytes", "2000")
  c = server.client
  c.post("/apps/weather_app/users/u/sessions", json={"sessionId": "s"})
  malformed = c.post("/run", content=b"{not json", headers={"content-type": "application/json"})
  assert malformed.status_code == 400 and "Malformed JSON" in malformed.json()["detail"]
  invalid = c.post("/run", json={"appName": "weather_app", "sessionId": "s"})
  assert invalid.status_code == 422 and "userId" in invalid.json()["detail"]
  big = c.post("/run", json={"appName": "weather_app", "userId": "u", "sessionId": "s",
                             "newMessage": message("x" * 5000)})
  assert big.status_code == 413 and "--max_body_bytes" in big.json()["detail"]
  no_session = c.post("/run_sse", json={"appName": "weather_app", "userId": "u", "sessionId": "nope",
                                        "newMessage": message("hi")})
  assert no_session.status_code == 404 and "POST /apps/weather_app/users/u/sessions" in no_session.json()["detail"]
  no_session_run = c.post("/run", json={"appName": "weather_app", "userId": "u", "sessionId": "nope",
                                        "newMessage": message("hi")})
  assert no_session_run.status_code == 404 and no_session_run.json()["error_code"] == "SESSION_NOT_FOUND"
  no_app = c.post("/run", json={"appName": "nope", "userId": "u", "sessionId": "s", "newMessage": message("hi")})
  assert no_app.status_code == 404 and no_app.json()["error_code"] == "APP_NOT_FOUND"
  assert c.get("/apps/weather_app/users/u/sessions/s").json()["events"] == []  # nothing half-written


def test_artifacts_save_load_list_and_refuse_traversal(tmp_path, start_server):
  folder = write_agent(tmp_path, "weather_app", WEATHER)
  store = tmp_path / "artifacts"
  server = start_server(str(folder), "--session_service_uri", "memory://", "--artifact_service_uri", f"file://{store}")
  c = server.client
  c.post("/apps/weather_app/users/u/sessions", json={"sessionId": "s"})
  a = "/apps/weather_app/users/u/sessions/s/artifacts"
  for text in ("one", "two"):
    saved = c.post(a, json={"filename": "notes.txt", "artifact": {"text": text}})
    assert saved.status_code == 200, saved.text
  assert c.get(a).json() == ["notes.txt"]
  assert c.get(f"{a}/notes.txt").json() == {"text": "two"}
  assert c.get(f"{a}/notes.txt/versions").json() == [0, 1]
  assert c.get(f"{a}/notes.txt/versions/0").json() == {"text": "one"}
  assert c.get(f"{a}/notes.txt/versions/latest").json() == {"text": "two"}
  metadata = c.get(f"{a}/notes.txt/versions/metadata").json()
  assert [m["version"] for m in metadata] == [0, 1] and metadata[0]["mimeType"] == "text/plain"
  assert c.get(f"{a}/notes.txt/versions/1/metadata").json()["version"] == 1
  assert c.get(f"{a}/notes.txt/versions/latest/metadata").json()["version"] == 1
  assert c.get(f"{a}/notes.txt/versions/7/metadata").status_code == 404
  assert c.get(f"{a}/missing.txt").status_code == 404
  bad = c.post(a, json={"filename": "../../escape.txt", "artifact": {"text": "x"}})
  assert bad.status_code == 400 and bad.json()["error_code"] == "UNSAFE_ARTIFACT_PATH"
  assert c.get(f"{a}/..%2F..%2Fescape.txt").status_code == 400
  assert not (tmp_path / "escape.txt").exists()
  assert c.delete(f"{a}/notes.txt").status_code == 200 and c.get(a).json() == []


def test_run_sse_streams_partials_when_asked(tmp_path, start_server):
  source = ("from adk_nb import Agent\nfrom adk_nb.models import ScriptedModel\n"
            "root_agent = Agent(name='chatty', model=ScriptedModel(lambda r: 'Hello there, streaming world.', "
            "chunk_size=6))\n")
  folder = write_agent(tmp_path, "chatty_app", source)
  server = start_server(str(folder), "--session_service_uri", "memory://")
  c = server.client
  c.post("/apps/chatty_app/users/u/sessions", json={"sessionId": "s"})
  body = {"appName": "chatty_app", "userId": "u", "sessionId": "s", "newMessage": message("hi")}
  streamed = sse_events(c.post("/run_sse", json={**body, "streaming": True}))
  partials = [e["content"]["parts"][0]["text"] for e in streamed if e.get("partial")]
  assert len(partials) > 1 and "".join(partials) == "Hello there, streaming world."
  assert not streamed[-1].get("partial") and streamed[-1]["content"]["parts"][0]["text"] == "Hello there, streaming world."
  whole = sse_events(c.post("/run_sse", json={**body, "streaming": False}))
  assert [e.get("partial") for e in whole] == [None]
  stored = c.get("/apps/chatty_app/users/u/sessions/s").json()["events"]
  assert [e["author"] for e in stored] == ["user", "chatty", "user", "chatty"]  # partials are never stored


SLOW_TOOL = '''
import asyncio, os, pathlib
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call

async def slow_report(topic: str) -> dict:
  """Writes a report once the test lets it go on."""
  go = pathlib.Path(os.environ["GO_FILE"])
  if os.environ.get("STARTED_DIR"):  # tells a test which runs reached the tool
    (pathlib.Path(os.environ["STARTED_DIR"]) / os.urandom(4).hex()).write_text("")
  while not go.exists():  # the agent waits for the test's signal (a file), not the test for a timer
    await asyncio.sleep(0.01)
  pathlib.Path(os.environ["DONE_FILE"]).write_text(topic)
  return {"written": topic}

def script(request):
  part = request.contents[-1].parts[-1]
  if part.function_response:
    return "Report written."
  return call("slow_report", topic="q3")

root_agent = Agent(name="writer", model=ScriptedModel(script), tools=[slow_report])
'''


def test_a_client_that_disconnects_mid_stream_does_not_cancel_the_run(tmp_path, start_server):
  folder = write_agent(tmp_path, "writer_app", SLOW_TOOL)
  db = tmp_path / "s.db"
  go, done = tmp_path / "go", tmp_path / "done"
  server = start_server(str(folder), "--session_service_uri", f"sqlite:///{db}",
                        env={"GO_FILE": str(go), "DONE_FILE": str(done)})
  c = server.client
  c.post("/apps/writer_app/users/u/sessions", json={"sessionId": "s"})
  body = {"appName": "writer_app", "userId": "u", "sessionId": "s", "newMessage": message("write it")}
  with c.stream("POST", "/run_sse", json=body) as response:
    first = next(line for line in response.iter_lines() if line.startswith("data:"))
  assert json.loads(first[5:])["content"]["parts"][0]["functionCall"]["name"] == "slow_report"
  go.write_text("")  # the client is gone; now let the tool finish
  server.stop()  # a graceful stop waits for runs still going
  assert done.read_text() == "q3"

  import asyncio

  from adk_nb.sessions import DatabaseSessionService

  async def stored():
    service = DatabaseSessionService(f"sqlite:///{db}")
    session = await service.get_session(app_name="writer_app", user_id="u", session_id="s")
    await service.close()
    return [(e.author, e.content.parts[0].text) for e in session.events if e.content and e.content.parts[0].text]

  assert asyncio.run(stored())[-1] == ("writer", "Report written.")


def test_run_live_is_refused_with_a_reason_not_a_404(tmp_path, start_server):
  from websockets.exceptions import ConnectionClosed, InvalidStatus
  from websockets.sync.client import connect

  write_agent(tmp_path / "apps", "weather_app", WEATHER)
  server = start_server(str(tmp_path / "apps"), "--session_service_uri", "memory://")
  server.client.post("/apps/weather_app/users/u/sessions", json={"sessionId": "s"})
  ws = server.url.replace("http://", "ws://") + "/run_live"

  def close_of(query: str) -> tuple[int, str]:
    with connect(f"{ws}?{query}") as socket:
      try:
        socket.recv(timeout=30)
      except ConnectionClosed as closed:
        return closed.rcvd.code, closed.rcvd.reason
    raise AssertionError("the server sent a message instead of closing")

  code, reason = close_of("app_name=weather_app&user_id=u&session_id=s&modalities=TEXT")
  assert code == 1011 and "does not support live (bidi-streaming) models; use /run_sse" in reason
  assert close_of("app_name=weather_app&user_id=u&session_id=nope") == (1002, "Session not found")
  assert close_of("app_name=nope&user_id=u&session_id=s")[0] == 1008
  try:
    close_of("user_id=u&session_id=s")
    raise AssertionError("a request without app_name was accepted")
  except InvalidStatus as refused:  # refused during the handshake, as google-adk does
    assert refused.response.status_code == 403
  plain = server.client.get("/run_live")
  assert plain.status_code == 501 and plain.json()["error_code"] == "LIVE_NOT_SUPPORTED"
  assert server.client.get("/apps/weather_app/users/u/sessions/s").json()["events"] == []
