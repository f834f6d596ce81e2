"""Which paused invocation a message resumes, and where that invocation continues.

A message whose parts answer pending calls (confirmations, long-running calls, calls raised
from an AgentTool) does not start a new invocation: it resumes the one that paused.
`match_answers` checks the answers against what the session waits for and returns a
`Resume`, or raises an `AnswerError` subclass naming what is wrong (nothing is committed).

Where the resumed invocation starts is the agent tree's decision
(`BaseAgent.resume_entry`): agents walk back up from the paused agent to the highest one
that left a checkpoint; a graph Workflow can override it to continue at a node path. The
checkpoints an invocation left at its latest pause are read by one rule, `PauseWindow`, for both
that decision and the agents that continue from their checkpoint (`agents._resumable`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Sequence

from google.genai import types

from .errors import (AnswerDoesNotFitError, AnswersSpanInvocationsError, AnswerWithoutIdError, CallAlreadyAnsweredError,
                     PausingAgentNotInTreeError, UnknownCallError, WrongAnswerKindError)
from .events.protocol import REQUEST_CONFIRMATION, REQUEST_CREDENTIAL, REQUEST_INPUT
from .pending import PendingItem, pending_of, pending_since_calls

if TYPE_CHECKING:
  from .agents.base_agent import BaseAgent
  from .events.event import Event
  from .sessions.session import Session


@dataclass(frozen=True)
class PauseWindow:
  """The checkpoints an invocation left at its latest pause: what a resume continues from.

  The window is the invocation's events read back from the end of the session: past the answers
  the user sent to resume it (committed by this resume, or by an earlier one that stopped before
  its agents ran), then each event of the invocation up to the first event of another invocation
  or from the user. Of each agent's checkpoints there, the newest counts.
  """

  states: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
  """(agent name, branch or '') -> the agent's newest checkpoint (`actions.agent_state`)."""
  branches: dict[str, Optional[str]] = field(default_factory=dict)
  """agent name -> the branch of its newest checkpoint."""

  @classmethod
  def read(cls, events: Sequence["Event"], invocation_id: str) -> "PauseWindow":
    """The window of `invocation_id`'s latest pause in `events` (a session's, oldest first)."""
    states: dict[tuple[str, str], dict[str, Any]] = {}
    branches: dict[str, Optional[str]] = {}
    i = len(events) - 1
    while i >= 0 and events[i].author == "user" and events[i].invocation_id == invocation_id:
      i -= 1  # the answers that resume it
    while i >= 0:
      event = events[i]
      if event.invocation_id != invocation_id or event.author == "user":
        break
      state = event.actions.agent_state
      if state is not None:
        states.setdefault((event.author, event.branch or ""), state)
        branches.setdefault(event.author, event.branch)
      i -= 1
    return cls(states, branches)

  def state_of(self, agent_name: str, branch: Optional[str]) -> Optional[dict[str, Any]]:
    """The checkpoint `agent_name` left in `branch`, or None."""
    return self.states.get((agent_name, branch or ""))


@dataclass(frozen=True)
class Resume:
  """A message that answers pending calls, matched to the invocation it continues."""

  invocation_id: str
  """The paused invocation; every event of the resumed run carries this id."""
  agent: "BaseAgent"
  """The agent the resumed run starts at (see `BaseAgent.resume_entry`)."""
  branch: Optional[str]
  """That agent's branch when the invocation paused."""
  answers: dict[str, types.FunctionResponse] = field(default_factory=dict)
  """The answers, by the id of the call they answer."""
  nested_answer_ids: list[str] = field(default_factory=list)
  """The answers that belong to calls raised from an AgentTool (recorded on the user message)."""
  paused: tuple[PendingItem, ...] = ()
  """The pending items the answers match, in message order."""


def match_answers(root: "BaseAgent", session: "Session", message: types.Content) -> Optional[Resume]:
  """The Resume that `message` asks for, or None when it answers nothing (a new turn).

  Raises an `AnswerError` subclass (a ValueError) for an answer without an id, an answer to
  a call that was already answered or is unknown, an answer of the wrong kind, answers
  spanning several paused invocations, or a pausing agent missing from `root`'s tree.
  """
  responses = [p.function_response for p in message.parts or [] if p.function_response is not None]
  if not responses:
    return None
  # Read back only to the oldest call answered; an id not found there gets the whole session's
  # view (kept per session), which also names what is wrong.
  found = pending_since_calls(session.events, [fr.id for fr in responses])
  items, late = found if found is not None else pending_of(session)
  pending = {item.call_id: item for item in items}
  items = [(fr, _item_answered(session, fr, pending, late)) for fr in responses]
  invocations = {item.invocation_id for _, item in items}
  if len(invocations) > 1:
    raise AnswersSpanInvocationsError(
        "One message answers calls of several paused invocations (the answers resolve to multiple invocations); "
        "answer each in its own message.")
  invocation_id = invocations.pop()
  agent, branch = root.resume_entry(session, invocation_id, items[0][1])
  return Resume(
      invocation_id=invocation_id, agent=agent, branch=branch,
      answers={fr.id: fr for fr, _ in items},
      nested_answer_ids=[fr.id for fr, item in items if item.nested],
      paused=tuple(item for _, item in items),
  )


