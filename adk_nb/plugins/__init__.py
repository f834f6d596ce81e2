"""Plugins: hooks that apply to every agent, model call and tool call of a Runner."""

from .base_plugin import BasePlugin
from .plugin_manager import PluginManager

__all__ = ["BasePlugin", "PluginManager"]
