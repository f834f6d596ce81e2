"""The Task API's data at google-adk 2.x's path: a delegated task's request and its result.

A task-mode agent run as a graph node outputs `TaskResult(output=...)`'s `output` (the
`finish_task` arguments); `TaskRequest` names the agent a task goes to and its validated input.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, alias_generators

__all__ = ["TaskRequest", "TaskResult"]

_CONFIG = ConfigDict(extra="forbid", alias_generator=alias_generators.to_camel, populate_by_name=True)


class TaskRequest(BaseModel):
  """A task handed to a task-mode agent."""

  model_config = _CONFIG

  agent_name: str
  """The agent the task goes to."""
  input: dict[str, Any]
  """The task's input, validated against the agent's `input_schema` (or goal / background)."""


class TaskResult(BaseModel):
  """What a task-mode agent hands back when it calls `finish_task`."""

  model_config = _CONFIG

  output: Any
  """The validated `finish_task` arguments (the agent's `output_schema`, else `{"result": ...}`)."""


class _DefaultTaskInput(BaseModel):
  """A task's input when the agent declares no `input_schema`."""

  model_config = _CONFIG

  goal: Optional[str] = None
  """What the task should achieve."""
  background: Optional[str] = None
  """Context the agent needs for it."""


class _DefaultTaskOutput(BaseModel):
  """A task's result when the agent declares no `output_schema`."""

  model_config = _CONFIG

  result: str
  """What the agent did, in a few sentences."""
