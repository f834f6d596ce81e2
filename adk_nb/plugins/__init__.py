"""Plugins: hooks that apply to every agent, model call and tool call of a Runner."""

from .base_plugin import BasePlugin
from .context_filter_plugin import ContextFilterPlugin
from .debug_logging_plugin import DebugLoggingPlugin, ToolResultClassification, ToolResultClassifier
from .logging_plugin import LoggingPlugin
from .plugin_manager import PluginManager
from .reflect_retry_tool_plugin import ReflectAndRetryToolPlugin
from .save_files_as_artifacts_plugin import SaveFilesAsArtifactsPlugin
from .tool_call_limit_plugin import ToolCallLimitPlugin

__all__ = ["BasePlugin", "ContextFilterPlugin", "DebugLoggingPlugin", "LoggingPlugin", "PluginManager", "ReflectAndRetryToolPlugin", "SaveFilesAsArtifactsPlugin", "ToolCallLimitPlugin", "ToolResultClassification",
           "ToolResultClassifier"]
