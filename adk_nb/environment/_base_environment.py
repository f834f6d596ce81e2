"""The interface every environment implements, and what a command's run returns."""

from __future__ import annotations

import dataclasses
import os
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Optional, Union

from ..features import experimental

PathLike = Union[str, "os.PathLike[str]"]


@dataclasses.dataclass
class ExecutionResult:
  """What one shell command did: its exit code, its output, and whether it ran out of time."""

  exit_code: int = 0
  """The process's exit code (negative: killed by that signal, as `subprocess` reports it)."""
  stdout: str = ""
  """Everything the command wrote to standard output (decoded as UTF-8, bad bytes replaced)."""
  stderr: str = ""
  """Everything the command wrote to standard error."""
  timed_out: bool = False
  """True when the command was still running at the timeout and was killed."""


@experimental
class BaseEnvironment(ABC):
  """A place to run shell commands and read and write files, relative to one working directory.

  Lifecycle, as in google-adk: construct it, `await initialize()` before first use (an
  `EnvironmentToolset` does this on the first model call), use `execute` / `read_file` /
  `write_file`, then `await close()` (`Runner.close()` closes the toolset, which closes its
  environment). `initialize` and `close` are safe to call twice.
  """

  _is_initialized: bool = False

  @property
  def is_initialized(self) -> bool:
    """Whether `initialize()` has run (and `close()` has not since)."""
    return self._is_initialized

  @is_initialized.setter
  def is_initialized(self, value: bool) -> None:
    self._is_initialized = value

  async def initialize(self) -> None:
    """Prepares the environment (creates the working directory, starts a sandbox). Default: nothing."""

  async def close(self) -> None:
    """Releases what the environment holds (a temporary directory, a sandbox). Default: nothing."""

  @property
  @abstractmethod
  def working_dir(self) -> Path:
    """The absolute path commands run in and relative file paths are resolved against."""

  @abstractmethod
  async def execute(self, command: str, *, timeout: Optional[float] = None) -> ExecutionResult:
    """Runs `command` with a shell in the working directory; `timeout` seconds at most (None: no limit).

    A non-zero exit is a result (`exit_code`, `stderr`), not an exception; a command still
    running at the timeout is killed and comes back with `timed_out=True`.
    """

  @abstractmethod
  async def read_file(self, path: PathLike) -> bytes:
    """The bytes of the file at `path` (absolute or relative to the working directory).

    Raises FileNotFoundError when there is no such file.
    """

  @abstractmethod
  async def write_file(self, path: PathLike, content: Union[str, bytes]) -> None:
    """Creates or replaces the file at `path`, creating missing parent directories (str is written as UTF-8)."""
