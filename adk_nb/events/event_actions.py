"""Side effects an event declares; the Runner commits them before the agent resumes."""

from __future__ import annotations

import logging
from typing import Any, Optional, Union

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, alias_generators, field_serializer
from pydantic_core import to_jsonable_python

from ..tools.tool_confirmation import ToolConfirmation
from .ui_widget import UiWidget


logger = logging.getLogger("adk_nb.events")


def _make_json_serializable(value: Any) -> Any:
  """`value` as JSON data: rich types (datetimes, pydantic models) in their JSON form, and what has
  none (a function, a lock) replaced by its repr. Used only to *show* an event (model_dump); the
  session stores refuse such a state value instead, naming it, and write nothing."""
  return to_jsonable_python(value, serialize_unknown=True)


class EventCompaction(BaseModel):
  """A summary that stands in for a range of older events."""

  model_config = ConfigDict(
      extra="forbid", alias_generator=alias_generators.to_camel, populate_by_name=True
  )
  start_timestamp: float
  """Timestamp of the first event the summary replaces."""
  end_timestamp: float
  """Timestamp of the last event the summary replaces."""
  compacted_content: types.Content
  """The summary the model is sent instead of those events (role 'model')."""


class EventActions(BaseModel):
  """What an event asks the Runner (and the enclosing agents) to do."""

  model_config = ConfigDict(
      extra="forbid", alias_generator=alias_generators.to_camel, populate_by_name=True
  )

  skip_summarization: Optional[bool] = None
  """When true, a function response ends the turn without another model call."""
  state_delta: dict[str, Any] = Field(default_factory=dict)
  """State writes, routed by key prefix (app:, user:, temp:, none)."""
  artifact_delta: dict[str, int] = Field(default_factory=dict)
  """Artifacts saved by this event: filename to version."""

  @field_serializer("state_delta", "agent_state", mode="wrap")
  def _dump_state(self, value: Any, handler: SerializerFunctionWrapHandler, info: Any) -> Any:
    # As google-adk 2.x: dumping an event whose state holds a value with no JSON form (a callable)
    # warns and shows its repr rather than failing. Storing it still fails (sessions.json_form).
    try:
      return handler(value)
    except Exception:
      logger.warning("Failed to serialize `%s`: it holds values with no JSON form (e.g. callables); they are "
                     "shown as their repr.", info.field_name, exc_info=True)
      return handler(_make_json_serializable(value))

  transfer_to_agent: Optional[str] = None
  """Name of the agent that takes over the conversation."""
  transfer_reason: Optional[str] = None
  """Why the transfer happened, when the model said."""
  escalate: Optional[bool] = None
  """Asks the enclosing LoopAgent (or parent) to stop."""
  requested_auth_configs: dict[str, Any] = Field(default_factory=dict)
  """Auth requests keyed by function call id (kept for wire compatibility)."""
  requested_tool_confirmations: dict[str, ToolConfirmation] = Field(default_factory=dict)
  """Confirmations the tools asked for, keyed by the function call id."""
  compaction: Optional[EventCompaction] = None
  """Set on events that summarise older history."""
  end_of_agent: Optional[bool] = None
  """Marks the last event of an agent run (used by resumable apps)."""
  agent_state: Optional[dict[str, Any]] = None
  """Checkpoint of a workflow agent, so a resumed invocation continues where it stopped."""
  route: Optional[Union[bool, int, str, list[Union[bool, int, str]]]] = None
  """The route a workflow node took: which routed edges fire after it."""
  rewind_before_invocation_id: Optional[str] = None
  """Undo every invocation from this one on."""
  render_ui_widgets: Optional[list[UiWidget]] = None
  """Widgets the client should render with this event (ADK 2.x; see `Context.render_ui_widget`)."""
