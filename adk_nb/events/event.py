"""An Event: one step of a conversation, authored by the user or an agent."""

from __future__ import annotations

import os
import time
from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, alias_generators, field_serializer, field_validator, model_validator

from ..models.llm_response import LlmResponse
from .event_actions import EventActions


def new_uuid4() -> str:
  """A random RFC 4122 version-4 UUID string, about 5x cheaper than str(uuid.uuid4())."""
  h = os.urandom(16).hex()
  return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"


class NodeInfo(BaseModel):
  """Where in a workflow graph an event comes from (ADK 2.x `node_info`)."""

  model_config = ConfigDict(extra="ignore", alias_generator=alias_generators.to_camel, populate_by_name=True)

  path: str = ""
  """The node path, e.g. 'pipeline@1/classify@2' (workflow name @ run id, slash-separated)."""
  output_for: Optional[list[str]] = None
  """Node paths whose output this event carries (the node and, for a terminal node, its workflows)."""
  message_as_output: Optional[bool] = None
  """True when the event's content (an agent's final text) is the node's output."""

  @property
  def name(self) -> str:
    """The node's name, without its run id ('classify' for 'pipeline@1/classify@2')."""
    from ._paths import split_segment

    return split_segment(self.path.rpartition("/")[2])[0] if self.path else ""

  @property
  def run_id(self) -> str:
    """The run id of the node that yielded the event ('2' for 'pipeline@1/classify@2'; '' when none)."""
    from ._paths import split_segment

    return (split_segment(self.path.rpartition("/")[2])[1] or "") if self.path else ""

  @property
  def parent_run_id(self) -> Optional[str]:
    """The run id of the node one level up (the workflow, or the node that ran this one by `ctx.run_node`)."""
    from ._paths import split_segment

    parent, sep, _ = self.path.rpartition("/")
    return split_segment(parent.rpartition("/")[2])[1] if sep else None


def _is_empty(info: Optional[NodeInfo]) -> bool:
  """True for the NodeInfo of an event that comes from no workflow node (nothing set), which is left out
  when the event is serialised: stored events keep the form they had when the field read None, and
  google-adk's `"nodeInfo": {"path": ""}` reads back as the same empty NodeInfo."""
  return info is None or (not info.path and info.output_for is None and info.message_as_output is None)


_FIELD_NAMES: dict[type, frozenset] = {}


def _field_names(cls: type) -> frozenset:
  names = _FIELD_NAMES.get(cls)
  if names is None:
    names = frozenset(cls.model_fields) | {f.alias for f in cls.model_fields.values() if f.alias}
    _FIELD_NAMES[cls] = names
  return names


def _to_content(message: Any) -> types.Content:
  """A Content from what ADK 2.x accepts as a message: a Content, a str, a Part, or a list of them
  (google-genai's own conversion, so roles match google-adk: text becomes a user Content)."""
  if isinstance(message, types.Content):
    return message
  from google.genai import _transformers

  return _transformers.t_content(message)


