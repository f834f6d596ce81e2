"""DaytonaEnvironment: one Daytona sandbox as the place commands run and files live."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any, Optional, Union

from ...environment import BaseEnvironment, ExecutionResult
from ...features import FeatureName, experimental
from .._sdk import require_sdk

_DEFAULT_TIMEOUT = 300
_SANDBOX_HOME = "/workspaces"
_INSTALL = "daytona>=0.191"


def _daytona() -> Any:
  return require_sdk("daytona", user="DaytonaEnvironment", install=_INSTALL)


@experimental(FeatureName.DAYTONA_ENVIRONMENT)
class DaytonaEnvironment(BaseEnvironment):
  """A remote workspace in a Daytona sandbox: created by `initialize()`, deleted by `close()`.

  Constructs without the SDK; `initialize()` imports it (ImportError naming
  `pip install 'daytona>=0.191'` when missing) and creates the sandbox from `image`, or from
  Daytona's default Python snapshot. Relative paths resolve against `/workspaces`. Daytona
  returns a command's stderr merged into its stdout, so `ExecutionResult.stderr` stays empty.

  Args:
    image: Daytona image (name or `daytona.Image`) to create the sandbox from.
    timeout: seconds a command may run when `execute` gets none; also the sandbox's idle
      auto-stop, in whole minutes (at least one).
    api_key / api_url: Daytona credentials and endpoint; None uses the SDK's environment
      variables (`DAYTONA_API_KEY`, ...) and Daytona Cloud.
    env_vars: environment variables set inside the sandbox.
  """

  def __init__(self, *, image: Any = None, timeout: int = _DEFAULT_TIMEOUT, api_key: Optional[str] = None,
               api_url: Optional[str] = None, env_vars: Optional[dict[str, str]] = None) -> None:
    self._image = image
    self._timeout = timeout
    self._api_key = api_key
    self._api_url = api_url
    self._env_vars = env_vars
    self._sandbox: Any = None
    self._client: Any = None

  @property
  def working_dir(self) -> Path:
    """`/workspaces` inside the sandbox; RuntimeError before `initialize()`."""
    self._started()
    return Path(_SANDBOX_HOME)

  async def initialize(self) -> None:
    """Creates the sandbox (once)."""
    if self._sandbox is not None:
      return
    sdk = _daytona()
    config = {key: value for key, value in (("api_key", self._api_key), ("api_url", self._api_url)) if value}
    self._client = sdk.AsyncDaytona(config=sdk.DaytonaConfig(**config) if config else None)
    minutes = self._timeout // 60
    if self._timeout > 0 and minutes == 0:
      minutes = 1
    common = dict(env_vars=self._env_vars or {}, auto_stop_interval=minutes, auto_delete_interval=0)
    if self._image:
      params = sdk.CreateSandboxFromImageParams(image=self._image, **common)
    else:
      params = sdk.CreateSandboxFromSnapshotParams(language="python", **common)
    self._sandbox = await self._client.create(params)
    self._is_initialized = True

  async def close(self) -> None:
    """Deletes the sandbox and closes the client's connections."""
    if self._sandbox is None:
      return
    sandbox, client = self._sandbox, self._client
    self._sandbox = self._client = None
    self._is_initialized = False
    try:
      await sandbox.delete()
    finally:
      if client is not None:
        await client.close()

  async def execute(self, command: str, *, timeout: Optional[float] = None) -> ExecutionResult:
    """Runs the command in the sandbox; a Daytona timeout comes back as `timed_out=True`, exit code -1."""
    sandbox = await self._active()
    try:
      response = await sandbox.process.exec(command=command,
                                            timeout=int(timeout) if timeout is not None else self._timeout)
    except Exception as exc:
      if isinstance(exc, _daytona().DaytonaError) and "timeout" in str(exc).lower():
        return ExecutionResult(exit_code=-1, timed_out=True)
      raise
    artifacts = getattr(response, "artifacts", None)
    return ExecutionResult(exit_code=response.exit_code or 0, stdout=(artifacts.stdout if artifacts else "") or "")

  async def read_file(self, path: Union[str, "os.PathLike[str]"]) -> bytes:
    """The file's bytes; FileNotFoundError when the sandbox has no such file."""
    sandbox = await self._active()
    resolved = self._resolve(path)
    try:
      content = await sandbox.fs.download_file(resolved)
    except Exception as exc:
      if isinstance(exc, _daytona().DaytonaNotFoundError):
        raise FileNotFoundError(resolved) from exc
      raise
    if content is None:
      raise FileNotFoundError(resolved)
    return bytes(content)

  async def write_file(self, path: Union[str, "os.PathLike[str]"], content: Union[str, bytes]) -> None:
    """Uploads the file, creating its parent folders first (str as UTF-8)."""
    sandbox = await self._active()
    resolved = PurePosixPath(self._resolve(path))
    parts = resolved.parent.parts
    for depth in range(2, len(parts) + 1):  # '/', then each folder below it
      try:
        await sandbox.fs.create_folder(str(PurePosixPath(*parts[:depth])), mode="755")
      except Exception:  # it exists already (DaytonaConflictError), or a real problem that fails the upload below
        pass
    await sandbox.fs.upload_file(content.encode("utf-8") if isinstance(content, str) else content, str(resolved))

  def _started(self) -> Any:
    if self._sandbox is None:
      raise RuntimeError("The Daytona sandbox is not started: `await environment.initialize()` first.")
    return self._sandbox

  async def _active(self) -> Any:
    sandbox = self._started()
    await sandbox.refresh_activity()
    return sandbox

  @staticmethod
  def _resolve(path: Union[str, "os.PathLike[str]"]) -> str:
    pure = PurePosixPath(os.fspath(path))
    return str(pure if pure.is_absolute() else PurePosixPath(_SANDBOX_HOME) / pure)
