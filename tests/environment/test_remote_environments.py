"""Daytona and E2B environments: constructible without their SDKs (as google-adk's), never a fake success.

The SDKs are optional and absent from the test environment; the mapping of SDK results to
ExecutionResult is checked against small in-test stand-ins for the SDK modules.
"""

import sys
import types as pytypes

import pytest

from adk_nb import Agent
from adk_nb.environment import BaseEnvironment
from adk_nb.integrations.daytona import DaytonaEnvironment
from adk_nb.integrations.e2b import E2BEnvironment
from adk_nb.models import ScriptedModel
from adk_nb.runners import InMemoryRunner
from adk_nb.testing import run_turn
from adk_nb.tools.environment import EnvironmentToolset

MISSING = [(DaytonaEnvironment, "daytona", "pip install 'daytona>=0.191'"),
           (E2BEnvironment, "e2b", "pip install 'e2b>=2,<3'")]


@pytest.fixture
def without_sdk(monkeypatch):
  for name in ("daytona", "e2b"):
    monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError, installed or not


@pytest.mark.parametrize("cls,module,install", MISSING)
async def test_without_its_sdk_the_environment_constructs_and_first_use_names_the_install(
    without_sdk, cls, module, install):
  env = cls()
  assert isinstance(env, BaseEnvironment) and not env.is_initialized
  with pytest.raises(RuntimeError, match=r"initialize\(\)` first"):
    env.working_dir

  with pytest.raises(ImportError, match=f"needs the `{module}` package.*{__import__('re').escape(install)}"):
    await env.initialize()
  assert not env.is_initialized


@pytest.mark.parametrize("cls,module,install", MISSING)
async def test_a_turn_with_a_missing_sdk_fails_with_the_install_instead_of_answering(without_sdk, cls, module,
                                                                                     install):
  model = ScriptedModel(["never said"])
  runner = InMemoryRunner(Agent(name="a", model=model, tools=[EnvironmentToolset(environment=cls())]), app_name="r")

  with pytest.raises(ImportError, match="pip install"):
    await run_turn(runner, "hi")
  assert model.requests == []  # the model was never called with tools that cannot work


class _E2BExit(Exception):
  def __init__(self, exit_code, stdout, stderr):
    super().__init__(stderr)
    self.exit_code, self.stdout, self.stderr = exit_code, stdout, stderr


class _FakeE2BSandbox:
  """Stands in for e2b.AsyncSandbox: one command fails, one times out, files live in a dict."""

  created = []

  def __init__(self, **kwargs):
    self.kwargs, self.files_by_path, self.alive = kwargs, {}, True
    self.commands = pytypes.SimpleNamespace(run=self._run)
    self.files = pytypes.SimpleNamespace(read=self._read, write=self._write)

  @classmethod
  async def create(cls, **kwargs):
    cls.created.append(cls(**kwargs))
    return cls.created[-1]

  async def is_running(self):
    return self.alive

  async def set_timeout(self, seconds):
    self.kwargs["renewed"] = seconds

  async def kill(self):
    self.alive = False

  async def _run(self, command, timeout=None):
    if command == "false":
      raise _E2BExit(1, "", "it failed\n")
    if command == "sleep":
      raise sys.modules["e2b"].TimeoutException()
    return pytypes.SimpleNamespace(exit_code=0, stdout=f"ran {command}\n", stderr="")

  async def _read(self, path, format):
    if path not in self.files_by_path:
      raise sys.modules["e2b"].FileNotFoundException(path)
    return self.files_by_path[path]

  async def _write(self, path, content):
    self.files_by_path[path] = content.encode() if isinstance(content, str) else content


async def test_e2b_results_map_to_execution_results_and_paths_to_the_sandbox_home(monkeypatch):
  sdk = pytypes.ModuleType("e2b")
  sdk.AsyncSandbox, sdk.CommandExitException = _FakeE2BSandbox, _E2BExit
  sdk.TimeoutException = type("TimeoutException", (Exception,), {})
  sdk.FileNotFoundException = type("FileNotFoundException", (Exception,), {})
  monkeypatch.setitem(sys.modules, "e2b", sdk)
  _FakeE2BSandbox.created.clear()
  env = E2BEnvironment(timeout=120, env_vars={"A": "1"})

  await env.initialize()
  ok, failed, slow = await env.execute("ls"), await env.execute("false"), await env.execute("sleep", timeout=1)
  await env.write_file("data/x.txt", "hi")

  assert (ok.exit_code, ok.stdout) == (0, "ran ls\n")
  assert (failed.exit_code, failed.stderr, failed.timed_out) == (1, "it failed\n", False)
  assert (slow.exit_code, slow.timed_out) == (-1, True)
  assert await env.read_file("/home/user/data/x.txt") == b"hi"
  with pytest.raises(FileNotFoundError):
    await env.read_file("missing")
  sandbox, = _FakeE2BSandbox.created
  assert sandbox.kwargs == {"template": "base", "timeout": 120, "envs": {"A": "1"}, "api_key": None, "renewed": 120}
  await env.close()
  assert not sandbox.alive and not env.is_initialized