class Event(LlmResponse):
  """A step of a conversation: content plus the side effects (`actions`) it declares.

  The Runner commits `actions.state_delta` and `actions.artifact_delta` of every
  non-partial event to the session before the agent that yielded it resumes.
  """

  model_config = ConfigDict(
      extra="ignore",
      ser_json_bytes="base64",
      val_json_bytes="base64",
      alias_generator=alias_generators.to_camel,
      populate_by_name=True,
  )

  invocation_id: str = ""
  """The invocation (one user turn and everything it caused) this event belongs to."""
  author: str = ""
  """'user' or the name of the agent that produced the event."""
  actions: EventActions = Field(default_factory=EventActions)
  """State and artifact deltas, transfer, escalation, confirmation requests."""
  long_running_tool_ids: Optional[set[str]] = None
  """Ids of function calls in this event that stay pending after the turn ends."""
  branch: Optional[str] = None
  """Dotted path of agents (`parallel.child`) that isolates history between siblings."""
  id: str = ""
  """Unique id, assigned at creation."""
  timestamp: float = Field(default_factory=time.time)
  """Seconds since the epoch."""
  output: Any = None
  """A workflow node's output (passed along the graph's edges to the next nodes)."""
  node_info: NodeInfo = Field(default_factory=NodeInfo, exclude_if=_is_empty)
  """The workflow node that produced the event. Outside workflows an empty NodeInfo of the event's
  own (`node_info.path == ''`, as in google-adk 2.x): test `node_info.path` to tell whether the event
  comes from a node. An empty NodeInfo is not written when the event is serialised."""
  isolation_scope: Optional[str] = None
  """The delegated task this event belongs to (the delegating call's id): only the sub-agent
  running that task sees it in its history, and the rest of the conversation does not."""

  @model_validator(mode="before")
  @classmethod
  def _shorthands(cls, data: Any) -> Any:
    # ADK 2.x shorthands: Event(message=..., state={...}, route=..., node_path=...). A subclass that
    # declares one of these names as a field keeps it as its field.
    if not isinstance(data, dict) or not ("message" in data or "state" in data or "route" in data
                                          or "node_path" in data):
      return data  # the common case, kept to a few dict lookups: most Events use no shorthand
    data = dict(data)  # the caller's dict is left as it was
    fields = _field_names(cls)
    message = None if "message" in fields else data.pop("message", None)
    state = None if "state" in fields else data.pop("state", None)
    route = None if "route" in fields else data.pop("route", None)
    node_path = None if "node_path" in fields else data.pop("node_path", None)
    if message is not None:
      if data.get("content") is not None:
        raise ValueError("'message' and 'content' are mutually exclusive: they are the same thing (message= is "
                         "the ADK 2.x name); pass one.")
      data["content"] = _to_content(message)
    if state is not None or route is not None:
      actions = data.get("actions")
      if actions is None:
        actions = EventActions()
      elif isinstance(actions, dict):
        actions = EventActions(**actions)
      elif isinstance(actions, EventActions):
        actions = actions.model_copy(deep=True)
      if isinstance(actions, EventActions):  # anything else is left for field validation to refuse
        if state is not None:
          actions.state_delta = dict(state)
        if route is not None:
          actions.route = route
        data["actions"] = actions
    if node_path is not None:
      info = data.get("node_info")
      if info is None:
        data["node_info"] = NodeInfo(path=node_path)
      elif isinstance(info, NodeInfo):
        data["node_info"] = info.model_copy(update={"path": node_path})
      elif isinstance(info, dict):
        data["node_info"] = {**info, "path": node_path}
    return data

  @field_validator("node_info", mode="before")
  @classmethod
  def _null_node_info(cls, value: Any) -> Any:
    # `"node_info": null` (an event dumped without exclude_none when the field could be None) reads as empty.
    return NodeInfo() if value is None else value

  @property
  def node_name(self) -> str:
    """The name of the workflow node that produced the event ('' outside workflows and on an agent's
    state checkpoints), as google-adk 2.x's `Event.node_name`."""
    info = self.node_info
    if info is None:
      return ""
    actions = self.actions
    if actions.agent_state is not None or actions.end_of_agent:
      return ""
    return info.name

  @property
  def message(self) -> Any:
    """The event's message: its `content` (ADK 2.x name). A subclass with a `message` field reads it."""
    if "message" in type(self).model_fields:
      return self.__dict__.get("message")
    return self.content

  @message.setter
  def message(self, value: Any) -> None:
    if "message" in type(self).model_fields:
      self.__pydantic_validator__.validate_assignment(self, "message", value)
    else:
      self.content = None if value is None else _to_content(value)

  def model_post_init(self, __context: Any) -> None:
    if not self.id:
      self.id = Event.new_id()

  @field_serializer("long_running_tool_ids")
  def _sorted_ids(self, value: Optional[set[str]]) -> Optional[list[str]]:
    # Sets iterate in hash order; a sorted list serialises the same way every time.
    return None if value is None else sorted(value)

  @staticmethod
  def new_id() -> str:
    """A fresh event id (a random UUID4 string)."""
    return new_uuid4()

  def is_final_response(self) -> bool:
    """True when this event is what a user should see as the agent's reply."""
    if self.actions.skip_summarization or self.long_running_tool_ids:
      return True
    return (
        not self.get_function_calls()
        and not self.get_function_responses()
        and not self.partial
        and not self.has_trailing_code_execution_result()
    )

  def get_function_calls(self) -> list[types.FunctionCall]:
    """The function calls in this event's content, in order."""
    content = self.content
    if content is None or not content.parts:
      return []
    return [p.function_call for p in content.parts if p.function_call is not None]

  def get_function_responses(self) -> list[types.FunctionResponse]:
    """The function responses in this event's content, in order."""
    content = self.content
    if content is None or not content.parts:
      return []
    return [p.function_response for p in content.parts if p.function_response is not None]

  def has_trailing_code_execution_result(self) -> bool:
    """True when the last part is a code execution result."""
    content = self.content
    if content is None or not content.parts:
      return False
    return content.parts[-1].code_execution_result is not None

  @property
  def text(self) -> str:
    """The concatenated text parts (thoughts excluded); '' when there are none."""
    content = self.content
    if content is None or not content.parts:
      return ""
    return "".join(p.text for p in content.parts if p.text and not p.thought)
