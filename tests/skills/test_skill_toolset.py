"""SkillToolset offers a model what google-adk 2.13's offers, and answers its calls the same way.

google_adk_turn.json was written by google-adk itself (fixtures/make_google_adk_turn.py): one
scripted turn that lists the skills, loads one, reads a reference, runs its script, calls the tool
the skill adds, and asks for a missing file. The same turn runs here on adk_nb.
"""

import importlib.util
import json
import pathlib

import pytest
from google.genai import types

from adk_nb.agents import Agent
from adk_nb.code_executors.unsafe_local_code_executor import UnsafeLocalCodeExecutor
from adk_nb.models import ScriptedModel, call
from adk_nb.runners import InMemoryRunner
from adk_nb.skills import Frontmatter, Resources, Skill, load_skills_from_dir
from adk_nb.testing import run_turn
from adk_nb.tools.skill_toolset import DEFAULT_SKILL_SYSTEM_INSTRUCTION, SkillDiscoveryMode, SkillToolset

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
GOOGLE = json.loads((FIXTURES / "google_adk_turn.json").read_text())


def _generator() -> dict:
  spec = importlib.util.spec_from_file_location("turn_script", FIXTURES / "turn_script.py")
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return vars(module)


def _skill_part(instruction: str) -> str:
  # The agent's own instruction comes first; how each framework names the agent there is its own
  # wording (tests/differential masks it too). The skills' part starts here.
  return instruction[instruction.index("You can use specialized 'skills'"):]


def _without_titles(schema):
  # google-adk's FunctionTool adds pydantic's "title" keys to a function's schema; adk_nb's does not
  # (a FunctionTool difference outside skills, left as it is).
  if isinstance(schema, dict):
    return {k: _without_titles(v) for k, v in schema.items() if k != "title"}
  return schema


def _record(request) -> dict:
  tools = [d.model_dump(mode="json", exclude_none=True)
           for tool in request.config.tools or [] for d in tool.function_declarations or []]
  return {"system_instruction": request.config.system_instruction, "tools": tools}


def _comparable(record: dict) -> dict:
  skill_tools = {"list_skills", "load_skill", "load_skill_resource", "run_skill_script"}
  tools = [t if t["name"] in skill_tools else _without_titles(t) for t in record["tools"]]
  return {"system_instruction": _skill_part(record["system_instruction"]), "tools": tools}


async def _run_scripted_turn():
  gen = _generator()
  script = [types.Part(text=gen["FINAL_TEXT"]) if step is None else call(step[0], step[1])
            for step in gen["SCRIPT"]]
  model = ScriptedModel(script)
  toolset = SkillToolset(skills=load_skills_from_dir(FIXTURES / "skills"),
                         additional_tools=[gen["get_water_temperature"]], code_executor=UnsafeLocalCodeExecutor())
  agent = Agent(name="harbour_agent", model=model, instruction="You help sailors.", tools=[toolset])
  runner = InMemoryRunner(agent=agent, app_name="skills")
  events = await run_turn(runner, "When is high tide at Roscoff?", session_id="s1")
  return model, events, runner


async def test_a_scripted_turn_sends_and_answers_what_google_adk_does():
  model, events, runner = await _run_scripted_turn()
  model.assert_complete()
  requests = [_comparable(_record(r)) for r in model.requests]
  google = [_comparable(r) for r in GOOGLE["requests"]]
  # Tool declarations: names, descriptions and schemas as google-adk's, step by step (the skill's
  # extra tool appears once the skill is loaded).
  assert [r["tools"] for r in requests] == [r["tools"] for r in google]
  assert [[t["name"] for t in r["tools"]] for r in requests][2] == [
      "list_skills", "load_skill", "load_skill_resource", "run_skill_script", "get_water_temperature"]
  # The system instruction google-adk builds, word for word.
  assert [r["system_instruction"] for r in requests] == [r["system_instruction"] for r in google]
  answers = [{"name": p.function_response.name, "response": p.function_response.response}
             for e in events for p in (e.content.parts if e.content else []) if p.function_response]
  assert answers == GOOGLE["answers"]
  assert answers[3]["response"]["stdout"] == "Next high tide at Roscoff: 18:40\n"
  assert answers[-1]["response"]["error_code"] == "RESOURCE_NOT_FOUND"
  assert events[-1].content.parts[0].text == "High tide at Roscoff is at 18:40; the water is 14 C."
  session = await runner.session_service.get_session(app_name="skills", user_id="user", session_id="s1")
  assert session.state["_adk_activated_skill_harbour_agent"] == ["tide-skill"]
  assert {k: v for k, v in session.state.items()} == GOOGLE["state"]


