"""An eval case: a conversation to replay against an agent, with the expected answers and tool calls."""

from __future__ import annotations

from typing import Any, Optional, Union

from google.genai import types
from pydantic import ConfigDict, Field, model_validator

from ._base import EvalBaseModel
from .conversation_scenarios import ConversationScenario


class IntermediateData(EvalBaseModel):
  """The tool calls, tool results and sub-agent replies expected (or seen) before the final answer."""

  tool_uses: list[types.FunctionCall] = []
  """Tool calls, oldest first."""
  tool_responses: list[types.FunctionResponse] = []
  """Tool results, oldest first."""
  intermediate_responses: list[tuple[str, list[types.Part]]] = []
  """(author, parts) of replies sub-agents gave on the way to the final answer."""


class InvocationEvent(EvalBaseModel):
  """One agent event of an invocation, reduced to what evaluation looks at."""

  model_config = ConfigDict(extra="ignore")

  author: str
  """The agent that produced the event."""
  content: Optional[types.Content] = None
  """Its content: text, function calls, function responses."""
  grounding_metadata: Optional[types.GroundingMetadata] = None
  """Grounding metadata the model attached, if any."""
  usage_metadata: Optional[types.GenerateContentResponseUsageMetadata] = None
  """Tokens the model reported for this event."""
  model_version: Optional[str] = None
  """The model version that served the event."""


class InvocationEvents(EvalBaseModel):
  """The events of one invocation, in order (how actual runs are recorded)."""

  invocation_events: list[InvocationEvent] = Field(default_factory=list)
  """The events, oldest first."""


IntermediateDataType = Union[IntermediateData, InvocationEvents]


class Invocation(EvalBaseModel):
  """One user turn: what the user said, what the agent answered, and the steps in between."""

  invocation_id: str = ""
  """Id of the invocation (empty in hand-written cases)."""
  user_content: types.Content
  """The user's message."""
  final_response: Optional[types.Content] = None
  """The agent's final answer."""
  intermediate_data: Optional[IntermediateDataType] = None
  """Tool calls and intermediate replies."""
  creation_timestamp: float = 0.0
  """When the turn happened (seconds since the epoch)."""
  duration: Optional[float] = None
  """Wall-clock seconds the turn took, when it was run by an eval; None otherwise."""
  model_duration: Optional[float] = None
  """Of `duration`, seconds spent awaiting a model (written by google-adk; adk_nb leaves it None)."""
  tool_duration: Optional[float] = None
  """Of `duration`, seconds spent in tools (written by google-adk; adk_nb leaves it None)."""
  rubrics: Optional[list[Any]] = None
  """Rubrics for this turn (kept for ADK compatibility; rubric metrics are not implemented)."""
  app_details: Optional[dict[str, Any]] = None
  """Details of the app that answered (kept for ADK compatibility)."""


SessionState = dict[str, Any]


class SessionInput(EvalBaseModel):
  """How to start the session a case runs in: app, user, optional fixed id and initial state."""

  model_config = ConfigDict(extra="allow")

  app_name: str = ""
  """The app name (informational: cases run under the evaluated app)."""
  user_id: str = ""
  """The user id for the session ('test_user_id' when empty)."""
  session_id: Optional[str] = None
  """A fixed session id; a fresh random one is used when None."""
  state: SessionState = Field(default_factory=dict)
  """State the session starts with."""


StaticConversation = list[Invocation]
"""A fixed conversation: the turns of an eval case (google-adk's alias)."""


class EvalCase(EvalBaseModel):
  """One test: a conversation replayed turn by turn in a fresh session, plus what was expected."""

  model_config = ConfigDict(extra="allow")

  eval_id: str
  """Unique id of the case within its eval set."""
  conversation: Optional[list[Invocation]] = None
  """The turns: user messages with expected answers and tool calls."""
  conversation_scenario: Optional[ConversationScenario] = None
  """A scenario played by a simulated user (see `evaluate(..., user_simulator_model=...)`) instead of fixed turns."""
  session_input: Optional[SessionInput] = None
  """Initial session: user id and state."""
  creation_timestamp: float = 0.0
  """When the case was created."""
  rubrics: Optional[list[Any]] = None
  """Rubrics for every turn (kept for ADK compatibility)."""
  final_session_state: Optional[SessionState] = Field(default_factory=dict)
  """The state expected at the end (informational)."""

  @model_validator(mode="after")
  def _one_conversation(self) -> "EvalCase":
    if (self.conversation is None) == (self.conversation_scenario is None):
      raise ValueError("give exactly one of 'conversation' (a list of turns) or 'conversation_scenario'")
    return self


def _unsupported(intermediate_data: Any) -> str:
  return (f"Unsupported type for intermediate_data `{intermediate_data}`: expected IntermediateData or "
          f"InvocationEvents, got {type(intermediate_data).__name__}.")


def get_all_tool_calls(intermediate_data: Optional[IntermediateDataType]) -> list[types.FunctionCall]:
  """The tool calls recorded in an invocation's intermediate data, in order."""
  if not intermediate_data:
    return []
  if isinstance(intermediate_data, IntermediateData):
    return list(intermediate_data.tool_uses)
  if not isinstance(intermediate_data, InvocationEvents):
    raise ValueError(_unsupported(intermediate_data))
  calls = []
  for event in intermediate_data.invocation_events:
    if event.content and event.content.parts:
      calls.extend(p.function_call for p in event.content.parts if p.function_call)
  return calls


def get_all_tool_responses(intermediate_data: Optional[IntermediateDataType]) -> list[types.FunctionResponse]:
  """The tool results recorded in an invocation's intermediate data, in order."""
  if not intermediate_data:
    return []
  if isinstance(intermediate_data, IntermediateData):
    return list(intermediate_data.tool_responses)
  if not isinstance(intermediate_data, InvocationEvents):
    raise ValueError(_unsupported(intermediate_data))
  responses = []
  for event in intermediate_data.invocation_events:
    if event.content and event.content.parts:
      responses.extend(p.function_response for p in event.content.parts if p.function_response)
  return responses


def get_all_tool_calls_with_responses(
    intermediate_data: Optional[IntermediateDataType],
) -> list[tuple[types.FunctionCall, Optional[types.FunctionResponse]]]:
  """Each tool call of a turn with its response (matched by call id), or None when it got none."""
  responses = {r.id: r for r in get_all_tool_responses(intermediate_data)}
  return [(c, responses.get(c.id)) for c in get_all_tool_calls(intermediate_data)]


def content_text(content: Optional[types.Content]) -> str:
  """The text parts of a Content joined by newlines ('' for None), as ADK's metrics read it."""
  if content is None or not content.parts:
    return ""
  return "\n".join(p.text for p in content.parts if p.text)
