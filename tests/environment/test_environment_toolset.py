"""EnvironmentToolset: what the model is offered (google-adk's names and schemas, adk_nb's wording) and Runner turns
on a real LocalEnvironment."""

import json
from pathlib import Path

import pytest

from adk_nb import Agent
from adk_nb.environment import LocalEnvironment
from adk_nb.models import ScriptedModel, call
from adk_nb.runners import InMemoryRunner
from adk_nb.testing import run_turn, summarize
from adk_nb.tools.environment import EnvironmentToolset
from adk_nb.tools.environment._edit_file_tool import EditFileTool
from adk_nb.tools.environment._read_file_tool import ReadFileTool

FIXTURE = json.loads(Path(__file__).with_name("google_adk_environment_request.json").read_text())


def runner_for(model, environment, **toolset):
  agent = Agent(name="env_agent", model=model, instruction=FIXTURE["agent_instruction"],
                tools=[EnvironmentToolset(environment=environment, **toolset)])
  return InMemoryRunner(agent, app_name="env")


def answers_sent(model):
  """The function responses of the last request the model received, by tool name."""
  last = model.requests[-1].contents[-1]
  return [(p.function_response.name, p.function_response.response) for p in last.parts if p.function_response]


def without_prose(declaration):
  """A declaration with its descriptions removed: the interface facts (names, types, required) stay."""
  schema = declaration["parameters_json_schema"]
  properties = {name: {k: v for k, v in spec.items() if k != "description"}
                for name, spec in schema["properties"].items()}
  return {"name": declaration["name"], "parameters_json_schema": {**schema, "properties": properties}}


def descriptions(declaration):
  """Every description in a declaration: the tool's, then each parameter's."""
  return [declaration.get("description"),
          *(spec.get("description") for spec in declaration["parameters_json_schema"]["properties"].values())]


async def offered(tmp_path):
  model = ScriptedModel(["ok"])
  workdir = tmp_path / "work"
  runner = runner_for(model, LocalEnvironment(working_dir=workdir))
  await run_turn(runner, "hi")
  await runner.close()
  request = model.requests[0]
  declarations = [d.model_dump(mode="json", exclude_none=True)
                  for tool in request.config.tools for d in (tool.function_declarations or [])]
  instruction = request.config.system_instruction
  if not isinstance(instruction, str):
    instruction = "".join(p.text or "" for p in instruction.parts)
  return declarations, instruction, workdir


async def test_the_model_is_offered_google_adks_tool_names_and_parameter_schemas(tmp_path):
  declarations, _, _ = await offered(tmp_path)

  assert [without_prose(d) for d in declarations] == [without_prose(d) for d in FIXTURE["function_declarations"]]
  assert all(all(descriptions(d)) for d in declarations)  # every tool and parameter is described


async def test_the_descriptions_are_adk_nbs_own_wording_not_google_adks(tmp_path):
  declarations, _, _ = await offered(tmp_path)

  for ours, theirs in zip(declarations, FIXTURE["function_declarations"]):
    for our_text, their_text in zip(descriptions(ours), descriptions(theirs)):
      assert " ".join(our_text.split()) != " ".join(their_text.split()), (ours["name"], our_text)


async def test_the_environment_instruction_is_adk_nbs_own_names_the_working_directory_and_every_tool(tmp_path):
  _, instruction, workdir = await offered(tmp_path)

  recorded = FIXTURE["system_instruction"]
  ours = instruction[instruction.index("Working directory:"):]
  theirs = recorded[recorded.index("Your environment is at"):]
  # What comes before the environment's part is as in google-adk (agent's instruction, then the identity sentence,
  # which each framework words itself: README, "ADK 2.x").
  assert instruction[:-len(ours)] == recorded[:-len(theirs)].replace(
      'You are an agent. Your internal name is "env_agent".', 'You are the agent "env_agent".')
  assert f"{workdir}/" in ours
  assert " ".join(ours.split()) != " ".join(theirs.replace("{working_dir}", str(workdir)).split())
  for tool in ("Execute", "ReadFile", "EditFile"):
    assert f"`{tool}`" in ours and f"`{tool}`" in theirs
  assert not any(line.strip() and line.strip() in ours for line in theirs.splitlines()[1:]), "a line copied back"


async def test_a_turn_writes_a_file_runs_it_and_the_model_reads_the_output(tmp_path):
  model = ScriptedModel([
      call("WriteFile", path="hello.py", content="print('hello from', __name__)\n"),
      call("Execute", command="python3 hello.py && ls"),
      "It printed hello.",
  ])
  runner = runner_for(model, LocalEnvironment(working_dir=tmp_path))

  events = await run_turn(runner, "Write and run a script")

  assert summarize(events) == [
      ("user", "text", "Write and run a script"),
      ("env_agent", "call", "WriteFile"), ("env_agent", "result", "WriteFile"),
      ("env_agent", "call", "Execute"), ("env_agent", "result", "Execute"),
      ("env_agent", "text", "It printed hello."),
  ]
  assert answers_sent(model) == [("Execute", {"status": "ok", "stdout": "hello from __main__\nhello.py\n"})]
  assert (tmp_path / "hello.py").read_text() == "print('hello from', __name__)\n"
  model.assert_complete()