class _FakeDaytonaSandbox:
  """Stands in for daytona.AsyncSandbox: exec answers from a table, files live in a dict."""

  def __init__(self, sdk):
    self.sdk, self.files_by_path, self.folders, self.deleted, self.refreshed = sdk, {}, [], False, 0
    self.process = pytypes.SimpleNamespace(exec=self._exec)
    self.fs = pytypes.SimpleNamespace(download_file=self._download, upload_file=self._upload,
                                      create_folder=self._folder)

  async def refresh_activity(self):
    self.refreshed += 1

  async def delete(self):
    self.deleted = True

  async def _exec(self, command, timeout):
    if command == "sleep":
      raise self.sdk.DaytonaError(f"Request timeout after {timeout}s")
    if command == "boom":
      raise self.sdk.DaytonaError("sandbox unreachable")
    code = 3 if command == "false" else 0
    return pytypes.SimpleNamespace(exit_code=code, artifacts=pytypes.SimpleNamespace(stdout=f"out of {command}\n"))

  async def _download(self, path):
    if path not in self.files_by_path:
      raise self.sdk.DaytonaNotFoundError(path)
    return self.files_by_path[path]

  async def _upload(self, content, path):
    self.files_by_path[path] = content

  async def _folder(self, path, mode):
    if path in self.folders:
      raise self.sdk.DaytonaConflictError(path)
    self.folders.append(path)


async def test_daytona_results_map_to_execution_results_and_the_sandbox_is_deleted_on_close(monkeypatch):
  sdk = pytypes.ModuleType("daytona")
  sdk.DaytonaError = type("DaytonaError", (Exception,), {})
  sdk.DaytonaNotFoundError = type("DaytonaNotFoundError", (sdk.DaytonaError,), {})
  sdk.DaytonaConflictError = type("DaytonaConflictError", (sdk.DaytonaError,), {})
  sdk.DaytonaConfig = lambda **kw: ("config", kw)
  sdk.CreateSandboxFromSnapshotParams = lambda **kw: ("snapshot", kw)
  sdk.CreateSandboxFromImageParams = lambda **kw: ("image", kw)
  made = []

  class AsyncDaytona:
    def __init__(self, config):
      self.config, self.closed = config, False
      made.append(self)

    async def create(self, params):
      self.params, self.sandbox = params, _FakeDaytonaSandbox(sdk)
      return self.sandbox

    async def close(self):
      self.closed = True

  sdk.AsyncDaytona = AsyncDaytona
  monkeypatch.setitem(sys.modules, "daytona", sdk)
  env = DaytonaEnvironment(timeout=90, api_key="k", env_vars={"A": "1"})

  await env.initialize()
  client, = made
  assert client.config == ("config", {"api_key": "k"})
  assert client.params == ("snapshot", {"language": "python", "env_vars": {"A": "1"}, "auto_stop_interval": 1,
                                        "auto_delete_interval": 0})
  assert str(env.working_dir) == "/workspaces"
  ok, failed, slow = await env.execute("ls"), await env.execute("false"), await env.execute("sleep", timeout=5)
  assert (ok.exit_code, ok.stdout, ok.stderr) == (0, "out of ls\n", "")  # Daytona merges stderr into stdout
  assert (failed.exit_code, failed.timed_out) == (3, False)
  assert (slow.exit_code, slow.timed_out) == (-1, True)
  with pytest.raises(sdk.DaytonaError, match="unreachable"):  # other failures are not disguised as results
    await env.execute("boom")

  await env.write_file("data/x.txt", "hi")
  await env.write_file("data/y.txt", b"\x00")
  assert client.sandbox.folders == ["/workspaces", "/workspaces/data"]
  assert await env.read_file("/workspaces/data/x.txt") == b"hi"
  with pytest.raises(FileNotFoundError):
    await env.read_file("missing")

  await env.close()
  assert client.sandbox.deleted and client.closed and not env.is_initialized
