"""ComputerUseToolset: a BaseComputer's actions as the predefined functions of a computer-use model."""

# No `from __future__ import annotations`: the action shims below are turned into tools from their signatures.
import asyncio
import functools
import inspect
import logging
import math
import re
import threading
import weakref
from typing import TYPE_CHECKING, Any, Callable, Iterable, Literal, Optional, Union

from google.genai import types

from ...features import FeatureName, experimental
from ..base_toolset import BaseToolset
from ..tool_context import ToolContext
from . import _navigation
from .base_computer import BaseComputer, ComputerState
from .computer_use_tool import ComputerUseTool

if TYPE_CHECKING:
  from ...agents.readonly_context import ReadonlyContext
  from ...models.llm_request import LlmRequest

logger = logging.getLogger(__name__)

EXCLUDED_METHODS = {"screen_size", "environment", "close", "prepare"}
"""BaseComputer methods that are never offered as actions."""

# Older (Gemini 1.x / 2.x) action names and their Gemini 3.x counterparts: excluding one excludes the other.
_COUNTERPARTS: dict[str, frozenset] = {
    "click_at": frozenset({"click"}), "hover_at": frozenset({"move"}), "type_text_at": frozenset({"type"}),
    "type_text": frozenset({"type"}), "scroll_at": frozenset({"scroll"}), "scroll_document": frozenset(),
    "current_state": frozenset({"take_screenshot"}), "key_combination": frozenset({"press_key", "hotkey"}),
    "wait_5_seconds": frozenset({"wait"}),
    "click": frozenset({"click_at"}), "move": frozenset({"hover_at"}), "type": frozenset({"type_text_at"}),
    "scroll": frozenset({"scroll_at"}), "take_screenshot": frozenset({"current_state"}),
    "press_key": frozenset(), "hotkey": frozenset(), "wait": frozenset({"wait_5_seconds"}),
}
_OPTIONAL_MOUSE_ACTIONS = ("double_click", "triple_click", "middle_click", "right_click", "mouse_down", "mouse_up")
_OPTIONAL_KEY_ACTIONS = ("key_down", "key_up")
_LEGACY_NAMES = frozenset({"click_at", "hover_at", "type_text_at", "type_text", "scroll_at", "scroll_document",
                           "current_state", "key_combination", "wait_5_seconds"})
_MODERN_NAMES = frozenset({"click", "move", "type", "scroll", "take_screenshot", "press_key", "hotkey", "wait",
                           *_OPTIONAL_MOUSE_ACTIONS, *_OPTIONAL_KEY_ACTIONS})
_URL_REFUSED = "navigate refused: url must be http(s) and must not target a private or link-local address."


def _expand_exclusions(names: Iterable[str]) -> set:
  expanded = set(names)
  for name in list(expanded):
    expanded |= _COUNTERPARTS.get(name, frozenset())
  if {"type", "type_text_at", "type_text"} & expanded:
    expanded |= {"type", "type_text_at", "type_text"}
  if {"press_key", "hotkey"} <= expanded:  # key_combination goes only when both of its successors do
    expanded.add("key_combination")
  return expanded


def _gemini_major(model: Optional[str]) -> Optional[int]:
  """3 for 'gemini-3-pro' (also under a 'projects/.../models/' path); None for other names and aliases."""
  if not model:
    return None
  name = model.rsplit("models/", 1)[-1] if "models/" in model else model
  if not name.startswith("gemini-"):
    return None
  match = re.fullmatch(r"(\d+)(?:\.\d+)*(?:(?:a|b|rc)\d+)?", name[len("gemini-"):].split("-", 1)[0])
  return int(match.group(1)) if match else None


def _excluded_for_model(excluded: Optional[list], model: Optional[str], unimplemented: Iterable[str] = ()):
  """The exclusions in the action names of `model`'s generation (Gemini 1.x/2.x or 3.x and later)."""
  major = _gemini_major(model)
  if major is not None and major < 3:
    if excluded is None:
      return None
    both_keys = {"press_key", "hotkey"} <= set(excluded)
    out: list = []
    for name in excluded:
      if name in ("press_key", "hotkey"):
        if both_keys:
          out.append("key_combination")
      elif name == "type_text":
        out.append("type_text_at")
      elif name in _MODERN_NAMES:
        out.extend(sorted(_COUNTERPARTS.get(name, frozenset())))
      else:
        out.append(name)
    return list(dict.fromkeys(out))
  out = []
  for name in excluded or ():
    if name in _LEGACY_NAMES:
      out.extend(("press_key", "hotkey") if name == "key_combination" else sorted(_COUNTERPARTS.get(name, ())))
    else:
      out.append(name)
  if major is not None and major >= 3:
    out.extend(unimplemented)
  out = list(dict.fromkeys(out))
  return None if not out and excluded is None else out


