"""Everything one invocation (a user turn and all it causes) runs with."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field

from ..errors import codes
from ..errors.adk_nb_error import AdkNbError
from ..events.protocol import REQUEST_CREDENTIAL, REQUEST_INPUT
from ..sessions.base_session_service import BaseSessionService
from ..sessions.session import Session
from .run_config import RunConfig

if TYPE_CHECKING:
  from .base_agent import BaseAgent


# Calls that always wait for the client, even in sessions stored without `long_running_tool_ids`.
_INTERRUPT_CALLS = frozenset({REQUEST_INPUT, REQUEST_CREDENTIAL})


class LlmCallsLimitExceededError(AdkNbError):
  """The invocation made more model calls than `RunConfig.max_llm_calls` allows."""

  error_code = codes.LLM_CALLS_LIMIT_EXCEEDED


class _InvocationShared:
  """Counters and signals shared by every copy of one invocation's context."""

  __slots__ = ("llm_calls", "transfers", "pause_window", "restored", "paused_branches")

  def __init__(self) -> None:
    self.llm_calls = 0
    self.transfers = 0
    self.pause_window: Any = None
    """The checkpoints of the latest pause (`resume.PauseWindow`), read once per resume (agents._resumable)."""
    self.restored: set[tuple[str, str]] = set()
    """Keys of the checkpoints already handed out in this resume."""
    self.paused_branches: set[str] = set()


