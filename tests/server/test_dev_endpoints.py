"""google-adk's dev-UI endpoints that adk_nb backs: the agent graph and eval sets, over a real server process."""

import json

from adk_nb.evaluation import EvalStatus, load_eval_set
from tests.cli.conftest import write_agent
from tests.server.test_api_server import message

PASSED = EvalStatus.PASSED.value

TEAM = '''
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call

def get_weather(city: str) -> dict:
  """Weather for a city."""
  return {"city": city, "temp_c": 21}

def script(request):
  part = request.contents[-1].parts[-1]
  if part.function_response:
    return "It is 21 degrees in Paris."
  return call("get_weather", city="Paris")

helper = Agent(name="helper", description="Spare hands.", model=ScriptedModel(["unused"]))
root_agent = Agent(name="desk", model=ScriptedModel(script), tools=[get_weather], sub_agents=[helper])
'''


def test_agent_graph_and_an_events_graph_as_dot(tmp_path, start_server):
  write_agent(tmp_path / "apps", "team_app", TEAM)
  c = start_server(str(tmp_path / "apps"), "--session_service_uri", "memory://").client
  dot = c.get("/dev/apps/team_app/graph").json()["dotSrc"]
  assert dot.startswith("digraph {") and dot.endswith("}")
  assert '"desk" -> "get_weather";' in dot and '"desk" -> "helper";' in dot and "penwidth" not in dot
  assert c.get("/apps/team_app/graph?dark_mode=true").json()["dotSrc"] != dot  # the 1.x path, dark theme
  assert c.get("/dev/apps/nope/graph").status_code == 404

  c.post("/apps/team_app/users/u/sessions", json={"sessionId": "s"})
  events = c.post("/run", json={"appName": "team_app", "userId": "u", "sessionId": "s",
                                "newMessage": message("Weather in Paris?")}).json()
  call_event = next(e for e in events if "functionCall" in e["content"]["parts"][0])
  lit = c.get(f"/dev/apps/team_app/users/u/sessions/s/events/{call_event['id']}/graph").json()["dotSrc"]
  assert '"desk" -> "get_weather" [color="#1a73e8", penwidth=2];' in lit
  assert '"desk" -> "helper";' in lit  # only the step's edge is highlighted
  assert c.get("/dev/apps/team_app/users/u/sessions/s/events/nope/graph").json() == {}


