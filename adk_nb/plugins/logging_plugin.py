"""LoggingPlugin: one log line per run, agent, model call, tool call and event."""

from __future__ import annotations

import json
import logging
from typing import Any, Optional

from .base_plugin import BasePlugin


def _short(value: Any, limit: int = 200) -> str:
  text = json.dumps(value, default=str) if not isinstance(value, str) else value
  return text if len(text) <= limit else text[:limit] + "..."


class LoggingPlugin(BasePlugin):
  """Logs what happens in a run through the `logging` module (logger 'adk_nb.run' by default)."""

  def __init__(self, name: str = "logging_plugin", logger: Optional[logging.Logger] = None,
               level: int = logging.INFO):
    super().__init__(name)
    self.logger = logger or logging.getLogger("adk_nb.run")
    self.level = level

  def _log(self, message: str, *args: Any) -> None:
    self.logger.log(self.level, message, *args)

  async def before_run_callback(self, *, invocation_context):
    self._log("run start invocation=%s agent=%s", invocation_context.invocation_id, invocation_context.agent.name)

  async def after_run_callback(self, *, invocation_context):
    self._log("run end invocation=%s paused=%s", invocation_context.invocation_id, invocation_context.paused)

  async def on_run_error_callback(self, *, invocation_context, error):
    self._log("run failed invocation=%s error=%s: %s", invocation_context.invocation_id, type(error).__name__, error)

  async def before_agent_callback(self, *, agent, callback_context):
    self._log("agent start %s", agent.name)

  async def after_agent_callback(self, *, agent, callback_context):
    self._log("agent end %s", agent.name)

  async def before_model_callback(self, *, callback_context, llm_request):
    self._log("model call agent=%s model=%s contents=%d tools=%s", callback_context.agent_name,
              llm_request.model, len(llm_request.contents), sorted(llm_request.tools_dict))

  async def on_model_error_callback(self, *, callback_context, llm_request, error):
    self.logger.warning("model error agent=%s: %s", callback_context.agent_name, error)

  async def before_tool_callback(self, *, tool, tool_args, tool_context):
    self._log("tool call %s(%s)", tool.name, _short(tool_args))

  async def after_tool_callback(self, *, tool, tool_args, tool_context, result):
    self._log("tool result %s -> %s", tool.name, _short(result))

  async def on_tool_error_callback(self, *, tool, tool_args, tool_context, error):
    self.logger.warning("tool error %s: %s", tool.name, error)

  async def on_event_callback(self, *, invocation_context, event):
    if not event.partial:
      self._log("event author=%s final=%s text=%s", event.author, event.is_final_response(), _short(event.text, 80))