class InvocationContext(BaseModel):
  """The context of one invocation: session, services, current agent and branch, run config.

  Agents receive a copy per agent (`model_copy(update=...)`); counters such as the number
  of model calls are shared by all copies of one invocation.
  """

  model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

  session_service: BaseSessionService
  artifact_service: Optional[Any] = None
  memory_service: Optional[Any] = None
  credential_service: Optional[Any] = None
  invocation_id: str
  """Shared by every event of this invocation."""
  branch: Optional[str] = None
  """Dotted agent path isolating history between parallel siblings."""
  agent: "BaseAgent"
  """The agent currently running."""
  user_content: Optional[types.Content] = None
  """The user message that started the invocation."""
  session: Session
  """The live session; committed events are appended to it."""
  end_invocation: bool = False
  """Set to stop the invocation after the current step."""
  run_config: RunConfig = Field(default_factory=RunConfig)
  plugin_manager: Optional[Any] = None
  """Runs plugin hooks (set by the Runner)."""
  resumability_config: Optional[Any] = None
  """The App's ResumabilityConfig, if any."""
  context_cache_config: Optional[Any] = None
  """The App's ContextCacheConfig, if any (Gemini context caching for every agent)."""
  events_compaction_config: Optional[Any] = None
  """The App's EventsCompactionConfig, if any."""
  is_resumable: bool = False
  """True when the App asks for resumability: workflow agents then record their progress
  (`agent_state`) and every agent its end (`end_of_agent`) as events, as google-adk does."""
  agent_states: dict[str, dict[str, Any]] = Field(default_factory=dict)
  """Checkpoints of custom resumable agents by agent name (google-adk's API: `set_agent_state`,
  `populate_invocation_agent_states`); adk_nb's workflow agents keep theirs in agents._resumable."""
  end_of_agents: dict[str, bool] = Field(default_factory=dict)
  """Agents marked finished in this invocation (`set_agent_state(name, end_of_agent=True)`)."""
  resume_answers: dict[str, types.FunctionResponse] = Field(default_factory=dict)
  """Confirmation answers (by request id) that resume this invocation after a pause."""
  resumed: bool = False
  """True when this invocation continues after a pause (workflow agents restore checkpoints)."""
  isolation_scope: Optional[str] = None
  """The delegated task (call id) the running sub-agent works in; its history is that task's events only."""
  task_scope: Optional[str] = None
  """Set by the Runner when the user's message answers a task-mode sub-agent that is waiting for
  them: the coordinator hands the message to that task before calling its own model."""

  def model_post_init(self, __context: Any) -> None:
    # `_shared` lives in the instance __dict__ rather than a pydantic PrivateAttr (whose reads
    # cost microseconds); model_copy copies __dict__, so every copy shares the same object.
    object.__setattr__(self, "_shared", _InvocationShared())
    if not self.is_resumable and getattr(self.resumability_config, "is_resumable", False):
      # Built directly (not by a Runner) with the App's config: derive the flag as google-adk does.
      object.__setattr__(self, "is_resumable", True)

  @property
  def app_name(self) -> str:
    return self.session.app_name

  @property
  def user_id(self) -> str:
    return self.session.user_id

  def _get_events(self, *, current_invocation: bool = False, current_branch: bool = False) -> list[Any]:
    """The session's events, optionally only this invocation's and/or this branch's.

    On a branch, the agents' events must be on exactly this branch; a user's event may also be on no
    branch or on a branch below this one, and when it answers calls, at least one of them must have
    been made on this branch or below (an answer to another parallel branch's call stays there).
    """
    events = list(self.session.events)
    if current_invocation:
      events = [e for e in events if e.invocation_id == self.invocation_id]
    if current_branch:
      events = [e for e in events if self._on_this_branch(e)]
    return events

  def _on_this_branch(self, event: Any) -> bool:
    branch = self.branch
    if getattr(event, "author", None) != "user":
      return event.branch == branch
    if not (event.branch is None or branch is None or event.branch == branch
            or (branch and event.branch.startswith(branch + "."))):
      return False
    answered = {r.id for r in event.get_function_responses() if r.id}
    if answered and branch:
      below = branch + "."
      made_here = {c.id for e in self.session.events
                   if e.branch and (e.branch == branch or e.branch.startswith(below))
                   for c in e.get_function_calls() if c.id}
      return bool(answered & made_here)
    return True

  def increment_llm_call_count(self) -> None:
    """Counts a model call; raises LlmCallsLimitExceededError past `max_llm_calls`."""
    shared = self._shared
    shared.llm_calls += 1
    limit = self.run_config.max_llm_calls
    if limit > 0 and shared.llm_calls > limit:
      raise LlmCallsLimitExceededError(
          f"Max number of llm calls limit of `{limit}` exceeded; raise "
          "RunConfig(max_llm_calls=...) if the agent legitimately needs more."
      )

  def count_transfer(self) -> bool:
    """Counts an agent transfer; False (nothing counted) once `RunConfig.max_transfers` is reached."""
    limit = self.run_config.max_transfers
    shared = self._shared
    if limit > 0 and shared.transfers >= limit:
      return False
    shared.transfers += 1
    return True

  @property
  def paused(self) -> bool:
    """True once something in this branch (or below it) paused: a pending confirmation or long-running call.

    Pauses are scoped by branch, so a pause in one ParallelAgent branch does not cut its
    siblings short; the ParallelAgent (on the parent branch) sees it once its children finish.
    """
    paused = self._shared.paused_branches
    if not paused:
      return False
    branch = self.branch
    if not branch:
      return True
    prefix = branch + "."
    return any(p == branch or p.startswith(prefix) for p in paused)

  def pause(self) -> None:
    """Marks this branch paused: enclosing agents stop before running anything else."""
    self._shared.paused_branches.add(self.branch or "")

  def is_branch_paused(self, branch: str) -> bool:
    """True when `branch` (a child branch of this invocation) or a branch below it paused."""
    prefix = branch + "."
    return any(p == branch or p.startswith(prefix) for p in self._shared.paused_branches)

  # ---- checkpoints of custom resumable agents (google-adk's API) -----------------------------

  def set_agent_state(self, agent_name: str, *, agent_state: Optional[Any] = None,
                      end_of_agent: bool = False) -> None:
    """Records `agent_name`'s checkpoint for this invocation (a `BaseAgentState`).

    `end_of_agent=True` marks the agent finished and drops its checkpoint; a state alone sets
    it (and clears the finished mark); neither clears both, so the agent runs again from the start.
    """
    if end_of_agent:
      self.end_of_agents[agent_name] = True
      self.agent_states.pop(agent_name, None)
    elif agent_state is not None:
      self.agent_states[agent_name] = agent_state.model_dump(mode="json")
      self.end_of_agents[agent_name] = False
    else:
      self.agent_states.pop(agent_name, None)
      self.end_of_agents.pop(agent_name, None)

  def reset_sub_agent_states(self, agent_name: str) -> None:
    """Clears the checkpoints of every agent below `agent_name`, so a new pass starts them fresh."""
    agent = self.agent.root_agent.find_agent(agent_name) if self.agent is not None else None
    for sub_agent in agent.sub_agents if agent is not None else ():
      self.set_agent_state(sub_agent.name)
      self.reset_sub_agent_states(sub_agent.name)

  def populate_invocation_agent_states(self) -> None:
    """Rebuilds `agent_states` / `end_of_agents` from this invocation's committed events.

    Only for a resumable invocation (`is_resumable`). An agent that produced content but left
    no checkpoint gets an empty one, so it is known to have started.
    """
    if not self.is_resumable:
      return
    invocation_id = self.invocation_id
    for event in self.session.events:
      if event.invocation_id != invocation_id:
        continue
      key = event.author
      if event.actions.end_of_agent:
        self.end_of_agents[key] = True
        self.agent_states.pop(key, None)
      elif event.actions.agent_state is not None:
        self.agent_states[key] = event.actions.agent_state
        self.end_of_agents[key] = False
      elif key != "user" and event.content and not self.agent_states.get(key):
        self.agent_states[key] = {}
        self.end_of_agents[key] = False

  def should_pause_invocation(self, event: Any) -> bool:
    """True when `event` asks something of the client: a long-running call or an input request.

    adk_nb pauses on these whether or not the app is resumable (see README, human in the loop).
    """
    waiting = set(event.long_running_tool_ids or ())
    for call in event.get_function_calls():
      if call.id and (call.id in waiting or call.name in _INTERRUPT_CALLS):
        return True
    return False


def new_invocation_context_id() -> str:
  """A fresh invocation id ('e-' + uuid, as ADK)."""
  return "e-" + str(uuid.uuid4())