def _item_answered(session: "Session", fr: types.FunctionResponse, pending: dict[str, PendingItem],
                   late: dict[str, PendingItem]) -> PendingItem:
  """The pending item `fr` answers; raises when there is none or the answer is of the wrong kind."""
  if not fr.id:
    raise AnswerWithoutIdError(
        f"The FunctionResponse for {fr.name!r} has no id; set id to the pending call's id "
        "(see adk_nb.pending.pending_items(session.events))."
    )
  item = pending.get(fr.id) or late.get(fr.id)
  if item is None:
    if any(r.id == fr.id for e in session.events for r in e.get_function_responses()):
      hint = ""
      if fr.name == REQUEST_INPUT:
        hint = (" If the run that took the answer stopped before it finished, continue it with "
                "run_async(invocation_id=...) and no message.")
      raise CallAlreadyAnsweredError(f"Call {fr.id!r} was already answered; nothing was changed.{hint}")
    raise UnknownCallError(
        f"No pending call has id {fr.id!r} in session {session.id!r} (Function call not found); nothing was changed. "
        f"Pending ids: {sorted(pending) or 'none'}."
    )
  if (item.kind == "confirmation") != (fr.name == REQUEST_CONFIRMATION):
    raise WrongAnswerKindError(
        f"Call {fr.id!r} is a {item.kind.replace('_', '-')} call for {item.tool!r}; answer it with "
        + ("name='adk_request_confirmation'." if item.kind == "confirmation" else f"name={item.tool!r}.")
    )
  if item.tool == REQUEST_CREDENTIAL:
    _check_credential(session, fr)
  if fr.name == REQUEST_INPUT and isinstance(item.args, dict) and item.args.get("response_schema"):
    _check_fits(fr, item.args["response_schema"])
  return item


def _check_credential(session: "Session", fr: types.FunctionResponse) -> None:
  """Refuses, before anything is committed, an answer to a credential request that carries no credential."""
  from .flows import credential_answer_problem as answer_problem

  if fr.name != REQUEST_CREDENTIAL:
    raise WrongAnswerKindError(f"Call {fr.id!r} asks the client for a credential; answer it with "
                               f"name='{REQUEST_CREDENTIAL}' (the response: the AuthConfig with its "
                               "exchangedAuthCredential filled in); nothing was changed.")
  call = next((c for e in reversed(session.events) for c in e.get_function_calls() if c.id == fr.id), None)
  problem = None if call is None else answer_problem(call, fr.response)
  if problem:
    raise AnswerDoesNotFitError(
        f"The answer to credential request {fr.id!r} carries no usable credential: {problem}. Nothing was "
        "changed: answer it again with the request's authConfig, its exchangedAuthCredential filled in "
        "(e.g. {'authType': 'apiKey', 'apiKey': '...'}).")


def _check_fits(fr: types.FunctionResponse, schema: Any) -> None:
  """Refuses, before anything is committed, an answer that does not fit its request's response_schema."""
  from .workflow._checkpoint import schema_summary
  from .workflow.utils._rehydration_utils import _unwrap_response, _validate_resume_response

  try:
    _validate_resume_response(_unwrap_response(fr.response), schema)
  except ValueError as exc:
    raise AnswerDoesNotFitError(
        f"Validation failed for interrupt {fr.id}: the answer to request {fr.id!r} does not fit its "
        f"response_schema ({schema_summary(schema)}); nothing "
        f"was changed: answer it again with a response that fits. {exc}"
    ) from exc


def checkpointed_entry(root: "BaseAgent", session: "Session", invocation_id: str,
                       paused: PendingItem) -> tuple["BaseAgent", Optional[str]]:
  """The agent-tree rule for where a resumed invocation starts, and in which branch.

  Every agent that was running above the paused one when the invocation paused (workflow
  agents, and LlmAgents that had transferred to it) left a checkpoint; the highest of them
  is where the invocation starts again, and it walks back down to the paused agent.
  """
  pausing = root.find_agent(paused.agent)
  if pausing is None:
    raise PausingAgentNotInTreeError(
        f"Call {paused.call_id!r} was made by agent {paused.agent!r}, which is not in this Runner's agent "
        f"tree (root {root.name!r}); nothing was changed. Resume with the agent tree that paused."
    )
  checkpoints = PauseWindow.read(session.events, invocation_id).branches
  entry, branch = pausing, paused.branch
  node = pausing.parent_agent
  while node is not None:
    if node.name in checkpoints:
      entry, branch = node, checkpoints[node.name]
    node = node.parent_agent
  return entry, branch