def test_eval_sets_from_a_served_session_to_a_file_adk_nb_eval_reads(tmp_path, start_server):
  folder = write_agent(tmp_path / "apps", "team_app", TEAM)
  c = start_server(str(tmp_path / "apps"), "--session_service_uri", "memory://").client
  dev = "/dev/apps/team_app"
  assert c.get(f"{dev}/eval-sets").json() == {"evalSetIds": []}
  created = c.post(f"{dev}/eval-sets", json={"evalSet": {"evalSetId": "smoke", "evalCases": []}})
  assert created.status_code == 200 and created.json()["evalSetId"] == "smoke"
  assert c.post("/apps/team_app/eval_sets/legacy_set").status_code == 200  # the 1.x path
  assert c.get("/apps/team_app/eval_sets").json() == ["legacy_set", "smoke"]
  taken = c.post(f"{dev}/eval-sets", json={"evalSet": {"evalSetId": "smoke"}})
  assert taken.status_code == 400 and "already exists" in taken.json()["detail"]
  assert c.post(f"{dev}/eval-sets", json={"evalSet": {"evalSetId": "../x"}}).status_code == 400

  c.post("/apps/team_app/users/u/sessions", json={"sessionId": "s"})
  c.post("/run", json={"appName": "team_app", "userId": "u", "sessionId": "s", "newMessage": message("Weather?")})
  added = c.post(f"{dev}/eval-sets/smoke/add-session", json={"evalId": "paris", "sessionId": "s", "userId": "u"})
  assert added.status_code == 200, added.text
  assert c.get(f"{dev}/eval_sets/smoke/evals").json() == ["paris"]
  case = c.get(f"{dev}/eval-sets/smoke/eval-cases/paris").json()
  turn = case["conversation"][0]
  assert turn["userContent"]["parts"][0]["text"] == "Weather?"
  assert turn["finalResponse"]["parts"][0]["text"] == "It is 21 degrees in Paris."
  assert '"name": "get_weather"' in json.dumps(turn["intermediateData"])  # the tool call is expected too
  on_disk = load_eval_set(folder / "smoke.evalset.json")  # the file `adk-nb eval` reads
  assert [c.eval_id for c in on_disk.eval_cases] == ["paris"]

  case["conversation"][0]["userContent"]["parts"][0]["text"] = "Weather in Paris?"
  assert c.put(f"{dev}/eval-sets/smoke/eval-cases/paris", json=case).status_code == 200
  assert c.get("/apps/team_app/eval_sets/smoke/evals/paris").json()["conversation"][0]["userContent"][
      "parts"][0]["text"] == "Weather in Paris?"
  mismatch = c.put(f"{dev}/eval-sets/smoke/eval-cases/other", json=case)
  assert mismatch.status_code == 400 and "differs" in mismatch.json()["detail"]
  assert c.get(f"{dev}/eval-sets/nope/eval-cases/paris").status_code == 404
  assert c.get(f"{dev}/eval_sets/nope/evals").status_code == 404
  missing_session = c.post(f"{dev}/eval-sets/smoke/add-session", json={"evalId": "x", "sessionId": "no", "userId": "u"})
  assert missing_session.status_code == 404
  metrics = [{"metricName": "tool_trajectory_avg_score", "threshold": 1.0},
             {"metricName": "response_match_score", "threshold": 0.8}]
  ran = c.post(f"{dev}/eval-sets/smoke/run", json={"evalCaseIds": ["paris"], "evalMetrics": metrics})
  assert ran.status_code == 200, ran.text
  (result,) = ran.json()["runEvalResults"]
  assert (result["evalSetId"], result["evalId"], result["finalEvalStatus"]) == ("smoke", "paris", PASSED)
  assert sorted(m["metricName"] for m in result["overallEvalMetricResults"]) == [
      "response_match_score", "tool_trajectory_avg_score"]
  assert c.post("/apps/team_app/eval_sets/smoke/run_eval", json={}).json()[0]["evalId"] == "paris"  # 1.x path
  (first_id, second_id) = c.get(f"{dev}/eval-results").json()["evalResultIds"]
  assert c.get("/apps/team_app/eval_results").json() == [first_id, second_id]
  stored = c.get(f"{dev}/eval-results/{first_id}").json()
  assert stored["evalSetId"] == "smoke" and [r["evalId"] for r in stored["evalCaseResults"]] == ["paris"]
  assert c.get(f"{dev}/eval-results/nope").status_code == 404
  unknown_case = c.post(f"{dev}/eval-sets/smoke/run", json={"evalCaseIds": ["nope"]})
  assert unknown_case.status_code == 400 and "nope" in unknown_case.json()["detail"]
  assert c.post(f"{dev}/eval-sets/missing/run", json={}).status_code == 404

  assert c.delete(f"{dev}/eval-sets/smoke/eval-cases/paris").status_code == 200
  assert c.get(f"{dev}/eval_sets/smoke/evals").json() == []
  assert c.delete(f"{dev}/eval-sets/smoke/eval-cases/paris").status_code == 404


def test_the_dev_graph_is_the_notebooks_graph_agent_tools_loops_and_workflows():
  from adk_nb import Agent
  from adk_nb.agents import LoopAgent, SequentialAgent
  from adk_nb.models import ScriptedModel
  from adk_nb.server.dev import agent_graph_dot
  from adk_nb.tools import AgentTool
  from tests.inspect.test_steps import review_flow

  def lookup(q: str) -> str:
    """Looks up."""
    return q

  helper = Agent(name="helper", model=ScriptedModel([]), tools=[lookup])
  desk = Agent(name="desk", model=ScriptedModel([]), tools=[AgentTool(helper)])
  loop = LoopAgent(name="review", sub_agents=[Agent(name="critic", model=ScriptedModel([])),
                                              Agent(name="reviser", model=ScriptedModel([]))])
  dot = agent_graph_dot(SequentialAgent(name="root", sub_agents=[desk, loop]))
  assert '"desk" -> "helper" [label="agent tool"];' in dot and '"helper" -> "lookup";' in dot
  assert '"helper" [shape=ellipse];' in dot and '"lookup" [shape=box];' in dot  # an agent, not a tool box
  assert '"reviser" -> "critic" [label="again"];' in dot and '"root" -> "desk" [label="1"];' in dot
  flow = agent_graph_dot(review_flow(), highlights=[("critic", "writer")])
  assert '"critic" -> "writer" [label="revise", color="#1a73e8", penwidth=2];' in flow
  assert '"checks" [shape=diamond];' in flow