# One lock per (computer, event loop): actions on one computer never interleave, whichever session runs them.
_ACTION_LOCKS: dict = {}
_ACTION_LOCKS_GUARD = threading.Lock()


def _action_lock(computer: BaseComputer) -> asyncio.Lock:
  loop = asyncio.get_running_loop()
  key = id(computer)
  with _ACTION_LOCKS_GUARD:
    entry = _ACTION_LOCKS.get(key)
    if entry is None or (entry[0] is not None and entry[0]() is not computer):
      try:
        ref = weakref.ref(computer, lambda _, key=key: _ACTION_LOCKS.pop(key, None))
      except TypeError:
        ref = None
      entry = _ACTION_LOCKS[key] = (ref, weakref.WeakKeyDictionary())
    locks = entry[1]
    lock = locks.get(loop)
    if lock is None:
      lock = locks[loop] = asyncio.Lock()
    return lock


@experimental(FeatureName.COMPUTER_USE)
class ComputerUseToolset(BaseToolset):
  """Offers a `BaseComputer` to a computer-use model.

  The model request gets `types.Tool(computer_use=ComputerUse(environment=..., excluded_predefined_functions=...))`;
  the model then calls predefined actions by name, both the older ones (`click_at`, `type_text_at`,
  `key_combination`, ...) and Gemini 3.x's (`click`, `type`, `press_key`, `hotkey`, ...), each mapped to
  the computer's method. Every action first takes the computer's lock and calls `computer.prepare()`.
  `navigate` refuses URLs that are not http(s) or that reach a private, loopback or link-local address
  (answered with an error and the current URL) unless `allow_private_network_access=True`.

  Args:
    computer: the browser.
    excluded_predefined_functions: actions not to offer, in either generation's names.
    allow_private_network_access: let `navigate` open localhost and internal hosts.
  """

  def __init__(self, *, computer: BaseComputer, excluded_predefined_functions: Optional[list] = None,
               allow_private_network_access: bool = False) -> None:
    super().__init__()
    self._computer = computer
    self._excluded_predefined_functions = excluded_predefined_functions
    self._allow_private_network_access = allow_private_network_access
    self._initialized = False
    self._closed = False
    self._tools: Optional[list] = None
    self._init_locks: dict = {}
    self._init_locks_guard = threading.Lock()

  def _init_lock(self) -> asyncio.Lock:
    loop = asyncio.get_running_loop()
    with self._init_locks_guard:
      for closed in [known for known in self._init_locks if known.is_closed()]:
        del self._init_locks[closed]
      lock = self._init_locks.get(loop)
      if lock is None:
        lock = self._init_locks[loop] = asyncio.Lock()
      return lock

  def __getstate__(self) -> dict:
    state = dict(self.__dict__)
    state.pop("_init_locks_guard", None)
    state.update(_init_locks={}, _initialized=False, _closed=False, _tools=None)
    return state

  def __setstate__(self, state: dict) -> None:
    self.__dict__.update(state)
    self._init_locks = {}
    self._init_locks_guard = threading.Lock()

  async def _ensure_initialized(self) -> None:
    if self._initialized:
      return
    async with self._init_lock():
      if not self._initialized:
        await self._computer.initialize()
        self._initialized, self._closed = True, False

  def _implements(self, name: str, required: tuple = (), optional: tuple = ()) -> bool:
    """Whether the computer's class has a coroutine `name` taking exactly these parameters."""
    attr = getattr(type(self._computer), name, None)
    if not inspect.iscoroutinefunction(attr):
      return False
    try:
      sig = inspect.signature(attr)
    except (TypeError, ValueError):
      return False
    ret = sig.return_annotation
    if ret is not inspect.Signature.empty and not (
        ret is ComputerState or (isinstance(ret, str) and ret.split(".")[-1] == "ComputerState")):
      return False
    params = [p for p in sig.parameters.values() if p.name != "self"]
    named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    var_kw = any(p.kind == p.VAR_KEYWORD for p in params)
    if any(r not in named for r in required) and not var_kw:
      return False
    allowed = set(optional) | {"intent", "tool_context"}
    for p in params:
      if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name in required:
        continue
      if p.kind == p.POSITIONAL_ONLY or p.default is p.empty or p.name not in allowed:
        return False
    return True

  def _unimplemented_modern_actions(self) -> list:
    missing = [a for a in _OPTIONAL_MOUSE_ACTIONS if not self._implements(a, ("x", "y"), ("button",))]
    return missing + [a for a in _OPTIONAL_KEY_ACTIONS if not self._implements(a, ("key",))]

  def _bound(self, method: Callable[..., Any], name: Optional[str] = None) -> Callable[..., Any]:
    """`method` as a tool function: under the computer's lock, after `prepare(tool_context)`."""
    computer = self._computer
    try:
      sig = inspect.signature(method)
    except (TypeError, ValueError):
      sig = inspect.Signature([inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                               inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])
    forwards_context = "tool_context" in sig.parameters and sig.parameters["tool_context"].kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)

    @functools.wraps(method)
    async def action(*args: Any, tool_context: Optional[ToolContext] = None, **kwargs: Any) -> Any:
      async with _action_lock(computer):
        if tool_context is not None:
          await computer.prepare(tool_context)
        if forwards_context:
          return await method(*args, tool_context=tool_context, **kwargs)
        return await method(*args, **kwargs)

    action.__name__ = action.__qualname__ = name or method.__name__
    plain = [p for p in sig.parameters.values() if p.name != "tool_context" and p.kind != p.VAR_KEYWORD]
    var_kw = [p for p in sig.parameters.values() if p.kind == p.VAR_KEYWORD]
    context = inspect.Parameter("tool_context", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=ToolContext)
    action.__signature__ = sig.replace(parameters=plain + [context] + var_kw)  # type: ignore[attr-defined]
    return action

  def _guarded_navigate(self, navigate: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(navigate)
    async def guarded(url: str, *args: Any, **kwargs: Any) -> Any:
      try:
        host = _navigation.host_of(url)
        if not self._allow_private_network_access:
          await asyncio.to_thread(_navigation.check_public, host)  # DNS blocks: off the loop
      except ValueError:
        logger.warning("Refused navigate(): the url failed the safety check.")
        state = await self._computer.current_state()
        return {"error": _URL_REFUSED, "url": state.url}  # the model needs a url in every answer
      return await navigate(url, *args, **kwargs)

    return guarded

  def _modern_actions(self, excluded: set) -> list:
    """Gemini 3.x's actions: the computer's own method when it has one, else a shim over the older method."""
    computer = self._computer
    out = []

    def offer(name: str, required: tuple, optional: tuple, shim: Callable[..., Any]) -> None:
      if name not in excluded:
        own = getattr(computer, name) if self._implements(name, required, optional) else shim
        out.append(self._bound(own, name))

    async def click(x: int, y: int) -> ComputerState:
      """A click at pixel (x, y), via `click_at`."""
      return await computer.click_at(x, y)

    async def move(x: int, y: int) -> ComputerState:
      """The pointer put over pixel (x, y), via `hover_at`."""
      return await computer.hover_at(x, y)

    async def type_action(text: str, press_enter: bool = False) -> ComputerState:
      """`text` typed where the focus is, via `type_text`."""
      return await computer.type_text(text=text, press_enter=press_enter)

    async def scroll(x: int, y: int, direction: Literal["up", "down", "left", "right"] = "down",
                     magnitude_in_pixels: int = 300) -> ComputerState:
      """The element under pixel (x, y) scrolled, via `scroll_at`."""
      return await computer.scroll_at(x, y, direction, magnitude_in_pixels)

    async def take_screenshot() -> ComputerState:
      """The page as it is now (screenshot and URL), via `current_state`."""
      return await computer.current_state()

    async def press_key(key: str) -> ComputerState:
      """One key pressed, via `key_combination`."""
      return await computer.key_combination([key])

    async def hotkey(keys: list[str]) -> ComputerState:
      """Several keys held together, via `key_combination`."""
      return await computer.key_combination(keys)

    offer("click", ("x", "y"), ("button",), click)
    offer("move", ("x", "y"), (), move)
    offer("type", ("text",), ("press_enter",), type_action)
    offer("scroll", ("x", "y", "direction"), ("magnitude_in_pixels",), scroll)
    offer("take_screenshot", (), (), take_screenshot)
    offer("press_key", ("key",), (), press_key)
    offer("hotkey", ("keys",), (), hotkey)
    for name in _OPTIONAL_MOUSE_ACTIONS:
      if name not in excluded and self._implements(name, ("x", "y"), ("button",)):
        out.append(self._bound(getattr(computer, name), name))
    for name in _OPTIONAL_KEY_ACTIONS:
      if name not in excluded and self._implements(name, ("key",)):
        out.append(self._bound(getattr(computer, name), name))
    return out

  async def get_tools(self, readonly_context: Optional["ReadonlyContext"] = None) -> list:
    """One ComputerUseTool per action (built once; the computer is initialized first)."""
    if self._tools:
      return self._tools
    await self._ensure_initialized()
    async with self._init_lock():
      if self._tools:
        return self._tools
      screen_size = await self._computer.screen_size()
      excluded = _expand_exclusions(self._excluded_predefined_functions or ())
      actions = []
      for name in dir(BaseComputer):
        # As in google-adk 2.13, `initialize` is among the actions (a computer-use model never calls it).
        if (name.startswith("_") or name in EXCLUDED_METHODS or name in ("session_state", "type_text")
            or name in excluded or not callable(getattr(BaseComputer, name, None))):
          continue
        method = getattr(self._computer, name)
        if name == "navigate":
          method = self._guarded_navigate(method)
        elif name == "wait":
          raw_wait = method

          async def wait(seconds: float = 1) -> ComputerState:
            """A pause of `seconds` (rounded up to whole seconds)."""
            return await raw_wait(max(0, math.ceil(seconds)))

          method = wait
        actions.append(self._bound(method, name))
      actions.extend(self._modern_actions(excluded))
      self._tools = [ComputerUseTool(func=action, screen_size=screen_size) for action in actions]
      return self._tools

  @staticmethod
  async def adapt_computer_use_tool(method_name: str, adapter_func: Callable[[Callable[..., Any]], Any],
                                    llm_request: "LlmRequest") -> None:
    """Replaces the action `method_name` in `llm_request` by `adapter_func(original_function)` (sync or async);
    the new function's name is the action's new name. Unknown or excluded names are logged and ignored."""
    if method_name in EXCLUDED_METHODS or method_name == "type_text" or not callable(
        getattr(BaseComputer, method_name, None)):
      logger.warning("Method %s is not a valid BaseComputer method", method_name)
      return
    original = llm_request.tools_dict.get(method_name)
    if original is None:
      logger.warning("Method %s not found in tools_dict", method_name)
      return
    adapted = adapter_func(original.func)
    if inspect.isawaitable(adapted):
      adapted = await adapted
    llm_request.tools_dict[adapted.__name__] = ComputerUseTool(
        func=adapted, screen_size=original._screen_size, virtual_screen_size=original._coordinate_space)
    if adapted.__name__ != method_name:
      del llm_request.tools_dict[method_name]

  async def close(self) -> None:
    """Closes the computer (once) and forgets the tools."""
    async with self._init_lock():
      if not self._closed:
        await self._computer.close()
        self._closed = True
      self._initialized = False
      self._tools = None
    await super().close()

  async def process_llm_request(self, *, tool_context: ToolContext, llm_request: "LlmRequest") -> None:
    """Registers the actions for dispatch and asks the model for computer use (environment, exclusions)."""
    tools = await self.get_tools()
    for tool in tools:
      llm_request.tools_dict[tool.name] = tool
    llm_request.config = llm_request.config or types.GenerateContentConfig()
    llm_request.config.tools = llm_request.config.tools or []
    if any(isinstance(t, types.Tool) and t.computer_use for t in llm_request.config.tools):
      return
    environment = await self._computer.environment()
    llm_request.config.tools.append(types.Tool(computer_use=types.ComputerUse(
        environment=getattr(types.Environment, environment.name, types.Environment.ENVIRONMENT_BROWSER),
        excluded_predefined_functions=_excluded_for_model(
            self._excluded_predefined_functions, llm_request.model, self._unimplemented_modern_actions()))))
