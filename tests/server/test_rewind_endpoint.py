"""POST .../sessions/{id}/rewind (google-adk PR #7178's endpoint) on a real `adk-nb api_server` process."""

from tests.cli.conftest import write_agent

CITY_AGENT = '''
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
from adk_nb.tools.tool_context import ToolContext

def get_weather(city: str, tool_context: ToolContext) -> dict:
  """Weather for a city."""
  tool_context.state["last_city"] = city
  return {"city": city, "temp_c": 21}

def script(request):
  part = request.contents[-1].parts[-1]
  if part.function_response:
    return "It is 21 degrees in " + part.function_response.response["city"] + "."
  return call("get_weather", city=part.text)

root_agent = Agent(name="weather", model=ScriptedModel(script), tools=[get_weather])
'''


def test_rewind_endpoint_rewinds_and_answers_the_session(tmp_path, start_server):
  write_agent(tmp_path / "apps", "weather_app", CITY_AGENT)
  server = start_server(str(tmp_path / "apps"), "--session_service_uri", "memory://")
  c = server.client
  base = "/apps/weather_app/users/u1/sessions"
  assert c.post(base, json={"sessionId": "s1", "state": {"tenant": "t1"}}).status_code == 200
  invocations = []
  for city in ("Paris", "Rome"):
    events = c.post("/run", json={"appName": "weather_app", "userId": "u1", "sessionId": "s1",
                                  "newMessage": {"role": "user", "parts": [{"text": city}]}}).json()
    invocations.append(events[0]["invocationId"])
  assert c.get(base + "/s1").json()["state"]["last_city"] == "Rome"

  rewound = c.post(base + "/s1/rewind", json={"rewindBeforeInvocationId": invocations[1]})
  assert rewound.status_code == 200, rewound.text
  body = rewound.json()
  assert body["id"] == "s1" and body["state"] == {"tenant": "t1", "last_city": "Paris"}
  assert body["events"][-1]["actions"]["rewindBeforeInvocationId"] == invocations[1]
  assert c.get(base + "/s1").json() == body
  # snake_case works too, as on every adk_nb endpoint
  again = c.post(base + "/s1/rewind", json={"rewind_before_invocation_id": invocations[0]})
  assert again.status_code == 200 and again.json()["state"] == {"tenant": "t1", "last_city": None}


def test_rewind_endpoint_refuses_bad_requests_and_writes_nothing(tmp_path, start_server):
  write_agent(tmp_path / "apps", "weather_app", CITY_AGENT)
  server = start_server(str(tmp_path / "apps"), "--session_service_uri", "memory://")
  c = server.client
  base = "/apps/weather_app/users/u1/sessions"
  c.post(base, json={"sessionId": "s1"})
  c.post("/run", json={"appName": "weather_app", "userId": "u1", "sessionId": "s1",
                       "newMessage": {"role": "user", "parts": [{"text": "Paris"}]}})
  before = c.get(base + "/s1").json()

  unknown = c.post(base + "/s1/rewind", json={"rewindBeforeInvocationId": "e-nope"})
  assert unknown.status_code == 404 and "e-nope" in unknown.json()["detail"]
  assert unknown.json()["error_code"] == "NOT_FOUND"
  assert c.post(base + "/nope/rewind", json={"rewindBeforeInvocationId": "e-x"}).status_code == 404
  assert c.post("/apps/other/users/u1/sessions/s1/rewind", json={"rewindBeforeInvocationId": "e-x"}).status_code == 404
  missing = c.post(base + "/s1/rewind", json={})
  assert missing.status_code == 422 and "rewindBeforeInvocationId" in missing.json()["detail"]
  assert c.get(base + "/s1").json() == before
