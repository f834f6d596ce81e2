"""EnvironmentToolset: an environment offered to a model as Execute, ReadFile, EditFile and WriteFile."""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any, Optional

from ...features import experimental
from ..base_toolset import BaseToolset
from ._constants import ENVIRONMENT_INSTRUCTION
from ._edit_file_tool import EditFileTool
from ._execute_tool import ExecuteTool
from ._read_file_tool import ReadFileTool
from ._write_file_tool import WriteFileTool

if TYPE_CHECKING:
  from ...agents.readonly_context import ReadonlyContext
  from ...environment import BaseEnvironment
  from ...models.llm_request import LlmRequest
  from ..base_tool import BaseTool
  from ..tool_context import ToolContext


@experimental
class EnvironmentToolset(BaseToolset):
  """Gives a model an environment: `Execute` (shell, 30 s), `ReadFile`, `EditFile`, `WriteFile`.

  The environment is initialized on the first model call (a `LocalEnvironment()` creates its
  temporary directory then) and closed by `close()` (`Runner.close()` calls it). Every model
  request gets the environment instruction (adk_nb's wording, google-adk's tool names): where the
  working directory is and which tool to use for what.

  Args:
    environment: where commands run and files live (`LocalEnvironment`, `DaytonaEnvironment`, ...).
    max_output_chars: characters of stdout / stderr / file content returned per call before the
      truncation notice (default 30,000).
    **kwargs: `tool_filter` and `tool_name_prefix`, as for any toolset.
  """

  def __init__(self, *, environment: "BaseEnvironment", max_output_chars: Optional[int] = None,
               **kwargs: Any) -> None:
    super().__init__(**kwargs)
    self._environment = environment
    self._max_output_chars = max_output_chars
    self._environment_initialized = False
    # One lock per event loop: a toolset may serve runs on several loops (Runner.run's worker, a kernel).
    self._init_locks: dict[asyncio.AbstractEventLoop, asyncio.Lock] = {}
    self._init_locks_guard = threading.Lock()

  @property
  def environment(self) -> "BaseEnvironment":
    """The environment the tools act on."""
    return self._environment

  def _init_lock(self) -> asyncio.Lock:
    loop = asyncio.get_running_loop()
    with self._init_locks_guard:
      lock = self._init_locks.get(loop)
      if lock is None:
        for closed in [known for known in self._init_locks if known.is_closed()]:
          del self._init_locks[closed]
        lock = self._init_locks[loop] = asyncio.Lock()
      return lock

  async def _ensure_initialized(self) -> None:
    if self._environment_initialized:
      return
    async with self._init_lock():
      if not self._environment_initialized:
        await self._environment.initialize()
        self._environment_initialized = True

  async def get_tools(self, readonly_context: Optional["ReadonlyContext"] = None) -> list["BaseTool"]:
    """The four tools (after `tool_filter`), the environment initialized first."""
    await self._ensure_initialized()
    tools: list[BaseTool] = [
        ExecuteTool(self._environment, max_output_chars=self._max_output_chars),
        ReadFileTool(self._environment, max_output_chars=self._max_output_chars),
        EditFileTool(self._environment),
        WriteFileTool(self._environment),
    ]
    return [tool for tool in tools if self._is_tool_selected(tool, readonly_context)]

  async def process_llm_request(self, *, tool_context: "ToolContext", llm_request: "LlmRequest") -> None:
    """Adds the environment instruction (its working directory and the rules) to the request."""
    await self._ensure_initialized()
    llm_request.append_instructions([ENVIRONMENT_INSTRUCTION.format(working_dir=self._environment.working_dir)])

  async def close(self) -> None:
    """Closes the environment if this toolset initialized it (a temporary working directory is deleted)."""
    async with self._init_lock():
      if self._environment_initialized:
        await self._environment.close()
        self._environment_initialized = False
    await super().close()

  def __getstate__(self) -> dict[str, Any]:
    state = dict(self.__dict__)
    state.pop("_init_locks_guard", None)
    state["_init_locks"] = {}
    state["_environment_initialized"] = False
    return state

  def __setstate__(self, state: dict[str, Any]) -> None:
    self.__dict__.update(state)
    self._init_locks = {}
    self._init_locks_guard = threading.Lock()
