"""Runs the registered plugins' hooks in order; the first non-None result wins."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..errors import codes
from ..errors.adk_nb_error import AdkNbError
from .base_plugin import BasePlugin

_HOOKS = (
    "on_user_message_callback", "before_run_callback", "on_event_callback", "after_run_callback",
    "before_agent_callback", "after_agent_callback", "before_model_callback", "after_model_callback",
    "on_model_error_callback", "before_tool_callback", "after_tool_callback", "on_tool_error_callback",
)


class PluginError(AdkNbError, RuntimeError):
  """A plugin hook raised; the message names the plugin and hook."""

  error_code = codes.PLUGIN_ERROR


class PluginManager:
  """Holds a Runner's plugins and runs a hook across them."""

  def __init__(self, plugins: Optional[Sequence[BasePlugin]] = None):
    self.plugins: list[BasePlugin] = []
    # hook name -> plugins that override it, so unused hooks cost nothing per event
    self._by_hook: dict[str, list[BasePlugin]] = {h: [] for h in _HOOKS}
    for plugin in plugins or []:
      self.register_plugin(plugin)

  def register_plugin(self, plugin: BasePlugin) -> None:
    """Adds a plugin; names must be unique."""
    if any(p.name == plugin.name for p in self.plugins):
      raise ValueError(f"A plugin named {plugin.name!r} is already registered; give each plugin a unique name.")
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
    """Runs `hook` on each plugin in order; returns the first non-None result."""
    for plugin in self._by_hook[hook]:
      try:
        result = await getattr(plugin, hook)(**kwargs)
      except Exception as exc:
        raise PluginError(f"Plugin {plugin.name!r} {hook} raised {type(exc).__name__}: {exc}") from exc
      if result is not None:
        return result
    return None

  async def close(self) -> None:
    for plugin in self.plugins:
      await plugin.close()
