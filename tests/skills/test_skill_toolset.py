"""SkillToolset offers a model the tools google-adk 2.13's offers, and answers its calls the same way.

google_adk_turn.json was written by google-adk itself (fixtures/make_google_adk_turn.py): one
scripted turn that lists the skills, loads one, reads a reference, runs its script, calls the tool
the skill adds, and asks for a missing file. The same turn runs here on adk_nb. The interface is
compared (tool names, schemas, answers' fields and error codes, state); the prose (descriptions,
instruction text, messages) is adk_nb's own and is checked to differ from google-adk's.
"""
import re

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


SKILL_TOOLS = {"list_skills", "load_skill", "load_skill_resource", "run_skill_script", "unload_skill",
               "search_skills"}


def _skill_part(instruction: str) -> str:
  # The agent's own instruction comes first; how each framework names the agent there is its own
  # wording (tests/differential masks it too). The skills' part starts here (google-adk's or ours).
  for start in ("You can use specialized 'skills'", "Skills are available to you"):
    if start in instruction:
      return instruction[instruction.index(start):]
  raise AssertionError(f"no skill guidance in {instruction!r}")


def _tools_named(text: str) -> set[str]:
  return {name for name in re.findall(r"`(\w+)`", text) if name in SKILL_TOOLS}


def _without(value, key: str):
  if isinstance(value, dict):
    return {k: _without(v, key) for k, v in value.items() if k != key}
  if isinstance(value, list):
    return [_without(v, key) for v in value]
  return value


def _without_prose(tool: dict) -> dict:
  # Descriptions are prose (each framework's own words); names, types and required lists are the interface.
  return _without(tool, "description")


def _answers_without_messages(answers: list) -> list:
  # An error's message is prose; its error_code and every other field are data.
  return [{**a, "response": _without(a["response"], "error")} for a in answers]


def _descriptions(tool: dict) -> list[str]:
  props = tool.get("parameters_json_schema", {}).get("properties", {})
  return [tool["description"]] + [p["description"] for p in props.values() if "description" in p]


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
  tools = [_without_prose(t) if t["name"] in SKILL_TOOLS else _without_titles(t) for t in record["tools"]]
  return {"tools_named_in_instruction": _tools_named(_skill_part(record["system_instruction"])), "tools": tools}


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
  # Tool declarations: names, types and required lists as google-adk's, step by step (the skill's
  # extra tool appears once the skill is loaded); descriptions are compared in the next test.
  assert [r["tools"] for r in requests] == [r["tools"] for r in google]
  assert [[t["name"] for t in r["tools"]] for r in requests][2] == [
      "list_skills", "load_skill", "load_skill_resource", "run_skill_script", "get_water_temperature"]
  # The system instruction refers to the same tools as google-adk's.
  assert [r["tools_named_in_instruction"] for r in requests] == [r["tools_named_in_instruction"] for r in google]
  assert requests[0]["tools_named_in_instruction"] == {"load_skill", "load_skill_resource", "run_skill_script"}
  answers = [{"name": p.function_response.name, "response": p.function_response.response}
             for e in events for p in (e.content.parts if e.content else []) if p.function_response]
  # Answers: the same data; an error's message is each framework's own words, its error_code the same.
  assert _answers_without_messages(answers) == _answers_without_messages(GOOGLE["answers"])
  assert answers[1]["response"]["frontmatter"] == GOOGLE["answers"][1]["response"]["frontmatter"]
  assert answers[-1]["response"]["error"] == "Skill 'tide-skill' has no resource 'references/missing.md'."
  assert answers[3]["response"]["stdout"] == "Next high tide at Roscoff: 18:40\n"
  assert answers[-1]["response"]["error_code"] == "RESOURCE_NOT_FOUND"
  assert events[-1].content.parts[0].text == "High tide at Roscoff is at 18:40; the water is 14 C."
  session = await runner.session_service.get_session(app_name="skills", user_id="user", session_id="s1")
  assert session.state["_adk_activated_skill_harbour_agent"] == ["tide-skill"]
  assert {k: v for k, v in session.state.items()} == GOOGLE["state"]


async def test_the_prose_is_adk_nbs_own_not_google_adks():
  # The project writes its own words: no description or instruction sentence is google-adk's.
  model, events, runner = await _run_scripted_turn()
  ours = {t["name"]: t for t in _record(model.requests[2])["tools"] if t["name"] in SKILL_TOOLS}
  theirs = {t["name"]: t for t in GOOGLE["requests"][2]["tools"] if t["name"] in SKILL_TOOLS}
  assert set(ours) == set(theirs) == {"list_skills", "load_skill", "load_skill_resource", "run_skill_script"}
  for name in ours:
    assert not set(_descriptions(ours[name])) & set(_descriptions(theirs[name])), name
  google_text = _skill_part(GOOGLE["requests"][0]["system_instruction"])
  our_text = _skill_part(model.requests[0].config.system_instruction)
  google_sentences = {s.strip() for s in re.split(r"(?<=[.:])\s+|\n", google_text) if len(s.strip()) > 20}
  our_sentences = {s.strip() for s in re.split(r"(?<=[.:])\s+|\n", our_text) if len(s.strip()) > 20}
  assert google_sentences and our_sentences and not google_sentences & our_sentences
  answers = [p.function_response.response for e in events for p in (e.content.parts if e.content else [])
             if p.function_response]
  assert answers[-1]["error"] != GOOGLE["answers"][-1]["response"]["error"]


def test_default_instruction_names_the_skill_tools():
  assert DEFAULT_SKILL_SYSTEM_INSTRUCTION.startswith("Skills are available to you")
  assert _tools_named(DEFAULT_SKILL_SYSTEM_INSTRUCTION) == {"load_skill", "load_skill_resource", "run_skill_script"}
  assert _tools_named(DEFAULT_SKILL_SYSTEM_INSTRUCTION) == _tools_named(
      _skill_part(GOOGLE["requests"][0]["system_instruction"]))


async def test_without_a_code_executor_the_script_tool_is_not_offered_and_the_prompt_says_so():
  skill = Skill(frontmatter=Frontmatter(name="s-one", description="d"), instructions="i",
                resources=Resources(scripts={"a.py": {"src": "print(1)"}}))
  model = ScriptedModel([types.Part(text="ok")])
  agent = Agent(name="a", model=model, tools=[SkillToolset(skills=[skill])])
  await run_turn(InMemoryRunner(agent=agent, app_name="x"), "hi", session_id="s")
  request = model.requests[0]
  names = [d.name for t in request.config.tools for d in t.function_declarations]
  assert names == ["list_skills", "load_skill", "load_skill_resource"]
  assert "Running them is not possible here" in request.config.system_instruction
  assert "`run_skill_script`" not in request.config.system_instruction


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
  assert answers[1]["status"].startswith("This file is binary")
  shown = model.requests[2].contents[-1]
  assert shown.role == "user"
  assert shown.parts[0].text == "Bytes of the binary file 'assets/logo.png':"
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
      "Released: the instructions this skill gave no longer hold and its extra tools are gone. Load the skill "
      "anew to use it again.")}
  assert "`unload_skill`" in model.requests[0].config.system_instruction
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
