"""BaseComputer: the browser actions a computer-use model may take, and what each returns."""

# No `from __future__ import annotations`: the tools are built from these signatures at run time.
import abc
from enum import Enum
from typing import TYPE_CHECKING, Literal, Optional

import pydantic

from ...features import FeatureName, experimental

if TYPE_CHECKING:
  from ..tool_context import ToolContext


@experimental(FeatureName.COMPUTER_USE)
class ComputerEnvironment(str, Enum):
  """Where the actions happen (the model's `computer_use.environment`)."""

  ENVIRONMENT_UNSPECIFIED = "ENVIRONMENT_UNSPECIFIED"
  """Unspecified: models treat it as a browser."""
  ENVIRONMENT_BROWSER = "ENVIRONMENT_BROWSER"
  """A web browser."""


@experimental(FeatureName.COMPUTER_USE)
class ComputerState(pydantic.BaseModel):
  """What the model sees after an action: a PNG screenshot and the page's URL."""

  screenshot: bytes = pydantic.Field(default=None, description="The screen after the action, as PNG bytes")
  """The screen after the action, PNG bytes."""
  url: Optional[str] = pydantic.Field(default=None, description="Address of the page shown")
  """The page's URL after the action."""


@experimental(FeatureName.COMPUTER_USE)
class BaseComputer(abc.ABC):
  """A browser a model drives: implement the abstract actions; each returns the `ComputerState` after it.

  Coordinates arrive in screen pixels: `ComputerUseTool` scales the model's 1000x1000 grid to
  `screen_size()` first.
  """

  async def prepare(self, tool_context: "ToolContext") -> None:
    """Runs before every action with the call's context (bind per-session resources here). Default: nothing."""

  @abc.abstractmethod
  async def screen_size(self) -> tuple[int, int]:
    """The screen's (width, height) in pixels."""

  @abc.abstractmethod
  async def open_web_browser(self) -> ComputerState:
    """Opens the web browser."""

  @abc.abstractmethod
  async def click_at(self, x: int, y: int) -> ComputerState:
    """Clicks at pixel (x, y)."""

  @abc.abstractmethod
  async def hover_at(self, x: int, y: int) -> ComputerState:
    """Moves the pointer to pixel (x, y), e.g. to open a menu that appears on hover."""

  @abc.abstractmethod
  async def type_text_at(self, x: int, y: int, text: str, press_enter: bool = True,
                         clear_before_typing: bool = True) -> ComputerState:
    """Clicks at pixel (x, y) and types `text`, clearing the field first and pressing Enter after by default.

    Args:
      x: The x-coordinate to type at.
      y: The y-coordinate to type at.
      text: The text to type.
      press_enter: Whether to press Enter after typing.
      clear_before_typing: Whether to clear the field before typing.
    """

  async def type_text(self, text: str, press_enter: bool = False) -> ComputerState:
    """Types `text` into the focused element.

    The default presses each character with `key_combination([char])` (one screenshot per
    character) and Enter when asked; override it with your browser's bulk text input.
    """
    state: Optional[ComputerState] = None
    for char in text:
      state = await self.key_combination([char])
    if press_enter:
      state = await self.key_combination(["Enter"])
    return state if state is not None else await self.current_state()

  @abc.abstractmethod
  async def scroll_document(self, direction: Literal["up", "down", "left", "right"]) -> ComputerState:
    """Scrolls the whole page in `direction`."""

  @abc.abstractmethod
  async def scroll_at(self, x: int, y: int, direction: Literal["up", "down", "left", "right"],
                      magnitude: int) -> ComputerState:
    """Scrolls the element at pixel (x, y) in `direction` by `magnitude` pixels."""

  @abc.abstractmethod
  async def wait(self, seconds: int) -> ComputerState:
    """Waits `seconds` for the page to finish what it is doing."""

  @abc.abstractmethod
  async def go_back(self) -> ComputerState:
    """Goes back one page in the browser's history."""

  @abc.abstractmethod
  async def go_forward(self) -> ComputerState:
    """Goes forward one page in the browser's history."""

  @abc.abstractmethod
  async def search(self) -> ComputerState:
    """Opens a search engine's home page (to start a new search)."""

  @abc.abstractmethod
  async def navigate(self, url: str) -> ComputerState:
    """Opens `url`."""

  @abc.abstractmethod
  async def key_combination(self, keys: list[str]) -> ComputerState:
    """Presses `keys` together, e.g. ["control", "c"] or ["enter"]."""

  @abc.abstractmethod
  async def drag_and_drop(self, x: int, y: int, destination_x: int, destination_y: int) -> ComputerState:
    """Drags from pixel (x, y) and drops at pixel (destination_x, destination_y)."""

  @abc.abstractmethod
  async def current_state(self) -> ComputerState:
    """The current screenshot and URL."""

  async def initialize(self) -> None:
    """Prepares the computer before first use (`ComputerUseToolset` calls it once). Default: nothing."""

  async def close(self) -> None:
    """Releases the computer's resources. Default: nothing."""

  @abc.abstractmethod
  async def environment(self) -> ComputerEnvironment:
    """Where the actions happen (a browser)."""
