"""An Event: one step of a conversation, authored by the user or an agent."""

from __future__ import annotations

import functools
import operator
import os
import time
from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, alias_generators, field_serializer, model_validator
from pydantic.fields import FieldInfo

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


class _NoNodeInfo(NodeInfo):
  """What `event.node_info` reads on an event made outside a workflow graph: an empty NodeInfo
  (`path == ''`, `name == ''`), as google-adk 2.x gives, without a new object per event.

  One instance serves every such event, so it cannot be changed: setting a field raises an error that
  says to give the event a NodeInfo of its own. It is falsy (`if event.node_info:` means "this event
  comes from a node"), equal to `NodeInfo()`, and left out when an event is serialised, so stored
  events keep the form they had when the field read None.
  """

  model_config = ConfigDict(frozen=True)

  def __setattr__(self, name: str, value: Any) -> None:
    raise AttributeError(
        f"Cannot set node_info.{name}: this event comes from no workflow node, and its node_info is the "
        f"shared empty NodeInfo(). Give the event one of its own instead: "
        f"event.node_info = NodeInfo({name}=...).")

  __delattr__ = __setattr__  # type: ignore[assignment]

  # A C callable (bool() is False) rather than a Python method: truth tests on the hot path cost no call.
  __bool__ = functools.partial(bool)  # type: ignore[assignment]
  __hash__ = object.__hash__  # hashable, so pydantic uses the instance as the field default without copying it

  def __eq__(self, other: Any) -> bool:
    return isinstance(other, NodeInfo) and other.__dict__ == self.__dict__

  def __copy__(self) -> "_NoNodeInfo":
    return self

  def __deepcopy__(self, memo: Any = None) -> "_NoNodeInfo":
    return self

  def __reduce__(self) -> Any:
    return _no_node_info, ()

  def __repr_name__(self) -> str:
    return "NodeInfo"

  def model_copy(self, *, update: Optional[dict[str, Any]] = None, deep: bool = False) -> NodeInfo:
    """Itself when nothing changes (a copy of the empty NodeInfo stays "no node info": it is not
    written into a stored event); with `update`, a plain NodeInfo of one's own with it applied."""
    if not update:
      return self
    return NodeInfo().model_copy(update=update, deep=deep)


NO_NODE_INFO: NodeInfo = _NoNodeInfo()
"""`Event.node_info` of an event that comes from no workflow node (falsy; see `_NoNodeInfo`)."""


def _no_node_info() -> NodeInfo:
  return NO_NODE_INFO


# `Field(exclude_if=...)` (in recent pydantic releases, 2.14 among them) keeps the shared empty NodeInfo out of
# serialised events. On a pydantic without it the field keeps its former default, None, rather than change
# what a store writes.
_HAS_EXCLUDE_IF = "exclude_if" in getattr(FieldInfo, "__slots__", ())
_NODE_INFO_FIELD: Any = (Field(default=NO_NODE_INFO, exclude_if=functools.partial(operator.is_, NO_NODE_INFO))
                         if _HAS_EXCLUDE_IF else None)


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
  node_info: Optional[NodeInfo] = _NODE_INFO_FIELD
  """The workflow node that produced the event. Outside workflows an empty, falsy, unchangeable
  `NodeInfo` (`node_info.path == ''`, as in google-adk 2.x) that is not written when the event is
  serialised; set a NodeInfo of the event's own to change it."""
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
