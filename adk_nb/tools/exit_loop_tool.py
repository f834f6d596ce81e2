"""exit_loop: lets a model inside a LoopAgent stop the loop."""

from __future__ import annotations

from .tool_context import ToolContext


def exit_loop(tool_context: ToolContext) -> None:
  """Stops the loop this agent runs in.

  Call it only when your instructions tell you to stop the loop.
  """
  tool_context.actions.escalate = True
  tool_context.actions.skip_summarization = True
  # Returns nothing: the model reads {'result': None}, as from google-adk.
