"""E2BEnvironment: one E2B sandbox as the place commands run and files live."""

from __future__ import annotations

import logging
import os
from pathlib import Path, PurePosixPath
from typing import Any, Optional, Union

from ...environment import BaseEnvironment, ExecutionResult
from ...features import FeatureName, experimental
from .._sdk import require_sdk

logger = logging.getLogger(__name__)

_DEFAULT_IMAGE = "base"
_DEFAULT_TIMEOUT = 300
_SANDBOX_HOME = "/home/user"
_INSTALL = "e2b>=2,<3"


def _e2b() -> Any:
  return require_sdk("e2b", user="E2BEnvironment", install=_INSTALL)


@experimental(FeatureName.E2B_ENVIRONMENT)
class E2BEnvironment(BaseEnvironment):
  """A remote workspace in an E2B sandbox: created by `initialize()`, killed by `close()`.

  Constructs without the SDK; `initialize()` imports it (ImportError naming
  `pip install 'e2b>=2,<3'` when missing). The sandbox lives `timeout` seconds, renewed by every
  operation; one that expired while idle is replaced by a fresh sandbox on the next operation,
  with a warning, since its files and installs are gone. Relative paths resolve against
  `/home/user`.

  Args:
    image: E2B template name or id (default `base`).
    timeout: the sandbox's time to live in seconds, renewed on every operation.
    api_key: E2B API key; None uses `E2B_API_KEY`.
    env_vars: environment variables set inside the sandbox.
  """

  def __init__(self, *, image: str = _DEFAULT_IMAGE, timeout: int = _DEFAULT_TIMEOUT,
               api_key: Optional[str] = None, env_vars: Optional[dict[str, str]] = None) -> None:
    self._image = image
    self._timeout = timeout
    self._api_key = api_key
    self._env_vars = env_vars
    self._sandbox: Any = None

  @property
  def working_dir(self) -> Path:
    """`/home/user` inside the sandbox; RuntimeError before `initialize()`."""
    if self._sandbox is None:
      raise RuntimeError(_NOT_STARTED)
    return Path(_SANDBOX_HOME)

  async def initialize(self) -> None:
    """Creates the sandbox (once)."""
    if self._sandbox is None:
      self._sandbox = await self._create()
      self._is_initialized = True

  async def close(self) -> None:
    """Kills the sandbox."""
    if self._sandbox is not None:
      sandbox, self._sandbox = self._sandbox, None
      self._is_initialized = False
      await sandbox.kill()

  async def execute(self, command: str, *, timeout: Optional[float] = None) -> ExecutionResult:
    """Runs the command in the sandbox; a non-zero exit is a result, a timeout `timed_out=True` (exit -1)."""
    sdk = _e2b()
    sandbox = await self._active()
    try:
      result = await sandbox.commands.run(command, timeout=timeout)
    except sdk.CommandExitException as exc:
      return ExecutionResult(exit_code=exc.exit_code, stdout=exc.stdout, stderr=exc.stderr)
    except sdk.TimeoutException:
      return ExecutionResult(exit_code=-1, timed_out=True)
    return ExecutionResult(exit_code=result.exit_code, stdout=result.stdout, stderr=result.stderr)

  async def read_file(self, path: Union[str, "os.PathLike[str]"]) -> bytes:
    """The file's bytes; FileNotFoundError when the sandbox has no such file."""
    sdk = _e2b()
    sandbox = await self._active()
    resolved = self._resolve(path)
    try:
      return bytes(await sandbox.files.read(resolved, format="bytes"))
    except sdk.FileNotFoundException as exc:
      raise FileNotFoundError(resolved) from exc

  async def write_file(self, path: Union[str, "os.PathLike[str]"], content: Union[str, bytes]) -> None:
    """Writes the file in the sandbox (E2B creates parent folders)."""
    sandbox = await self._active()
    await sandbox.files.write(self._resolve(path), content)

  async def _create(self) -> Any:
    sdk = _e2b()
    return await sdk.AsyncSandbox.create(template=self._image, timeout=self._timeout, envs=self._env_vars,
                                         api_key=self._api_key)

  async def _active(self) -> Any:
    if self._sandbox is None:
      raise RuntimeError(_NOT_STARTED)
    if await self._sandbox.is_running():
      await self._sandbox.set_timeout(self._timeout)  # keep an actively used workspace alive
    else:
      logger.warning("The E2B sandbox expired while idle; a fresh one replaces it (its files and installs are lost).")
      self._sandbox = await self._create()
    return self._sandbox

  @staticmethod
  def _resolve(path: Union[str, "os.PathLike[str]"]) -> str:
    pure = PurePosixPath(os.fspath(path))
    return str(pure if pure.is_absolute() else PurePosixPath(_SANDBOX_HOME) / pure)


_NOT_STARTED = "The E2B sandbox is not started: `await environment.initialize()` first."