def test_default_instruction_is_google_adks():
  assert DEFAULT_SKILL_SYSTEM_INSTRUCTION.startswith("You can use specialized 'skills'")
  assert "`run_skill_script`" in DEFAULT_SKILL_SYSTEM_INSTRUCTION
  assert _skill_part(GOOGLE["requests"][0]["system_instruction"]) == DEFAULT_SKILL_SYSTEM_INSTRUCTION


async def test_without_a_code_executor_the_script_tool_is_not_offered_and_the_prompt_says_so():
  skill = Skill(frontmatter=Frontmatter(name="s-one", description="d"), instructions="i",
                resources=Resources(scripts={"a.py": {"src": "print(1)"}}))
  model = ScriptedModel([types.Part(text="ok")])
  agent = Agent(name="a", model=model, tools=[SkillToolset(skills=[skill])])
  await run_turn(InMemoryRunner(agent=agent, app_name="x"), "hi", session_id="s")
  request = model.requests[0]
  names = [d.name for t in request.config.tools for d in t.function_declarations]
  assert names == ["list_skills", "load_skill", "load_skill_resource"]
  assert "You cannot run them" in request.config.system_instruction


async def test_eager_discovery_puts_the_catalog_in_the_instruction_and_drops_list_skills():
  skills = load_skills_from_dir(FIXTURES / "skills")
  model = ScriptedModel([types.Part(text="ok")])
  agent = Agent(name="a", model=model, tools=[SkillToolset(skills=skills, discovery_mode=SkillDiscoveryMode.EAGER,
                                                           code_executor=UnsafeLocalCodeExecutor())])
  await run_turn(InMemoryRunner(agent=agent, app_name="x"), "hi", session_id="s")
  request = model.requests[0]
  assert "list_skills" not in [d.name for t in request.config.tools for d in t.function_declarations]
  assert "<name>\nmoon-skill\n</name>" in request.config.system_instruction
  assert "Moon phases &lt;and&gt;" in request.config.system_instruction


async def test_a_script_that_fails_is_reported_as_an_error_with_its_stderr():
  skill = Skill(frontmatter=Frontmatter(name="bad-script", description="d"), instructions="i",
                resources=Resources(scripts={"boom.py": {"src": "import sys\nsys.exit('went wrong')\n"},
                                             "run.sh": {"src": "echo out; echo err >&2; exit 3\n"}}))
  model = ScriptedModel([call("run_skill_script", skill_name="bad-script", file_path="scripts/boom.py"),
                         call("run_skill_script", skill_name="bad-script", file_path="run.sh"),
                         call("run_skill_script", skill_name="bad-script", file_path="scripts/none.rb"),
                         types.Part(text="done")])
  agent = Agent(name="a", model=model, tools=[SkillToolset(skills=[skill], code_executor=UnsafeLocalCodeExecutor())])
  events = await run_turn(InMemoryRunner(agent=agent, app_name="x"), "go", session_id="s")
  answers = [p.function_response.response for e in events for p in (e.content.parts if e.content else [])
             if p.function_response]
  assert answers[0]["status"] == "error" and "went wrong" in answers[0]["stderr"]
  assert answers[1] == {"skill_name": "bad-script", "file_path": "run.sh", "stdout": "out\n",
                        "stderr": "err\nExit code 3", "status": "error"}
  assert answers[2]["error_code"] == "SCRIPT_NOT_FOUND"


def test_duplicate_skill_names_are_refused():
  skill = Skill(frontmatter=Frontmatter(name="twice", description="d"), instructions="i")
  with pytest.raises(ValueError, match="Duplicate skill name 'twice'"):
    SkillToolset(skills=[skill, skill])


async def test_load_skill_fills_state_placeholders_when_the_skill_asks_and_shows_binary_files_to_the_model():
  skill = Skill(frontmatter=Frontmatter(name="greet-skill", description="d", metadata={"adk_inject_state": True}),
                instructions="Greet {user:name} in {lang?}.",
                resources=Resources(assets={"logo.png": b"\x89PNG\r\n\x1a\n\xff"}))
  model = ScriptedModel([call("load_skill", skill_name="greet-skill"),
                         call("load_skill_resource", skill_name="greet-skill", file_path="assets/logo.png"),
                         types.Part(text="done")])
  runner = InMemoryRunner(agent=Agent(name="a", model=model, tools=[SkillToolset(skills=[skill])]), app_name="x")
  await runner.session_service.create_session(app_name="x", user_id="user", session_id="s",
                                              state={"user:name": "Ana"})
  events = await run_turn(runner, "hi", session_id="s")
  answers = [p.function_response.response for e in events for p in (e.content.parts if e.content else [])
             if p.function_response]
  assert answers[0]["instructions"] == "Greet Ana in ."
  assert answers[1]["status"].startswith("Binary file detected.")
  shown = model.requests[2].contents[-1]
  assert shown.role == "user"
  assert shown.parts[0].text == "The content of binary file 'assets/logo.png' is:"
  assert shown.parts[1].inline_data.data == b"\x89PNG\r\n\x1a\n\xff"
  assert shown.parts[1].inline_data.mime_type == "image/png"


