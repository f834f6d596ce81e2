"""Runs the registered plugins' hooks in order; the first non-None result wins."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal, Optional, Sequence

from .base_plugin import BasePlugin

_HOOKS = (
    "on_user_message_callback", "before_run_callback", "on_event_callback", "after_run_callback",
    "before_agent_callback", "after_agent_callback", "before_model_callback", "after_model_callback",
    "on_model_error_callback", "before_tool_callback", "after_tool_callback", "on_tool_error_callback",
    "on_run_error_callback",
)


logger = logging.getLogger("adk_nb.plugins")


class PluginManager:
  """Holds a Runner's plugins and runs a hook across them."""

  def __init__(self, plugins: Optional[Sequence[BasePlugin]] = None, close_timeout: float = 5.0):
    self.plugins: list[BasePlugin] = []
    self._close_timeout = close_timeout
    # hook name -> plugins that override it, so unused hooks cost nothing per event
    self._by_hook: dict[str, list[BasePlugin]] = {h: [] for h in _HOOKS}
    for plugin in plugins or []:
      self.register_plugin(plugin)

  def register_plugin(self, plugin: BasePlugin) -> None:
    """Adds a plugin; names must be unique."""
    if any(p.name == plugin.name for p in self.plugins):
      raise ValueError(
          f"Plugin with name '{plugin.name}' already registered. Give each plugin a unique name "
          "(BasePlugin(name=...))."
      )
    self.plugins.append(plugin)
    for hook in _HOOKS:
      if getattr(type(plugin), hook) is not getattr(BasePlugin, hook):
        self._by_hook[hook].append(plugin)

  def get_plugin(self, name: str) -> Optional[BasePlugin]:
    return next((p for p in self.plugins if p.name == name), None)

  def has(self, hook: str) -> bool:
    """True when some plugin overrides `hook`."""
    return bool(self._by_hook[hook])

  async def run(self, hook: str, **kwargs: Any) -> Optional[Any]:
    """Runs `hook` on each plugin in order; returns the first non-None result.

    A hook that raises becomes a RuntimeError naming the plugin and the hook, with the
    original exception as its cause (as in ADK).
    """
    for plugin in self._by_hook[hook]:
      try:
        result = await getattr(plugin, hook)(**kwargs)
      except Exception as exc:
        raise RuntimeError(f"Error in plugin '{plugin.name}' during '{hook}' callback: {exc}") from exc
      if result is not None:
        return result
    return None

  async def close(self) -> None:
    """Closes every plugin (each within `close_timeout` seconds), even when one fails.

    Raises RuntimeError listing the plugins that failed to close, as ADK does.
    """
    failures: dict[str, BaseException] = {}
    for plugin in self.plugins:
      try:
        async with asyncio.timeout(self._close_timeout):
          await plugin.close()
      except Exception as exc:
        logger.warning("Plugin %r failed to close: %r", plugin.name, exc)
        failures[plugin.name] = exc
    if failures:
      summary = ", ".join(f"'{name}': {type(exc).__name__}" for name, exc in failures.items())
      raise RuntimeError(f"Failed to close plugins: {summary}")


def _hook_method(hook: str):
  async def method(self: PluginManager, **kwargs: Any) -> Optional[Any]:
    return await self.run(hook, **kwargs)

  method.__name__ = f"run_{hook}"
  method.__doc__ = f"Runs every plugin's `{hook}` (ADK's PluginManager.run_{hook})."
  return method


for _hook in _HOOKS:
  setattr(PluginManager, f"run_{_hook}", _hook_method(_hook))


PluginCallbackName = Literal[
    "on_user_message_callback", "before_run_callback", "after_run_callback", "on_event_callback",
    "before_agent_callback", "after_agent_callback", "before_tool_callback", "after_tool_callback",
    "before_model_callback", "after_model_callback", "on_tool_error_callback", "on_model_error_callback",
    "on_run_error_callback",
]
"""The hook names a PluginManager runs (google-adk's type alias)."""
