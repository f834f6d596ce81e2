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
