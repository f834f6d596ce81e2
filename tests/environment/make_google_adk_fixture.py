"""Writes the google-adk 2.13 fixtures of tests/environment (google-adk is never a dependency of adk_nb).

Run with the google-adk control interpreter:

    bench/.venv-adk/bin/python tests/environment/make_google_adk_fixture.py

google_adk_environment_request.json: what google-adk sends a model from an EnvironmentToolset.
google_adk_computer_use.json: computer_use_scenario.scenario("google.adk") (what ComputerUseToolset offers
per model, and what a recording computer did and answered in one turn).

It runs one turn of an agent holding `EnvironmentToolset(environment=LocalEnvironment(...))` with a
model that records its request, and keeps the tool declarations and the system instruction, the
working directory written as `{working_dir}`.
"""

import asyncio
import json
import pathlib
import tempfile

from google.adk import Agent
from google.adk.environment import LocalEnvironment
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools.environment import EnvironmentToolset
from google.genai import types

OUT = pathlib.Path(__file__).with_name("google_adk_environment_request.json")
INSTRUCTION = "Use the environment."


class Recorder(BaseLlm):
  model: str = "recorder"
  seen: list = []

  async def generate_content_async(self, llm_request, stream=False):
    self.seen.append(llm_request)
    yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="ok")]))


async def main() -> None:
  with tempfile.TemporaryDirectory() as tmp:
    workdir = pathlib.Path(tmp) / "work"
    model = Recorder()
    agent = Agent(name="env_agent", model=model, instruction=INSTRUCTION,
                  tools=[EnvironmentToolset(environment=LocalEnvironment(working_dir=workdir))])
    runner = InMemoryRunner(agent=agent, app_name="fixture")
    session = await runner.session_service.create_session(app_name="fixture", user_id="u")
    async for _ in runner.run_async(user_id="u", session_id=session.id,
                                    new_message=types.Content(role="user", parts=[types.Part(text="hi")])):
      pass
    await runner.close()
    request = model.seen[0]
    declarations = [d.model_dump(mode="json", exclude_none=True)
                    for tool in request.config.tools for d in (tool.function_declarations or [])]
    instruction = request.config.system_instruction
    if not isinstance(instruction, str):
      instruction = "".join(p.text or "" for p in instruction.parts)
    OUT.write_text(json.dumps({
        "made_by": "google-adk 2.13 (tests/environment/make_google_adk_fixture.py)",
        "agent_instruction": INSTRUCTION,
        "system_instruction": instruction.replace(str(workdir), "{working_dir}"),
        "function_declarations": declarations,
    }, indent=2) + "\n")
    print(f"wrote {OUT}")


asyncio.run(main())

import sys  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from computer_use_scenario import scenario  # noqa: E402

CU = pathlib.Path(__file__).with_name("google_adk_computer_use.json")
CU.write_text(json.dumps({"made_by": "google-adk 2.13 (tests/environment/make_google_adk_fixture.py)",
                          **scenario("google.adk")}, indent=1) + "\n")
print(f"wrote {CU}")