async def test_unload_skill_is_offered_only_under_skill_lifecycle_and_hides_the_unloaded_instructions(monkeypatch):
  skill = Skill(frontmatter=Frontmatter(name="tide-skill", description="d"), instructions="Secret steps.")
  model = ScriptedModel([types.Part(text="ok")])
  agent = Agent(name="a", model=model, tools=[SkillToolset(skills=[skill])])
  await run_turn(InMemoryRunner(agent=agent, app_name="x"), "hi", session_id="s")
  assert "unload_skill" not in [d.name for t in model.requests[0].config.tools for d in t.function_declarations]

  monkeypatch.setenv("ADK_ENABLE_SKILL_LIFECYCLE", "1")
  model = ScriptedModel([call("load_skill", skill_name="tide-skill"), call("unload_skill", skill_name="tide-skill"),
                         types.Part(text="done")])
  runner = InMemoryRunner(agent=Agent(name="a", model=model, tools=[SkillToolset(skills=[skill])]), app_name="x")
  events = await run_turn(runner, "hi", session_id="s")
  answers = [p.function_response.response for e in events for p in (e.content.parts if e.content else [])
             if p.function_response]
  assert answers[1] == {"skill_name": "tide-skill", "unloaded": True, "active_skills": []}
  assert "unload_skill" in [d.name for t in model.requests[0].config.tools for d in t.function_declarations]
  # The model's next request carries a notice in place of the instructions; the session keeps them.
  sent = [p.function_response.response for c in model.requests[2].contents for p in c.parts if p.function_response]
  assert sent[0] == {"skill_name": "tide-skill", "status": "unloaded", "detail": (
      "This skill has been unloaded. Its instructions no longer apply and the tools it contributed are no longer "
      "available. Load it again if you need them.")}
  assert answers[0]["instructions"] == "Secret steps."


class _FolderEnvironment:
  """An environment whose files live in a temporary folder (google-adk's BaseEnvironment methods)."""

  def __init__(self, root: pathlib.Path):
    self.root, self.is_initialized, self.commands = root, False, []

  @property
  def working_dir(self) -> pathlib.Path:
    return pathlib.Path("/work")

  async def initialize(self):
    self.is_initialized = True

  async def close(self):
    self.is_initialized = False

  def _local(self, path) -> pathlib.Path:
    return self.root / str(path).lstrip("/")

  async def read_file(self, path) -> bytes:
    return self._local(path).read_bytes()  # FileNotFoundError when absent, as google-adk's environments

  async def write_file(self, path, content):
    local = self._local(path)
    local.parent.mkdir(parents=True, exist_ok=True)
    local.write_bytes(content.encode() if isinstance(content, str) else content)

  async def execute(self, command, timeout=None):
    self.commands.append(command)
    import types as _t
    return _t.SimpleNamespace(stdout=self._local("/work/skills/tide-skill/scripts/next_tide.py").read_text()[:15],
                              stderr="", exit_code=0, timed_out=False)


async def test_with_an_environment_scripts_take_a_command_and_the_skill_is_written_there_first(tmp_path):
  env = _FolderEnvironment(tmp_path)
  skills = load_skills_from_dir(FIXTURES / "skills")
  model = ScriptedModel([call("run_skill_script", skill_name="tide-skill", file_path="scripts/next_tide.py",
                              command="python /work/skills/tide-skill/scripts/next_tide.py"),
                         types.Part(text="done")])
  agent = Agent(name="a", model=model, tools=[SkillToolset(skills=skills, environment=env)])
  events = await run_turn(InMemoryRunner(agent=agent, app_name="x"), "go", session_id="s")
  run = next(d for t in model.requests[0].config.tools for d in t.function_declarations
             if d.name == "run_skill_script")
  assert run.parameters_json_schema["required"] == ["skill_name", "file_path", "command"]
  assert "`/work/skills/<skill_name>/`" in model.requests[0].config.system_instruction
  answer = next(p.function_response.response for e in events for p in (e.content.parts if e.content else [])
                if p.function_response)
  assert answer == {"stdout": "import argparse", "stderr": "", "exit_code": 0, "timed_out": False}
  assert (tmp_path / "work/skills/tide-skill/references/tides.md").read_text().startswith("# Tides at Brest")
  assert (tmp_path / "work/skills/tide-skill/assets/harbours.csv").exists()
  assert env.commands == ["python /work/skills/tide-skill/scripts/next_tide.py"] and env.is_initialized
