"""Two `adk-nb api_server` replicas on one PostgreSQL: a pause made on one is answered through the other."""

from tests.server.test_api_server import message


def test_a_pause_on_replica_a_is_approved_through_replica_b_and_the_tool_runs_once(desk, start_server, pg_url):
  folder, log = desk
  args = (str(folder), "--session_service_uri", pg_url)
  a = start_server(*args, env={"REFUND_LOG": str(log)})
  b = start_server(*args, env={"REFUND_LOG": str(log)})
  assert a.url != b.url
  a.client.post("/apps/desk_agent/users/u/sessions", json={"sessionId": "s"})
  body = {"appName": "desk_agent", "userId": "u", "sessionId": "s"}
  paused = a.client.post("/run", json={**body, "newMessage": message("refund please")}).json()
  call_id = next(p["functionCall"]["id"] for e in paused for p in e["content"]["parts"]
                 if p.get("functionCall", {}).get("name") == "adk_request_confirmation")
  answer = {"role": "user", "parts": [{"functionResponse": {
      "id": call_id, "name": "adk_request_confirmation", "response": {"confirmed": True}}}]}

  resumed = b.client.post("/run", json={**body, "newMessage": answer})
  assert resumed.status_code == 200, resumed.text
  assert resumed.json()[-1]["content"]["parts"][0]["text"] == "Refund done."
  retried = a.client.post("/run", json={**body, "newMessage": answer})  # a client retrying on the other replica
  assert retried.status_code == 409 and retried.json()["error_code"] == "CALL_ALREADY_ANSWERED"
  assert log.read_text() == "B200\n"
  seen_by_a = a.client.get("/apps/desk_agent/users/u/sessions/s").json()["events"]
  seen_by_b = b.client.get("/apps/desk_agent/users/u/sessions/s").json()["events"]
  assert [e["id"] for e in seen_by_a] == [e["id"] for e in seen_by_b]
  assert seen_by_a[-1]["content"]["parts"][0]["text"] == "Refund done."


def test_a_request_on_a_session_another_replica_is_running_is_refused_before_it_runs_anything(
    tmp_path, start_server, pg_url):
  """A's turn holds the session while its tool runs; B's request is refused (409) and runs nothing (issue 28)."""
  import json

  from tests.cli.conftest import write_agent
  from tests.server.test_api_server import SLOW_TOOL

  folder = write_agent(tmp_path, "writer_app", SLOW_TOOL)
  go, done, started = tmp_path / "go", tmp_path / "done", tmp_path / "started"
  started.mkdir()
  env = {"GO_FILE": str(go), "DONE_FILE": str(done), "STARTED_DIR": str(started)}
  a = start_server(str(folder), "--session_service_uri", pg_url, env=env)
  b = start_server(str(folder), "--session_service_uri", pg_url, env=env)
  a.client.post("/apps/writer_app/users/u/sessions", json={"sessionId": "s"})
  body = {"appName": "writer_app", "userId": "u", "sessionId": "s"}
  with a.client.stream("POST", "/run_sse", json={**body, "newMessage": message("first")}) as first:
    lines = (line for line in first.iter_lines() if line.startswith("data:"))
    assert "slow_report" in next(lines)  # A's tool call is committed; its tool now waits
    refused = b.client.post("/run", json={**body, "newMessage": message("second")})
    assert refused.status_code == 409 and refused.json()["error_code"] == "STALE_SESSION", refused.text
    assert "another turn" in refused.text and "nothing was written" in refused.text
    assert len(list(started.iterdir())) == 1  # B's run never reached its tool
    go.write_text("")  # A's tool finishes now
    rest = [json.loads(line[5:]) for line in lines]
  assert not [e for e in rest if e.get("errorCode")]
  events = b.client.get("/apps/writer_app/users/u/sessions/s").json()["events"]
  steps = [(e["author"], next(iter(e["content"]["parts"][0]))) for e in events]
  assert steps == [("user", "text"), ("writer", "functionCall"), ("writer", "functionResponse"), ("writer", "text")]
  # A's call is answered by its own known result, not "Interrupted ... may have run".
  assert events[2]["content"]["parts"][0]["functionResponse"]["response"] == {"written": "q3"}
  # The session is free again: B's next request runs.
  again = b.client.post("/run", json={**body, "newMessage": message("second")})
  assert again.status_code == 200, again.text
