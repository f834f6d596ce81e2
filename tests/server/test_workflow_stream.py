"""The api_server's /run and /run_sse for a workflow that pauses: the request, as google-adk's server sends,
and not adk_nb's checkpoint, which stays in the session for the resume."""

from tests.cli.conftest import write_agent
from tests.server.test_api_server import message, sse_events

PAUSING_APP = '''
from adk_nb import Workflow
from adk_nb.events import RequestInput


async def approve(node_input):
  yield RequestInput(message="Publish?")


def publish(node_input):
  return f"published: {node_input['ok']}"


root_agent = Workflow(name="wf", edges=[("START", approve, publish)])
'''


def test_run_and_run_sse_stream_the_request_of_a_pausing_workflow_and_the_answer_resumes_it(tmp_path, serve_app):
  c = serve_app(folder=write_agent(tmp_path / "agents", "pausing_app", PAUSING_APP))
  body = {"appName": "pausing_app", "userId": "u", "sessionId": "s"}
  paused = c.post("/run", json={**body, "newMessage": message("go")}).json()
  # As google-adk's api_server: one event, the request; no content-less checkpoint.
  assert [[list(p) for p in e["content"]["parts"]] for e in paused] == [[["functionCall"]]]
  assert "agentState" not in paused[0].get("actions", {})
  call = paused[0]["content"]["parts"][0]["functionCall"]

  c.post("/apps/pausing_app/users/u/sessions", json={"sessionId": "s2"})
  streamed = sse_events(c.post("/run_sse", json={**body, "sessionId": "s2", "newMessage": message("go")}))
  assert [[list(p) for p in e["content"]["parts"]] for e in streamed] == [[["functionCall"]]]

  stored = c.get("/apps/pausing_app/users/u/sessions/s").json()["events"]
  assert [e["actions"]["agentState"]["status"] for e in stored if e.get("actions", {}).get("agentState")] == ["paused"]
  reply = {"role": "user", "parts": [{"functionResponse": {"id": call["id"], "name": call["name"],
                                                           "response": {"ok": True}}}]}
  resumed = c.post("/run", json={**body, "newMessage": reply}).json()
  assert [e.get("output") for e in resumed] == [{"ok": True}, "published: True"]
  assert not [e for e in resumed if e.get("actions", {}).get("agentState") or e.get("actions", {}).get("endOfAgent")]
