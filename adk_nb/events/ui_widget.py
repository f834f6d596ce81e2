"""UiWidget: something a client should render beside an agent's answer (ADK 2.x)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, alias_generators


class UiWidget(BaseModel):
  """Rendering data for one widget, carried on `Event.actions.render_ui_widgets`.

  Add one from a tool or callback with `ctx.render_ui_widget(UiWidget(...))`. adk_nb only
  carries it; the client (its `provider` names the renderer, e.g. 'mcp' for an MCP App) draws it.
  """

  model_config = ConfigDict(extra="forbid", alias_generator=alias_generators.to_camel, populate_by_name=True)

  id: str
  """Unique within the event's actions."""
  provider: str
  """Which renderer the client uses ('mcp': an MCP App iframe)."""
  payload: dict[str, Any] = Field(default_factory=dict)
  """What that renderer needs (for 'mcp': resource_uri, tool, tool_args)."""