async def test_a_failing_commands_exit_code_and_stderr_reach_the_model(tmp_path):
  model = ScriptedModel([call("Execute", command="echo checking; ls no-such-file"), "It failed."])
  runner = runner_for(model, LocalEnvironment(working_dir=tmp_path))

  events = await run_turn(runner, "list it")

  (name, answer), = answers_sent(model)
  assert name == "Execute" and answer["status"] == "error" and answer["exit_code"] == 2
  assert answer["stdout"] == "checking\n" and "no-such-file" in answer["stderr"]
  assert summarize(events)[-1] == ("env_agent", "text", "It failed.")


async def test_long_output_is_cut_with_a_notice_saying_how_long_it_was(tmp_path):
  model = ScriptedModel([call("Execute", command="printf '%050d' 0"), "done"])
  runner = runner_for(model, LocalEnvironment(working_dir=tmp_path), max_output_chars=10)

  await run_turn(runner, "go")

  assert answers_sent(model) == [("Execute", {"status": "ok",
                                              "stdout": "0000000000\n[cut here: 10 of 50 characters shown]"})]


async def test_runner_close_removes_the_temporary_working_directory():
  environment = LocalEnvironment()
  model = ScriptedModel([call("Execute", command="pwd"), "done"])
  runner = runner_for(model, environment)

  await run_turn(runner, "where am I")

  workdir = environment.working_dir
  assert answers_sent(model) == [("Execute", {"status": "ok", "stdout": f"{workdir}\n"})]
  assert workdir.is_dir()
  await runner.close()
  assert not workdir.exists()


@pytest.fixture
async def env(tmp_path):
  environment = LocalEnvironment(working_dir=tmp_path)
  await environment.initialize()
  return environment


async def test_read_file_numbers_lines_and_reports_the_total_for_a_range(env):
  await env.write_file("poem.txt", "one\ntwo\nthree\n")
  read = ReadFileTool(env)

  assert await read.run_async(args={"path": "poem.txt"}, tool_context=None) == {
      "status": "ok", "content": "     1\tone\n     2\ttwo\n     3\tthree\n"}
  assert await read.run_async(args={"path": "poem.txt", "start_line": 2, "end_line": 2}, tool_context=None) == {
      "status": "ok", "content": "     2\ttwo\n", "total_lines": 3}
  assert (await read.run_async(args={"path": "poem.txt", "start_line": 9}, tool_context=None))["error"] == (
      "The file has only 3 lines, fewer than `start_line` 9.")
  assert await read.run_async(args={"path": "nope.txt"}, tool_context=None) == {
      "status": "error", "error": "No file at nope.txt."}


async def test_edit_file_replaces_one_unique_match_and_leaves_the_file_alone_otherwise(env):
  await env.write_file("app.cfg", "mode = slow\r\nretries = 1\r\nretries = 1\r\n")
  edit = EditFileTool(env)

  twice = await edit.run_async(args={"path": "app.cfg", "old_string": "retries = 1", "new_string": "x"},
                               tool_context=None)
  missing = await edit.run_async(args={"path": "app.cfg", "old_string": "absent", "new_string": "x"},
                                 tool_context=None)
  assert twice["error"].startswith("`old_string` occurs 2 times") and "nothing was changed" in twice["error"]
  assert missing["error"].startswith("The file does not contain `old_string`; nothing was changed.")
  assert await env.read_file("app.cfg") == b"mode = slow\r\nretries = 1\r\nretries = 1\r\n"

  # A model's \n matches the file's \r\n.
  done = await edit.run_async(args={"path": "app.cfg", "old_string": "slow\nretries", "new_string": "fast\nretries"},
                              tool_context=None)
  assert done == {"status": "ok", "message": "app.cfg changed."}
  assert await env.read_file("app.cfg") == b"mode = fast\nretries = 1\r\nretries = 1\r\n"


def test_the_sync_runner_runs_commands_on_its_own_loop(tmp_path):
  from google.genai import types

  model = ScriptedModel([call("Execute", command="echo from a worker loop"), "done"])
  runner = runner_for(model, LocalEnvironment(working_dir=tmp_path))

  runner.session_service.create_session_sync(app_name="env", user_id="user", session_id="s")
  events = list(runner.run(user_id="user", session_id="s",
                           new_message=types.Content(role="user", parts=[types.Part(text="go")])))

  assert answers_sent(model) == [("Execute", {"status": "ok", "stdout": "from a worker loop\n"})]
  assert events[-1].text == "done"


async def test_a_command_still_running_at_the_timeout_is_answered_as_timed_out_with_what_it_printed(
    tmp_path, monkeypatch):
  from adk_nb.tools.environment import _execute_tool

  monkeypatch.setattr(_execute_tool, "DEFAULT_TIMEOUT", 3)  # 30 s in use; 3 s is ample for the echo
  model = ScriptedModel([call("Execute", command="echo waiting; sleep 300"), "It hung."])
  runner = runner_for(model, LocalEnvironment(working_dir=tmp_path))

  await run_turn(runner, "go")

  (name, answer), = answers_sent(model)
  assert answer["status"] == "error" and answer["error"] == "Stopped: the command was still running after 3 seconds."
  assert answer["stdout"] == "waiting\n" and answer["exit_code"] != 0
