"""ToolCallLimitPlugin: caps tool calls per invocation, so a looping model cannot run away."""

from __future__ import annotations

from typing import Optional


from .base_plugin import BasePlugin


class ToolCallLimitPlugin(BasePlugin):
  """Allows at most `max_calls` tool calls per invocation (optionally per tool name).

  Calls past the limit do not run: the model receives an error result telling it to
  answer with what it has.
  """

  def __init__(self, max_calls: int = 20, *, per_tool: Optional[dict[str, int]] = None,
               name: str = "tool_call_limit"):
    super().__init__(name)
    if max_calls < 0:
      raise ValueError("max_calls must be >= 0.")
    self.max_calls = max_calls
    self.per_tool = dict(per_tool or {})
    self._counts: dict[str, dict[str, int]] = {}

  async def before_run_callback(self, *, invocation_context):
    self._counts.pop(invocation_context.invocation_id, None)

  async def after_run_callback(self, *, invocation_context):
    self._counts.pop(invocation_context.invocation_id, None)

  async def on_run_error_callback(self, *, invocation_context, error):
    self._counts.pop(invocation_context.invocation_id, None)  # a failed run ends too

  async def before_tool_callback(self, *, tool, tool_args, tool_context):
    counts = self._counts.setdefault(tool_context.invocation_id, {})
    total = counts.get("*", 0)
    mine = counts.get(tool.name, 0)
    tool_limit = self.per_tool.get(tool.name)
    if total >= self.max_calls or (tool_limit is not None and mine >= tool_limit):
      limit = tool_limit if tool_limit is not None and mine >= tool_limit else self.max_calls
      return {"error": f"Tool call limit reached ({limit} per turn); do not call `{tool.name}` again, "
                       "answer with the information you have."}
    counts["*"] = total + 1
    counts[tool.name] = mine + 1
    return None
