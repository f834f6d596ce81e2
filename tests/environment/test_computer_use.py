"""ComputerUseToolset and its Vertex sandbox computer: what a computer-use model is offered and sent back."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from computer_use_scenario import recorder_class, scenario  # noqa: E402

from adk_nb import Agent  # noqa: E402
from adk_nb.integrations.vmaas import AgentEngineSandboxComputer  # noqa: E402
from adk_nb.models import ScriptedModel, call  # noqa: E402
from adk_nb.runners import InMemoryRunner  # noqa: E402
from adk_nb.pending import confirmation_response  # noqa: E402
from adk_nb.testing import answer, pending, run_turn, summarize  # noqa: E402
from adk_nb.tools.computer_use import ComputerUseToolset  # noqa: E402

FIXTURE = json.loads(Path(__file__).with_name("google_adk_computer_use.json").read_text())


@pytest.fixture(scope="module")
def on_adk_nb():
  return scenario("adk_nb")  # runs its own event loop


@pytest.mark.parametrize("case", range(len(FIXTURE["offered"])))
def test_each_model_generation_is_offered_the_actions_and_exclusions_google_adk_offers(on_adk_nb, case):
  assert on_adk_nb["offered"][case] == FIXTURE["offered"][case]


def test_actions_reach_the_computer_scaled_and_screenshots_reach_the_model_as_inline_images(on_adk_nb):
  # click_at(500, 500) on the model's 1000x1000 grid is (640, 360) on a 1280x720 screen; `type` and `hotkey`
  # become key presses; `wait(1.2)` waits 2 s; private and non-http URLs are refused without navigating.
  assert on_adk_nb["turn"] == FIXTURE["turn"]
  name, response, parts = on_adk_nb["turn"]["answers"][0]
  assert (name, response, parts) == ("click_at", {"url": "https://example.com/"}, [["image/png", "PNG1"]])


@pytest.fixture
def without_agentplatform(monkeypatch):
  monkeypatch.setitem(sys.modules, "agentplatform", None)


async def test_the_vertex_sandbox_sample_answers_a_turn_without_google_cloud(without_agentplatform):
  computer = AgentEngineSandboxComputer(
      project_id=None, service_account_email=None,
      sandbox_name="projects/p/locations/l/reasoningEngines/42/sandboxEnvironments/7")
  model = ScriptedModel(["I can browse for you."])
  runner = InMemoryRunner(Agent(name="browser", model=model, tools=[ComputerUseToolset(computer=computer)]),
                          app_name="cu")

  events = await run_turn(runner, "hello")

  assert summarize(events)[-1] == ("browser", "text", "I can browse for you.")
  computer_use = [t.computer_use for t in model.requests[0].config.tools if t.computer_use]
  assert [c.environment.value for c in computer_use] == ["ENVIRONMENT_BROWSER"]
  assert computer._agent_engine_name == "projects/p/locations/l/reasoningEngines/42"


async def test_a_vertex_sandbox_action_without_the_sdk_fails_naming_the_install_never_a_fake_screenshot(
    without_agentplatform):
  model = ScriptedModel([call("click_at", x=10, y=10), "never"])
  runner = InMemoryRunner(Agent(name="browser", model=model,
                                tools=[ComputerUseToolset(computer=AgentEngineSandboxComputer())]), app_name="cu")

  with pytest.raises(ImportError, match=r"pip install 'google-cloud-agentplatform\[agent-engines\]>=2.2,<3'"):
    await run_turn(runner, "click")
  assert len(model.requests) == 1  # no answer was made up for the model


async def test_with_the_sdk_a_vertex_sandbox_action_says_it_is_not_ported(monkeypatch):
  monkeypatch.setitem(sys.modules, "agentplatform", type(sys)("agentplatform"))
  computer = AgentEngineSandboxComputer()
  with pytest.raises(NotImplementedError, match="does not drive Agent Engine sandboxes yet.*google-adk"):
    await computer.navigate("https://example.com")


async def test_an_action_the_model_flags_for_safety_waits_for_a_person_and_runs_once_approved():
  computer = recorder_class("adk_nb")()
  flagged = call("click_at", x=500, y=500,
                 safety_decision={"decision": "require_confirmation", "explanation": "This buys the item."})
  model = ScriptedModel([flagged, "Bought."])
  runner = InMemoryRunner(Agent(name="browser", model=model, tools=[ComputerUseToolset(computer=computer)]),
                          app_name="cu")

  await run_turn(runner, "buy it")
  [item] = await pending(runner)
  assert computer.log == [] and item.hint == "This buys the item."

  events = await answer(runner, [confirmation_response(item, True)])
  assert computer.log == [["click_at", 640, 360]]
  [response] = [r for e in events for r in e.get_function_responses() if r.name == "click_at"]
  assert response.response == {"url": "https://example.com/", "safety_acknowledgement": "true"}
  assert [p.inline_data.data for p in response.parts] == [b"PNG1"]
  assert summarize(events)[-1] == ("browser", "text", "Bought.")
