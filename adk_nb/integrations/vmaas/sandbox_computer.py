"""AgentEngineSandboxComputer: a Vertex AI Agent Engine browser sandbox as a BaseComputer (actions not ported)."""

from __future__ import annotations

import collections
import contextvars
from typing import TYPE_CHECKING, Any, Literal, Optional

from ...features import FeatureName, experimental
from ...tools.computer_use.base_computer import BaseComputer, ComputerEnvironment, ComputerState
from .._sdk import require_sdk

if TYPE_CHECKING:
  from ...tools.tool_context import ToolContext

_MAX_REMEMBERED_SESSIONS = 1024
_INSTALL = "google-cloud-agentplatform[agent-engines]>=2.2,<3"
_bound_resources: contextvars.ContextVar[Optional[dict]] = contextvars.ContextVar(
    "adk_nb_vmaas_bound_resources", default=None)


@experimental(FeatureName.COMPUTER_USE)
class AgentEngineSandboxComputer(BaseComputer):
  """A remote browser in a Vertex AI Agent Engine sandbox (google-adk 2.13's arguments and lifecycle).

  Constructing it, `initialize()`, `close()`, `screen_size()` (1280x720), `environment()` and
  `prepare()` (which binds the calling session's sandbox record) need no Google Cloud access, so an
  agent using it builds and answers turns in which the model takes no browser action. The browser
  actions themselves are not ported to adk_nb: the first one raises ImportError naming the
  Agent Platform SDK's `pip install` when it is missing, and NotImplementedError otherwise
  (run such an agent on google-adk). Nothing is faked: no action ever reports success.

  Args: as google-adk's — `project_id`, `location`, `service_account_email`, `sandbox_name` (bring your
  own sandbox), `sandbox_template_name`, `sandbox_snapshot_name`, `sandbox_ttl_seconds`,
  `search_engine_url`, `vertexai_client`.
  """

  def __init__(self, *, project_id: Optional[str] = None, location: str = "us-central1",
               service_account_email: Optional[str] = None, sandbox_name: Optional[str] = None,
               sandbox_template_name: Optional[str] = None, sandbox_snapshot_name: Optional[str] = None,
               sandbox_ttl_seconds: int = 3600, search_engine_url: str = "https://www.google.com",
               vertexai_client: Any = None) -> None:
    self._project_id = project_id
    self._location = location
    self._service_account_email = service_account_email
    self._sandbox_name = sandbox_name
    self._sandbox_template_name = sandbox_template_name
    self._sandbox_snapshot_name = sandbox_snapshot_name
    self._sandbox_ttl_seconds = sandbox_ttl_seconds
    self._search_engine_url = search_engine_url
    self._screen_size = (1280, 720)
    self._client = vertexai_client
    # A sandbox lives under the reasoning engine that owns the given sandbox, template or snapshot.
    self._agent_engine_name: Optional[str] = None
    for resource in (sandbox_name, sandbox_template_name, sandbox_snapshot_name):
      engine = (resource or "").split("/sandboxEnvironment")[0]
      if resource and engine != resource and "/reasoningEngines/" in engine:
        self._agent_engine_name = engine
        break
    # Per session (app, user, id): kept here, never in session state a caller could write.
    self._resources_by_session: collections.OrderedDict = collections.OrderedDict()

  async def prepare(self, tool_context: "ToolContext") -> None:
    """Binds the sandbox record of the calling session for the action that follows."""
    session = tool_context.session
    key = (session.app_name, session.user_id, session.id)
    if key not in self._resources_by_session:
      self._resources_by_session[key] = {}
      if len(self._resources_by_session) > _MAX_REMEMBERED_SESSIONS:
        self._resources_by_session.popitem(last=False)
    _bound_resources.set(self._resources_by_session[key])

  async def screen_size(self) -> tuple[int, int]:
    return self._screen_size

  async def environment(self) -> ComputerEnvironment:
    return ComputerEnvironment.ENVIRONMENT_BROWSER

  async def initialize(self) -> None:
    """Nothing: the sandbox is provisioned on the first action (as in google-adk)."""

  async def close(self) -> None:
    """Nothing: sandboxes expire by their TTL (as in google-adk)."""

  def _unported(self, action: str) -> ComputerState:
    require_sdk("agentplatform", user="AgentEngineSandboxComputer", install=_INSTALL)
    raise NotImplementedError(
        f"AgentEngineSandboxComputer.{action}: adk_nb does not drive Agent Engine sandboxes yet (google-adk's "
        "sandbox client is not ported). Run this agent on google-adk, or implement BaseComputer over your "
        "own browser (e.g. Playwright).")

  async def open_web_browser(self) -> ComputerState:
    return self._unported("open_web_browser")

  async def click_at(self, x: int, y: int) -> ComputerState:
    return self._unported("click_at")

  async def hover_at(self, x: int, y: int) -> ComputerState:
    return self._unported("hover_at")

  async def type_text_at(self, x: int, y: int, text: str, press_enter: bool = True,
                         clear_before_typing: bool = True) -> ComputerState:
    return self._unported("type_text_at")

  async def type_text(self, text: str, press_enter: bool = False) -> ComputerState:
    return self._unported("type_text")

  async def scroll_document(self, direction: Literal["up", "down", "left", "right"]) -> ComputerState:
    return self._unported("scroll_document")

  async def scroll_at(self, x: int, y: int, direction: Literal["up", "down", "left", "right"],
                      magnitude: int) -> ComputerState:
    return self._unported("scroll_at")

  async def wait(self, seconds: int) -> ComputerState:
    return self._unported("wait")

  async def go_back(self) -> ComputerState:
    return self._unported("go_back")

  async def go_forward(self) -> ComputerState:
    return self._unported("go_forward")

  async def search(self) -> ComputerState:
    return self._unported("search")

  async def navigate(self, url: str) -> ComputerState:
    return self._unported("navigate")

  async def key_combination(self, keys: list[str]) -> ComputerState:
    return self._unported("key_combination")

  async def drag_and_drop(self, x: int, y: int, destination_x: int, destination_y: int) -> ComputerState:
    return self._unported("drag_and_drop")

  async def current_state(self) -> ComputerState:
    return self._unported("current_state")
