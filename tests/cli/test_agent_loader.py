"""The one agent loader behind run, api_server and eval: folders, modules, .env, and its errors."""

import os
import textwrap

import pytest

from adk_nb.cli.agent_loader import (AgentImportError, MissingRootAgentError, NotAnAgentFolderError, agent_folders,
                                     load_agent_folder, parse_dotenv)
from adk_nb.evaluation.agent_loader import load_agent

from .conftest import write_agent

SIMPLE = textwrap.dedent('''
    import os
    from adk_nb import Agent
    from adk_nb.models import ScriptedModel
    root_agent = Agent(name="simple", model=ScriptedModel(["hi"]), description=os.environ.get("GREETING", ""))
''')


def test_a_package_folder_loads_root_agent_and_its_app_name(tmp_path):
  folder = write_agent(tmp_path, "hello_agent", SIMPLE)
  loaded = load_agent_folder(folder)
  assert (loaded.name, loaded.agent.name, loaded.app, loaded.path) == ("hello_agent", "simple", None, folder)
  assert load_agent(str(folder))[0] is loaded.agent  # eval goes through the same loader


def test_an_app_wins_over_root_agent(tmp_path):
  source = SIMPLE + "from adk_nb.apps import App\napp = App(name='hello_app', root_agent=root_agent)\n"
  loaded = load_agent_folder(write_agent(tmp_path, "with_app", source))
  assert loaded.app is not None and loaded.app.root_agent is loaded.agent and loaded.target is loaded.app


def test_dotenv_is_loaded_first_without_overriding_the_environment(tmp_path, monkeypatch):
  monkeypatch.delenv("GREETING", raising=False)
  monkeypatch.setenv("ALREADY", "kept")
  (tmp_path / ".env").write_text("# comment\nexport GREETING='from dotenv'\nALREADY=overridden\n")
  folder = write_agent(tmp_path, "env_agent", SIMPLE)
  try:
    assert load_agent_folder(folder).agent.description == "from dotenv"
    assert os.environ["ALREADY"] == "kept"
  finally:
    os.environ.pop("GREETING", None)


def test_parse_dotenv_handles_quotes_comments_and_export():
  assert parse_dotenv('A=1\n export B = "two words"\nC=x # note\n#D=no\nbad line\n') == {
      "A": "1", "B": "two words", "C": "x"}


def test_a_missing_root_agent_names_the_fix(tmp_path):
  folder = write_agent(tmp_path, "empty_agent", "x = 1\n")
  with pytest.raises(MissingRootAgentError, match="defines no root_agent; add `root_agent = Agent"):
    load_agent_folder(folder)


def test_an_error_in_the_users_code_comes_with_their_traceback(tmp_path):
  folder = write_agent(tmp_path, "broken_agent", "def helper():\n  return 1 / 0\n\nhelper()\n")
  with pytest.raises(AgentImportError) as info:
    load_agent_folder(folder)
  message = str(info.value)
  assert "ZeroDivisionError" in message and str(folder / "agent.py") in message and "return 1 / 0" in message
  assert "importlib" not in message


def test_a_missing_dependency_of_the_users_code_is_an_import_error(tmp_path):
  folder = write_agent(tmp_path, "needs_pkg", "import no_such_package_xyz\n")
  with pytest.raises(AgentImportError, match="no_such_package_xyz"):
    load_agent_folder(folder)


def test_a_folder_that_is_not_a_package_is_refused(tmp_path):
  (tmp_path / "notes").mkdir()
  (tmp_path / "notes" / "readme.txt").write_text("hi")
  with pytest.raises(NotAnAgentFolderError, match="not a Python package"):
    load_agent_folder(tmp_path / "notes")
  with pytest.raises(NotAnAgentFolderError, match="holds no agent folder"):
    agent_folders(tmp_path / "notes")


def test_two_folders_with_the_same_name_each_load_their_own_agent(tmp_path):
  first = write_agent(tmp_path / "a", "twin", SIMPLE)
  second = write_agent(tmp_path / "b", "twin", SIMPLE.replace('name="simple"', 'name="other"'))
  assert load_agent_folder(first).agent.name == "simple"
  assert load_agent_folder(second).agent.name == "other"


def test_a_folder_of_agent_folders_lists_each(tmp_path):
  write_agent(tmp_path, "one", SIMPLE)
  write_agent(tmp_path, "two", SIMPLE)
  (tmp_path / ".hidden").mkdir()
  assert [p.name for p in agent_folders(tmp_path)] == ["one", "two"]
